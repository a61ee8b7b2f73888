// Issue 32 class 1: the base's host devices. A `--domain` template's PCI hostdev (a VFIO GPU,
// managed='no') was dropped from the copy: only the layout's [[hostdev]] were written. Now a
// layout without [[hostdev]] keeps the base's unchanged and says so; a layout with [[hostdev]]
// replaces the base's PCI ones (and says which); a USB hostdev is kept either way.
#include <gtest/gtest.h>

#include <fstream>
#include <pugixml.hpp>

#include "orchestrator/planning/domain/domain_xml_writer.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"
#include "tests/orchestrator/planning/placement/fixture_hosts.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;

const char* const kBase =
    "<domain type='kvm'><name>win</name><memory unit='MiB'>1024</memory><vcpu>2</vcpu>"
    "<os><type arch='x86_64' machine='q35'>hvm</type></os><devices>"
    "<hostdev mode='subsystem' type='pci' managed='no'><source><address domain='0x0000' "
    "bus='0x0b' slot='0x00' function='0x1'/></source><rom bar='off'/></hostdev>"
    "<hostdev mode='subsystem' type='usb' managed='yes'><source><vendor id='0x046d'/>"
    "<product id='0xc52b'/></source></hostdev></devices></domain>";

struct Written {
  std::string xml;
  std::vector<std::string> notes;
};

Written write_with(const std::vector<HostDevice>& hostdevs) {
  testing::TempDir tmp;
  std::ofstream(tmp.path() / "base.xml") << kBase;
  Layout layout = *load_layout_or_preset("ryzen-1700x");
  layout.hostdevs = hostdevs;
  auto plan = plan_placement(layout, make_synthetic_host({2, 4, 4, 2, false, true, 16384}));
  EXPECT_TRUE(plan) << plan.error().message;
  if (!plan) return {};
  Written out;
  DomainSpec spec;
  spec.name = "topolab-hostdev";
  spec.layout = &layout;
  spec.plan = &*plan;
  spec.base_template = tmp.path() / "base.xml";
  spec.notes = &out.notes;
  auto xml = DomainXmlWriter{}.write(spec);
  EXPECT_TRUE(xml) << xml.error().message;
  if (xml) out.xml = *xml;
  return out;
}

std::vector<std::string> pci_sources(const std::string& xml) {
  pugi::xml_document doc;
  doc.load_string(xml.c_str());
  std::vector<std::string> out;
  for (auto h : doc.select_nodes("/domain/devices/hostdev[@type='pci']")) {
    auto a = h.node().child("source").child("address");
    out.push_back(std::string(a.attribute("bus").as_string()) + ":" +
                  a.attribute("function").as_string() +
                  " managed=" + h.node().attribute("managed").as_string() +
                  (h.node().child("rom") ? " rom" : ""));
  }
  return out;
}

TEST(DomainHostdev, ALayoutWithoutHostdevsKeepsTheBasesUnchanged) {
  auto w = write_with({});
  EXPECT_EQ(pci_sources(w.xml), std::vector<std::string>{"0x0b:0x1 managed=no rom"}) << w.xml;
  EXPECT_NE(w.xml.find("<vendor id='0x046d'/>"), std::string::npos) << "USB hostdev lost";
  ASSERT_EQ(w.notes.size(), 1u);
  EXPECT_EQ(w.notes[0], "kept the base's 1 PCI host device(s) unchanged: 0000:0b:00.1");
}

TEST(DomainHostdev, ALayoutWithHostdevsReplacesTheBasesPciOnesAndSaysSo) {
  auto w = write_with({{"0000:0a:00.0", true}});
  EXPECT_EQ(pci_sources(w.xml), std::vector<std::string>{"0x0a:0x0 managed=yes"}) << w.xml;
  EXPECT_NE(w.xml.find("<vendor id='0x046d'/>"), std::string::npos) << "USB hostdev lost";
  ASSERT_EQ(w.notes.size(), 1u);
  EXPECT_EQ(w.notes[0],
            "PCI host devices from the layout's [[hostdev]]: 0000:0a:00.0 (replacing the base's "
            "0000:0b:00.1)");
}

}  // namespace
}  // namespace topolab
