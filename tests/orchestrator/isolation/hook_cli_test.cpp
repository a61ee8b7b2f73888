// The real `topolab hook` binary, dry-run on a fixture tree (which it must not change).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/child_process.hpp"

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

TEST(HookCli, MissingArgumentsAndBadNamesFail) {
  EXPECT_EQ(run_cli({"hook"}).exit_code, 2);
  EXPECT_EQ(run_cli({"hook", "../x", "prepare", "--root", kRoot, "--dry-run"}).exit_code, 1);
}

}  // namespace
