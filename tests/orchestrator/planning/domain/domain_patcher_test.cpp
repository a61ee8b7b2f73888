// `apply`: the text patch keeps every non-CPU byte; against the local libvirt a defined (never
// started) domain gets its CPU sections replaced, devices untouched, a backup, and --dry-run
// changes nothing.
#include <gtest/gtest.h>
#include <libvirt/libvirt.h>
#include <unistd.h>

#include <algorithm>
#include <pugixml.hpp>
#include <regex>
#include <sstream>

#include "common/file_io.hpp"
#include "orchestrator/libvirt/apply/domain_apply.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"
#include "orchestrator/planning/placement/synthetic_host.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;

const char* kUserXml = R"(<domain type='kvm'>
  <name>user-vm</name>
  <!-- the user's comment stays -->
  <memory unit='KiB'>4194304</memory>
  <vcpu placement='static'>2</vcpu>
  <cputune>
    <shares>2048</shares>
    <vcpupin vcpu='0' cpuset='1'/>
  </cputune>
  <os>
    <type arch='x86_64' machine='q35'>hvm</type>
  </os>
  <cpu mode='host-model' check='partial'/>
  <devices>
    <disk type='file' device='disk'><source file="/x y/disk.img"/><target dev='vda' bus='virtio'/></disk>
    <interface type='network'>  <source network='default'/>   </interface>
  </devices>
</domain>
)";

// Removes the top-level sections apply may touch, to compare the rest.
std::string strip_cpu_sections(std::string xml) {
  for (const char* name : {"vcpu", "cputune", "numatune", "cpu"}) {
    std::regex self("\\n[ \\t]*<" + std::string(name) + "(\\s[^>]*)?/>");
    std::regex pair("\\n[ \\t]*<" + std::string(name) + "(\\s[^>]*)?>[\\s\\S]*?</" +
                    std::string(name) + ">");
    xml = std::regex_replace(xml, pair, "");
    xml = std::regex_replace(xml, self, "");
  }
  return xml;
}

struct Planned {
  Layout layout;
  PlacementPlan plan;
};

Planned plan_for(const char* preset) {
  auto host = make_synthetic_host({1, 2, 8, 2});
  auto l = *load_layout_or_preset(preset);
  auto p = plan_placement(l, host);
  if (!p) throw FatalError(p.error().message);
  return {l, *p};
}

TEST(DomainPatch, ReplacesOnlyCpuSectionsAndKeepsOtherBytes) {
  auto pl = plan_for("ryzen-1700x");
  EXPECT_FALSE(pl.layout.memory_given);  // a preset's memory is a default, never a resize
  DomainSpec spec;
  spec.layout = &pl.layout;
  spec.plan = &pl.plan;
  spec.host_vendor = "AuthenticAMD";
  auto out = patch_domain_xml(kUserXml, spec);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(strip_cpu_sections(*out), strip_cpu_sections(kUserXml)) << *out;
  EXPECT_NE(out->find("<!-- the user's comment stays -->"), std::string::npos);
  EXPECT_NE(out->find("<source file=\"/x y/disk.img\"/>"), std::string::npos);
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(out->c_str()));
  auto d = doc.child("domain");
  EXPECT_STREQ(d.child_value("vcpu"), "16");
  EXPECT_STREQ(d.child("cputune").child_value("shares"), "2048") << "user tuning kept";
  EXPECT_EQ(std::distance(d.child("cputune").children("vcpupin").begin(),
                          d.child("cputune").children("vcpupin").end()),
            16);
  EXPECT_STREQ(d.child("cpu").attribute("mode").value(), "host-passthrough") << "kvm domain";
  EXPECT_STREQ(d.child("cpu").child("topology").attribute("dies").value(), "2");
  EXPECT_TRUE(d.child("numatune")) << "inserted";
  // Inserted in libvirt order: numatune after cputune, before os.
  EXPECT_LT(out->find("<numatune"), out->find("<os>"));
  EXPECT_GT(out->find("<numatune"), out->find("</cputune>"));
  // Patching again is a fixed point.
  auto again = patch_domain_xml(*out, spec);
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *out);
}

TEST(DomainPatch, UnifiedDiff) {
  std::string a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
  std::string b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n";
  auto d = unified_diff(a, b, "a/x", "b/x", 2);
  EXPECT_EQ(d,
            "--- a/x\n+++ b/x\n@@ -3,5 +3,5 @@\n 3\n 4\n-5\n+five\n 6\n 7\n@@ -9,2 +9,3 @@\n 9\n"
            " 10\n+11\n");
  EXPECT_EQ(unified_diff(a, a, "a", "b"), "");
}

