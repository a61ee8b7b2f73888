// Issue 34 "a way back": `topolab apply DOMAIN --undo` on a real qemu:///system domain this test
// defines (never starts) and undefines on every path. After apply then --undo, `virsh dumpxml
// --inactive` prints the same bytes as before the apply (the memory the apply resized too); a
// dry-run undo changes nothing; a backup of another domain of the same name (other UUID) is
// refused.
#include <gtest/gtest.h>
#include <libvirt/libvirt.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/exit_code.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;

std::string virsh_inactive_xml(const std::string& name) {
  testing::ChildOptions o;
  o.search_path = true;
  auto r =
      testing::run_process({"virsh", "-c", "qemu:///system", "dumpxml", "--inactive", name}, o);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

class ApplyUndo : public ::testing::Test {
 protected:
  void SetUp() override {
    conn_ = virConnectOpen("qemu:///system");
    if (!conn_) GTEST_SKIP() << "qemu:///system not reachable";
    name_ = "topolab-test-undo-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    const std::string xml = "<domain type='qemu'><name>" + name_ +
                            "</name><memory unit='KiB'>262144</memory><vcpu>1</vcpu>"
                            "<os><type arch='x86_64' machine='q35'>hvm</type></os>"
                            "<devices><memballoon model='none'/></devices></domain>";
    dom_ = virDomainDefineXML(conn_, xml.c_str());
    ASSERT_NE(dom_, nullptr);
    layout_ = dir_.path() / "undo.toml";
    std::ofstream(layout_) << "name = \"undo\"\n[guest]\nl3_groups = 2\ncores_per_group = 1\n"
                              "threads_per_core = 1\nmemory_mib = 512\n[expose]\nas = \"numa\"\n"
                              "[placement]\npolicy = \"unpinned\"\n";
    backups_ = dir_.path() / "backups";
  }
  void TearDown() override {
    if (dom_) {
      virDomainUndefine(dom_);
      virDomainFree(dom_);
    }
    if (conn_) virConnectClose(conn_);
  }
  testing::CliRun apply(std::vector<std::string> extra) {
    std::vector<std::string> args{"apply", name_};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--backup-dir", backups_.string()});
    return run_cli(args);
  }
  testing::TempDir dir_{"topolab-undo"};
  virConnectPtr conn_ = nullptr;
  virDomainPtr dom_ = nullptr;
  std::string name_;
  fs::path layout_, backups_;
};

TEST_F(ApplyUndo, UndoRestoresTheDefinitionByteForByte) {
  const std::string before = virsh_inactive_xml(name_);
  ASSERT_NE(before.find("<vcpu"), std::string::npos) << before;
  auto nothing = apply({"--undo"});
  EXPECT_EQ(nothing.exit_code, to_int(ExitCode::data_error));
  EXPECT_NE(nothing.err.find("no backup of '" + name_ + "'"), std::string::npos) << nothing.err;

  auto applied = apply({layout_.string()});
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  const std::string after = virsh_inactive_xml(name_);
  ASSERT_NE(after, before) << "the layout changes the domain (2 vCPUs, 2 NUMA cells, 512 MiB)";
  EXPECT_NE(after.find("<cell"), std::string::npos) << after;
  EXPECT_NE(after.find("<memory unit='KiB'>524288</memory>"), std::string::npos) << after;

  auto dry = apply({"--undo", "--dry-run", "--json"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  auto j = nlohmann::json::parse(dry.out);
  EXPECT_EQ(j["changed"], true);
  EXPECT_NE(j["diff"].get<std::string>().find("-      <cell id='0'"), std::string::npos)
      << j["diff"];
  EXPECT_NE(j["diff"].get<std::string>().find("+  <memory unit='KiB'>262144</memory>"),
            std::string::npos)
      << "undo gives the memory back too: " << j["diff"];
  EXPECT_EQ(fs::path(j["backup"].get<std::string>()).parent_path(), backups_);
  EXPECT_EQ(virsh_inactive_xml(name_), after) << "a dry-run undo defines nothing";

  auto undone = apply({"--undo"});
  ASSERT_EQ(undone.exit_code, 0) << undone.err;
  EXPECT_NE(undone.err.find("restored '" + name_ + "' from " + backups_.string()),
            std::string::npos)
      << undone.err;
  EXPECT_EQ(virsh_inactive_xml(name_), before);
}

TEST_F(ApplyUndo, ABackupOfAnotherDomainOfThatNameIsRefused) {
  fs::create_directories(backups_);
  const std::string other = "<domain type='qemu'><name>" + name_ +
                            "</name><uuid>00000000-0000-4000-8000-000000000034</uuid>"
                            "<memory unit='KiB'>262144</memory></domain>";
  std::ofstream(backups_ / (name_ + ".20991231T235959Z.xml")) << other;
  std::ofstream(backups_ / (name_ + ".not-a-stamp.xml")) << "ignored";
  const std::string before = virsh_inactive_xml(name_);
  auto r = apply({"--undo"});
  EXPECT_EQ(r.exit_code, to_int(ExitCode::data_error));
  EXPECT_NE(r.err.find("UUID 00000000-0000-4000-8000-000000000034 differs"), std::string::npos)
      << r.err;
  EXPECT_EQ(virsh_inactive_xml(name_), before);
  EXPECT_EQ(apply({"--undo", layout_.string()}).exit_code, 2);  // --undo takes no layout
}

}  // namespace
}  // namespace topolab
