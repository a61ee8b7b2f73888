// The real `topolab hook` binary, dry-run on a fixture tree (which it must not change).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using topolab::testing::run_cli;

const std::string kRoot =
    std::string(TOPOLAB_TESTS_DIR) + "/orchestrator/isolation/data/cgroup2-host";

TEST(HookCli, DryRunJsonPrintsThePlan) {
  auto run =
      run_cli({"hook", "win10", "prepare", "-", "-", "--root", kRoot, "--dry-run", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.out;
  auto j = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << run.out;
  EXPECT_EQ(j["action"], "apply");
  EXPECT_EQ(j["plan"]["guest_cpus"], "4-7");
  EXPECT_EQ(j["plan"]["actions"].size(), 10u);
  EXPECT_FALSE(j.contains("report"));
}

TEST(HookCli, TextDryRunAndOtherDomainsAndOperations) {
  auto text = run_cli({"hook", "win10", "prepare", "--root", kRoot, "--dry-run"});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("irq-affinity  /proc/irq/24/smp_affinity_list: '0-7' -> '0-3'"),
            std::string::npos)
      << text.out;
  auto other = run_cli({"hook", "someone-else", "prepare", "--root", kRoot, "--dry-run"});
  EXPECT_EQ(other.exit_code, 0);
  EXPECT_NE(other.out.find("none (dry run): no layout registered"), std::string::npos) << other.out;
  auto started = run_cli({"hook", "win10", "started", "--root", kRoot});
  EXPECT_EQ(started.exit_code, 0);
  EXPECT_NE(started.out.find("needs nothing"), std::string::npos) << started.out;
}

// Issue 34: release --dry-run shows what release writes back (reverse order, recorded value
// last), and -q keeps a release that worked silent.
TEST(HookCli, ReleaseDryRunShowsTheRestorePlanAndQuietReleaseIsSilent) {
  topolab::testing::TempDir dir("topolab-hook-release");
  const auto root = dir.path() / "root";
  std::filesystem::copy(kRoot, root, std::filesystem::copy_options::recursive);
  auto prepare = run_cli({"hook", "win10", "prepare", "--root", root.string()});
  ASSERT_EQ(prepare.exit_code, 0) << prepare.out << prepare.err;
  auto dry = run_cli({"hook", "win10", "release", "--root", root.string(), "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("restore plan for win10"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("/proc/irq/24/smp_affinity_list: '0-3' -> '0-7'"), std::string::npos)
      << dry.out;
  EXPECT_EQ(dry.out.find("isolation plan"), std::string::npos) << dry.out;
  auto dry_json =
      run_cli({"hook", "win10", "release", "--root", root.string(), "--dry-run", "--json"});
  auto j = nlohmann::json::parse(dry_json.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << dry_json.out;
  ASSERT_FALSE(j["restoring"].empty());
  EXPECT_EQ(j["restoring"].size(), j["plan"]["actions"].size());
  auto quiet = run_cli({"-q", "hook", "win10", "release", "--root", root.string()});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.out, "");
  std::ifstream irq(root / "proc/irq/24/smp_affinity_list");
  std::string value;
  irq >> value;
  EXPECT_EQ(value, "0-7");  // released for real
}

// Issue 34: the snippet from a build-tree binary needs --force (the hook would break with the
// build folder), and --uninstall-snippet removes exactly what --install-snippet wrote.
TEST(HookCli, SnippetFromABuildTreeNeedsForceAndUninstallRemovesOnlyOurs) {
  auto refused = run_cli({"hook", "--install-snippet"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("refusing --install-snippet from a build tree"), std::string::npos)
      << refused.err;
  EXPECT_EQ(refused.out, "");
  auto forced = run_cli({"hook", "--install-snippet", "--force"});
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  ASSERT_NE(forced.out.find(" hook \"$1\" \"$2\""), std::string::npos) << forced.out;

  topolab::testing::TempDir dir("topolab-hook-snippet");
  const auto hooks = dir.path() / "etc/libvirt/hooks";
  std::filesystem::create_directories(hooks);
  const std::string root = dir.path().string();
  EXPECT_NE(run_cli({"hook", "--uninstall-snippet", "--root", root}).out.find("nothing to remove"),
            std::string::npos);
  std::ofstream(hooks / "qemu") << forced.out;
  auto dry = run_cli({"hook", "--uninstall-snippet", "--root", root, "--dry-run"});
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("would remove (dry run)"), std::string::npos) << dry.out;
  EXPECT_TRUE(std::filesystem::exists(hooks / "qemu"));
  auto removed = run_cli({"hook", "--uninstall-snippet", "--root", root, "--json"});
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  auto j = nlohmann::json::parse(removed.out, nullptr, false);
  EXPECT_EQ(j["removed"], true) << removed.out;
  EXPECT_EQ(j["binary"], std::string(TOPOLAB_CLI));
  EXPECT_FALSE(std::filesystem::exists(hooks / "qemu"));

  // Merged with another tool's lines: the user's file, left alone.
  std::ofstream(hooks / "qemu") << forced.out << "# vfio-isolate lines below\n";
  auto merged = run_cli({"hook", "--uninstall-snippet", "--root", root});
  EXPECT_EQ(merged.exit_code, 1);
  EXPECT_NE(merged.err.find("edited or merged since topolab wrote it"), std::string::npos)
      << merged.err;
  EXPECT_TRUE(std::filesystem::exists(hooks / "qemu"));
}

TEST(HookCli, MissingArgumentsAndBadNamesFail) {
  EXPECT_EQ(run_cli({"hook"}).exit_code, 2);
  EXPECT_EQ(run_cli({"hook", "../x", "prepare", "--root", kRoot, "--dry-run"}).exit_code, 1);
}

}  // namespace
