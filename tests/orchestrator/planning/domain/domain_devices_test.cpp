// The <devices> of the built-in guest (issue 17): DomainSpec::minimal_devices drops the USB
// controller and puts the agent's virtio-serial controller on pcie.0, so libvirt adds no PCIe
// root ports; the XML stays schema-valid, and without the flag (own-disk and Windows guests)
// the template's devices are kept as they were.
#include <gtest/gtest.h>

#include <fstream>
#include <pugixml.hpp>

#include "common/file_io.hpp"
#include "orchestrator/planning/domain/domain_xml_writer.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"
#include "tests/orchestrator/planning/placement/fixture_hosts.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;

// ryzen-1700x planned on a synthetic host, booting the built-in kernel with the agent's
// channel: the spec every test here writes, varied by the field the test is about.
struct PlannedSpec {
  Layout layout = *load_layout_or_preset("ryzen-1700x");
  Result<PlacementPlan> plan =
      plan_placement(layout, make_synthetic_host({2, 4, 4, 2, false, true, 16384}));

  DomainSpec spec(const std::string& name, const fs::path& base) const {
    DomainSpec s;
    s.name = name;
    s.layout = &layout;
    s.plan = &*plan;
    s.base_template = base;
    s.boot = BootSpec{"/k", "/i", "console=ttyS0"};
    s.agent_channel = ChannelSpec{};
    return s;
  }
};

std::string write_xml(bool minimal, const fs::path& base = {}) {
  const PlannedSpec planned;
  EXPECT_TRUE(planned.plan);
  if (!planned.plan) return "";
  DomainSpec spec = planned.spec("topolab-devices", base);
  spec.minimal_devices = minimal;
  auto xml = DomainXmlWriter{}.write(spec);
  EXPECT_TRUE(xml) << xml.error().message;
  return xml ? *xml : "";
}

pugi::xml_node controller(const pugi::xml_document& doc, const char* type) {
  return doc.child("domain").child("devices").find_child_by_attribute("controller", "type", type);
}

TEST(DomainDevices, MinimalHasNoUsbAndVirtioSerialOnTheRootBus) {
  const auto xml = write_xml(true);
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(xml.c_str()));
  EXPECT_STREQ(controller(doc, "usb").attribute("model").value(), "none");
  auto addr = controller(doc, "virtio-serial").child("address");
  EXPECT_STREQ(addr.attribute("type").value(), "pci");
  EXPECT_STREQ(addr.attribute("bus").value(), "0x00");
  EXPECT_STREQ(addr.attribute("slot").value(), "0x02");
  EXPECT_FALSE(doc.child("domain").child("devices").find_child_by_attribute("controller", "model",
                                                                            "pcie-root-port"));
  testing::TempDir dir;
  const auto file = dir.path() / "minimal.xml";
  std::ofstream(file) << xml;
  EXPECT_EQ(testing::run_argv({"virt-xml-validate", file.string(), "domain"}), 0) << xml;
}

TEST(DomainDevices, WithoutTheFlagTheTemplatesDevicesStay) {
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(write_xml(false).c_str()));
  EXPECT_FALSE(controller(doc, "usb"));
  EXPECT_FALSE(controller(doc, "virtio-serial"));
}

TEST(DomainDevices, ATemplatesOwnControllersAreKept) {
  testing::TempDir dir;
  auto text = read_file(templates_dir() / "domains" / "linux-direct-boot.xml");
  ASSERT_TRUE(text);
  const std::string own =
      "<controller type='usb' model='qemu-xhci'/>"
      "<controller type='virtio-serial' index='0'><address type='pci' domain='0x0000' "
      "bus='0x00' slot='0x05' function='0x0'/></controller>";
  text->insert(text->find("<memballoon"), own);
  const auto base = dir.path() / "own.xml";
  std::ofstream(base) << *text;
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(write_xml(true, base).c_str()));
  EXPECT_STREQ(controller(doc, "usb").attribute("model").value(), "qemu-xhci");
  EXPECT_STREQ(controller(doc, "virtio-serial").child("address").attribute("slot").value(), "0x05");
  int n = 0;
  for (auto c : doc.child("domain").child("devices").children("controller")) n += c ? 1 : 0;
  EXPECT_EQ(n, 2);
}