// Real libvirt: define only, never start; undefine on every path.
class ApplyLibvirt : public ::testing::Test {
 protected:
  void SetUp() override {
    conn_ = virConnectOpen("qemu:///system");
    if (!conn_) GTEST_SKIP() << "qemu:///system not reachable";
    name_ = "topolab-applytest-" + std::to_string(getpid());
    auto base = read_file(fs::path(TOPOLAB_SOURCE_DIR) / "templates/domains/linux-direct-boot.xml");
    ASSERT_TRUE(base);
    std::string xml = std::regex_replace(*base, std::regex("topolab-template"), name_);
    // Devices a user would have, which apply must keep.
    xml = std::regex_replace(
        xml, std::regex("<memballoon model='none'/>"),
        "<rng model='virtio'><backend model='random'>/dev/urandom</backend></rng>\n"
        "    <controller type='usb' model='none'/>\n    <memballoon model='none'/>");
    dom_ = virDomainDefineXML(conn_, xml.c_str());
    ASSERT_NE(dom_, nullptr) << virt::capture_libvirt_error().message;
    backups_ = fs::temp_directory_path() / (name_ + "-backups");
  }
  void TearDown() override {
    if (dom_) {
      virDomainUndefine(dom_);
      virDomainFree(dom_);
    }
    if (conn_) virConnectClose(conn_);
    std::error_code ec;
    fs::remove_all(backups_, ec);
  }
  std::string xml() {
    char* x = virDomainGetXMLDesc(dom_, VIR_DOMAIN_XML_INACTIVE);
    std::string s = x ? x : "";
    free(x);  // NOLINT
    return s;
  }
  static std::string section(const std::string& xml, const char* name) {
    pugi::xml_document doc;
    doc.load_string(xml.c_str());
    std::ostringstream out;
    doc.child("domain").child(name).print(out);
    return out.str();
  }
  // The devices as a sorted list: libvirt may reorder controllers when it re-parses.
  static std::vector<std::string> devices(const std::string& xml) {
    pugi::xml_document doc;
    doc.load_string(xml.c_str());
    std::vector<std::string> out;
    for (auto d : doc.child("domain").child("devices").children()) {
      std::ostringstream s;
      d.print(s);
      out.push_back(s.str());
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  virConnectPtr conn_ = nullptr;
  virDomainPtr dom_ = nullptr;
  std::string name_;
  fs::path backups_;
};

TEST_F(ApplyLibvirt, DryRunChangesNothingApplyReplacesCpuSections) {
  auto pl = plan_for("opteron-6140");
  ApplyOptions opts;
  opts.domain = name_;
  opts.backup_dir = backups_;
  opts.dry_run = true;
  const std::string before = xml();
  auto dry = apply_layout_to_domain(opts, pl.layout, pl.plan, "AuthenticAMD");
  ASSERT_TRUE(dry) << dry.error().message;
  EXPECT_TRUE(dry->changed);
  EXPECT_NE(dry->diff.find("+  <vcpu placement='static'>8</vcpu>"), std::string::npos) << dry->diff;
  EXPECT_EQ(xml(), before) << "dry run must not redefine";
  EXPECT_FALSE(fs::exists(backups_));

  opts.dry_run = false;
  auto applied = apply_layout_to_domain(opts, pl.layout, pl.plan, "AuthenticAMD");
  ASSERT_TRUE(applied) << applied.error().message;
  const std::string after = xml();
  EXPECT_EQ(devices(after), devices(before));
  EXPECT_EQ(devices(after).size(), 16u) << "every device kept, none added";
  EXPECT_EQ(section(after, "os"), section(before, "os"));
  EXPECT_EQ(section(after, "uuid"), section(before, "uuid"));
  pugi::xml_document doc;
  doc.load_string(after.c_str());
  auto d = doc.child("domain");
  EXPECT_STREQ(d.child_value("vcpu"), "8");
  EXPECT_STREQ(d.child("cpu").child_value("model"), "Skylake-Server");
  EXPECT_EQ(std::distance(d.child("cpu").child("numa").children("cell").begin(),
                          d.child("cpu").child("numa").children("cell").end()),
            2);
  EXPECT_TRUE(d.child("cputune").child("vcpupin"));
  ASSERT_FALSE(applied->backup.empty());
  EXPECT_EQ(applied->backup.parent_path(), backups_);
  EXPECT_EQ(applied->backup.filename().string().rfind(name_ + ".", 0), 0u);
  auto saved = read_file(applied->backup);
  ASSERT_TRUE(saved);
  EXPECT_NE(saved->find("<vcpu placement='static'>1</vcpu>"), std::string::npos);

  // Applying the same layout again: no change, no new backup.
  auto again = apply_layout_to_domain(opts, pl.layout, pl.plan, "AuthenticAMD");
  ASSERT_TRUE(again) << again.error().message;
  // The diff is against libvirt's own normalised form, so a second apply is a fixed point.
  EXPECT_FALSE(again->changed) << again->diff;
  // libvirt normalises what it stores (e.g. adds check='partial'); a second apply may rewrite
  // those lines, but only inside the CPU sections.
  for (std::istringstream lines(again->diff); !lines.eof();) {
    std::string line;
    std::getline(lines, line);
    if (line.empty() || (line[0] != '+' && line[0] != '-')) continue;
    EXPECT_TRUE(line.find("<devices") == std::string::npos && line.find("<os") == std::string::npos)
        << line << "\n"
        << again->diff;
  }
}

TEST_F(ApplyLibvirt, MissingDomainIsAnError) {
  auto pl = plan_for("flat-8");
  ApplyOptions opts;
  opts.domain = name_ + "-missing";
  auto r = apply_layout_to_domain(opts, pl.layout, pl.plan, "");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find(opts.domain), std::string::npos);
}

}  // namespace
}  // namespace topolab
