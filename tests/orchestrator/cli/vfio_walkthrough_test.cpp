// docs/vfio.md's walk-through, run (issue 34): its layout is read from the doc itself, its
// commands run on hand-made 5950X and 7950X3D trees, and the output lines the doc quotes must
// be both in the doc and in what the tool prints. `apply --dry-run`, `apply` and `apply --undo`
// run on a real qemu:///system domain this test defines and undefines (never started).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/zen_sysfs.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;

std::string vfio_doc() {
  std::ifstream in(fs::path(TOPOLAB_SOURCE_DIR) / "docs/vfio.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The doc's layout: the ```toml block that starts with "# /etc/topolab/layouts/win10.toml".
std::string doc_layout(const std::string& doc) {
  const std::string start = "```toml\n# /etc/topolab/layouts/win10.toml\n";
  auto b = doc.find(start);
  if (b == std::string::npos) return "";
  b += 8;  // past "```toml\n"
  return doc.substr(b, doc.find("```", b) - b);
}

// `line` is in the doc and in the tool's output.
void expect_quoted(const std::string& doc, const std::string& out, const std::string& line) {
  EXPECT_NE(doc.find(line), std::string::npos) << "docs/vfio.md no longer quotes: " << line;
  EXPECT_NE(out.find(line), std::string::npos) << "the tool no longer prints: " << line << "\n"
                                               << out;
}

class VfioWalkthrough : public ::testing::Test {
 protected:
  void SetUp() override {
    doc_ = vfio_doc();
    const std::string layout = doc_layout(doc_);
    ASSERT_FALSE(layout.empty()) << "docs/vfio.md lost its win10.toml block";
    layout_ = dir_.path() / "win10.toml";
    std::ofstream(layout_) << layout;
  }
  std::string tree(const testing::ZenChip& chip, const std::string& name) {
    return testing::write_zen_sysfs(dir_.path() / name, chip).string();
  }
  testing::TempDir dir_{"topolab-vfio-walk"};
  std::string doc_;
  fs::path layout_;
};

TEST_F(VfioWalkthrough, On5950x) {
  const auto root = tree(testing::ryzen_5950x(), "5950x");
  auto host = run_cli({"host", "--sysfs", root, "--json"});
  ASSERT_EQ(host.exit_code, 0) << host.err;
  EXPECT_EQ(nlohmann::json::parse(host.out)["l3_domains"].size(), 2u);
  auto preset = run_cli({"plan", "ryzen-5950x-ccd", "--sysfs", root});
  EXPECT_EQ(preset.exit_code, 0) << preset.err;

  auto plan = run_cli({"plan", layout_.string(), "--sysfs", root});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  expect_quoted(doc_, plan.out, "0      1        8-15,24-31            0     8-15,24-31");
  EXPECT_NE(plan.out.find("emulator  0-1,16-17"), std::string::npos) << plan.out;
  EXPECT_EQ(plan.out.find("warning"), std::string::npos) << "the doc's layout is clean\n"
                                                         << plan.out;

  const auto xml = dir_.path() / "win10.xml";
  auto x = run_cli({"xml", layout_.string(), "--sysfs", root, "--base", "windows-vfio.xml",
                    "--name", "win10", "-o", xml.string()});
  ASSERT_EQ(x.exit_code, 0) << x.err;
  expect_quoted(doc_, x.err, "kept from the base's <domain type='kvm'> (--accel");
  std::ifstream in(xml);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("<domain type='kvm'>"), std::string::npos);
  EXPECT_NE(text.str().find("<hyperv"), std::string::npos);

  auto doctor = run_cli({"doctor", "--root", root, "--layout", layout_.string(), "--no-libvirt"});
  EXPECT_EQ(doctor.exit_code, 1) << "no IOMMU, no 1G pool in the tree";
  expect_quoted(doc_, doctor.out, "hugepagesz=1G hugepages=16");
  EXPECT_NE(doctor.out.find("modprobe kvm_amd"), std::string::npos) << doctor.out;

  auto snippet = run_cli({"hook", "--install-snippet"});
  EXPECT_EQ(snippet.exit_code, 1);
  expect_quoted(doc_, snippet.err, "refusing --install-snippet from a build tree");
  auto uninstall = run_cli({"hook", "--uninstall-snippet", "--root", dir_.path().string()});
  EXPECT_EQ(uninstall.exit_code, 0) << uninstall.err;
}

TEST_F(VfioWalkthrough, On7950x3d) {
  const auto root = tree(testing::ryzen_7950x3d(), "x3d");
  auto plan = run_cli({"plan", layout_.string(), "--sysfs", root});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  expect_quoted(doc_, plan.out,
                "note: host L3 domains differ in size (96 MiB, 32 MiB): l3-aligned places "
                "groups on the larger ones first");
  expect_quoted(doc_, plan.out,
                "note: larger L3 not used: host L3 domain 0 (96 MiB, CPUs 0-7,16-23) offers 6 of "
                "the 8 whole cores a group needs: housekeeping_cpus 0-1,16-17 take CPUs "
                "0-1,16-17 of it; the guest gets 32 MiB instead. To get it back, move "
                "housekeeping_cpus to another L3 domain or widen host_cpus");
  EXPECT_NE(doc_.find("--set placement.housekeeping_cpus=8-9,24-25"), std::string::npos);
  auto moved = run_cli({"plan", layout_.string(), "--sysfs", root, "--set",
                        "placement.housekeeping_cpus=8-9,24-25", "--json"});
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  auto j = nlohmann::json::parse(moved.out);
  EXPECT_EQ(j["groups"][0]["host_cpus"], "0-7,16-23");
  EXPECT_NE(doc_.find("lands on\n`0-7,16-23`"), std::string::npos);
}

// Runs virsh (libvirt-clients) with the system URI.
testing::CliRun virsh(std::vector<std::string> args) {
  args.insert(args.begin(), {"virsh", "-c", "qemu:///system"});
  testing::ChildOptions o;
  o.search_path = true;
  return testing::run_process(args, o);
}

// The doc's layout on a real domain: this host has 2 CPUs, so the counts, memory and housekeeping
// are overridden to fit; hyperv, the two [[hostdev]] and the 1 GiB pages stay as the doc has
// them, and the 1 GiB domain is resized to 2 GiB (undone with the rest).
TEST_F(VfioWalkthrough, ApplyDryRunApplyAndUndoOnARealDomain) {
  if (virsh({"uri"}).exit_code != 0) GTEST_SKIP() << "qemu:///system not reachable";
  const std::string name = "topolab-test-vfio-walk-" + std::to_string(getpid());
  const auto def = dir_.path() / "domain.xml";
  std::ofstream(def) << "<domain type='qemu'><name>" << name
                     << "</name><memory unit='KiB'>1048576</memory><vcpu>1</vcpu>"
                        "<os><type arch='x86_64' machine='q35'>hvm</type></os>"
                        "<devices><memballoon model='none'/></devices></domain>";
  ASSERT_EQ(virsh({"define", def.string()}).exit_code, 0);
  struct Undefine {
    std::string name;
    ~Undefine() { virsh({"undefine", name}); }
  } undefine{name};
  std::string text = doc_layout(doc_);
  text = std::regex_replace(text, std::regex("housekeeping_cpus = \"[^\"]*\""), "");
  std::ofstream(layout_) << text;
  const auto backups = dir_.path() / "backups";
  std::vector<std::string> fit = {
      "--set",        "guest.cores_per_group=1", "--set", "guest.threads_per_core=1",
      "--set",        "guest.memory_mib=2048",   "--set", "policy=unpinned",
      "--backup-dir", backups.string()};
  const std::string before = virsh({"dumpxml", "--inactive", name}).out;
  auto args = std::vector<std::string>{"apply", name, layout_.string(), "--dry-run", "--json"};
  args.insert(args.end(), fit.begin(), fit.end());
  auto dry = run_cli(args);
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  auto j = nlohmann::json::parse(dry.out);
  const std::string diff = j["diff"];
  EXPECT_NE(diff.find("+    <hyperv"), std::string::npos) << diff;
  EXPECT_NE(diff.find("+    <hostdev mode='subsystem' type='pci' managed='yes'>"),
            std::string::npos)
      << diff;
  const std::string notes = j["notes"].dump();
  EXPECT_NE(notes.find("hyperv: Hyper-V enlightenments added"), std::string::npos) << notes;
  EXPECT_NE(notes.find("hostdev 0000:0b:00.0: passed through"), std::string::npos) << notes;
  EXPECT_NE(notes.find("hostdev 0000:0b:00.1: passed through"), std::string::npos) << notes;
  // memory_mib (1 GiB pages, as the doc's layout asks) resizes the 1 GiB domain: diff and notes.
  EXPECT_NE(diff.find("+  <memory unit='KiB'>2097152</memory>"), std::string::npos) << diff;
  EXPECT_NE(notes.find("memory: 1024 MiB -> 2048 MiB"), std::string::npos) << notes;
  EXPECT_EQ(virsh({"dumpxml", "--inactive", name}).out, before) << "a dry run changes nothing";

  args.erase(args.begin() + 3);  // --dry-run
  auto real = run_cli(args);
  ASSERT_EQ(real.exit_code, 0) << real.err;
  const std::string after = virsh({"dumpxml", "--inactive", name}).out;
  EXPECT_NE(after.find("<hyperv"), std::string::npos) << after;
  EXPECT_NE(after.find("bus='0x0b'"), std::string::npos) << after;
  EXPECT_NE(after.find("<memory unit='KiB'>2097152</memory>"), std::string::npos) << after;
  auto undo = run_cli({"apply", name, "--undo", "--backup-dir", backups.string()});
  ASSERT_EQ(undo.exit_code, 0) << undo.err;
  EXPECT_EQ(virsh({"dumpxml", "--inactive", name}).out, before);
}

}  // namespace
}  // namespace topolab