// A template domain (redteam wave 2) with qemu-guest-agent's unix channel and two channels
// already named org.topolab.agent.0, one a pty on a second virtio-serial bus: the agent gets one
// unix channel of that name with our socket (no old type, bus or address), the other is left.
TEST(DomainDevices, TheAgentChannelIsFoundByNameAndIsTheOnlyOne) {
  testing::TempDir dir;
  auto text = read_file(templates_dir() / "domains" / "linux-disk.xml");
  ASSERT_TRUE(text);
  const std::string hostile =
      "<channel type='unix'><source mode='bind'/><target type='virtio' "
      "name='org.qemu.guest_agent.0'/></channel>"
      "<channel type='pty'><target type='virtio' name='org.topolab.agent.0'/>"
      "<address type='virtio-serial' controller='7' bus='0' port='3'/></channel>";
  text->insert(text->find("<channel"), hostile);
  const auto base = dir.path() / "own.xml";
  std::ofstream(base) << *text;
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(write_xml(false, base).c_str()));
  int ours = 0;
  for (auto c : doc.child("domain").child("devices").children("channel")) {
    std::string name = c.child("target").attribute("name").value();
    if (name == "org.qemu.guest_agent.0") {
      EXPECT_STREQ(c.attribute("type").value(), "unix");  // untouched
      continue;
    }
    ASSERT_EQ(name, "org.topolab.agent.0");
    ++ours;
    EXPECT_STREQ(c.attribute("type").value(), "unix");
    EXPECT_STREQ(c.child("target").attribute("type").value(), "virtio");
    EXPECT_FALSE(c.child("address")) << "the hostile bus survived";
  }
  EXPECT_EQ(ours, 1);
}

// Issue 16: a remote guest's console is read through libvirt (virDomainOpenConsole needs a pty):
// the serial becomes a pty with no file of this machine (no <source>, no <log>), even from a
// template whose serial was a file; the local path stays a pty logged to the run folder.
TEST(DomainDevices, AStreamedConsoleIsAPtyWithoutLocalPaths) {
  testing::TempDir dir;
  const auto base = dir.path() / "base.xml";
  std::ofstream(base) << "<domain type='qemu'><name>x</name><memory unit='MiB'>512</memory>"
                         "<os><type arch='x86_64' machine='q35'>hvm</type></os><devices>"
                         "<serial type='file'><source path='/tmp/their.log'/>"
                         "<target port='0'/><log file='/tmp/x.log'/></serial></devices></domain>";
  const PlannedSpec planned;
  ASSERT_TRUE(planned.plan);
  for (const fs::path& tmpl : {fs::path(), base}) {
    DomainSpec spec = planned.spec("topolab-console", tmpl);
    spec.serial_log = "/var/lib/topolab/runs/x/console.log";
    spec.console_stream = true;
    auto xml = DomainXmlWriter{}.write(spec);
    ASSERT_TRUE(xml) << xml.error().message;
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_string(xml->c_str()));
    auto serials = doc.child("domain").child("devices").children("serial");
    ASSERT_EQ(std::distance(serials.begin(), serials.end()), 1) << *xml;
    auto serial = *serials.begin();
    EXPECT_STREQ(serial.attribute("type").value(), "pty") << *xml;
    EXPECT_FALSE(serial.child("source")) << *xml;
    EXPECT_FALSE(serial.child("log")) << *xml;
    EXPECT_EQ(xml->find("console.log"), std::string::npos) << *xml;
    spec.console_stream = false;  // local: the same spec logs the pty into the run folder
    auto local = DomainXmlWriter{}.write(spec);
    ASSERT_TRUE(local);
    EXPECT_NE(local->find("/var/lib/topolab/runs/x/console.log"), std::string::npos) << *local;
  }
}

}  // namespace
}  // namespace topolab
