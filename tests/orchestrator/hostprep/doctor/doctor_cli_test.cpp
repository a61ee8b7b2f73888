// Runs the real `topolab doctor` binary: on fixture roots, and live on this machine, where KVM
// must be reported as not usable (nested virtualization, guests hang; TCG is used).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/child_process.hpp"

namespace {

using topolab::testing::run_cli;

const nlohmann::json* find_check(const nlohmann::json& report, const std::string& name) {
  for (const auto& c : report.at("checks")) {
    if (c.at("name") == name) return &c;
  }
  return nullptr;
}

std::string fixture(const std::string& name) {
  return std::string(TOPOLAB_TESTS_DIR) + "/orchestrator/hostprep/doctor/data/" + name;
}

TEST(DoctorCli, LiveMachineSaysKvmIsNotUsableAndWhy) {
  auto run = run_cli({"doctor", "--json"});
  auto report = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << run.out;
  const auto* kvm = find_check(report, "kvm");
  ASSERT_NE(kvm, nullptr) << run.out;
  EXPECT_NE(kvm->at("status"), "ok") << kvm->dump();
  std::string reason = kvm->at("reason");
  EXPECT_NE(reason.find("nested"), std::string::npos) << reason;
  EXPECT_NE(reason.find("hang"), std::string::npos) << reason;
  EXPECT_NE(reason.find("TCG"), std::string::npos) << reason;
  EXPECT_FALSE(kvm->at("fix").get<std::string>().empty());
  // libvirtd runs here (TEAM.md): the libvirt check reports versions.
  const auto* libvirt = find_check(report, "libvirt");
  ASSERT_NE(libvirt, nullptr);
  EXPECT_EQ(libvirt->at("status"), "ok") << libvirt->dump();
  EXPECT_NE(libvirt->at("reason").get<std::string>().find("libvirt "), std::string::npos);
}

TEST(DoctorCli, FixtureRootExitCodeFollowsFailures) {
  auto good = run_cli({"doctor", "--root", fixture("tuned-host"), "--guest-cpus", "4-7", "--json"});
  auto report = nlohmann::json::parse(good.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << good.out;
  EXPECT_EQ(good.exit_code, 0) << good.out;
  EXPECT_EQ(find_check(report, "libvirt")->at("status"), "skip");  // not the live root
  EXPECT_EQ(find_check(report, "isolation")->at("status"), "ok");
  EXPECT_EQ(find_check(report, "cpufreq")->at("status"), "ok");

  // Untuned nested VM: warnings only (no layout asks for something impossible), so exit 0;
  // the table prints the fix lines.
  auto bad = run_cli({"doctor", "--root", fixture("nested-vm"), "--guest-cpus", "2-3"});
  EXPECT_EQ(bad.exit_code, 0) << bad.out;
  EXPECT_NE(bad.out.find("warn  kvm"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("fix: "), std::string::npos) << bad.out;
}

TEST(DoctorCli, FailingLayoutExitsNonZero) {
  auto run = run_cli({"doctor", "--root", fixture("tuned-host"), "--layout",
                      fixture("layouts/win-vfio.toml"), "--json"});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  auto report = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << run.out;
  EXPECT_EQ(report["status"], "fail");
  EXPECT_EQ(report["layout"], "win-vfio");
  EXPECT_EQ(find_check(report, "exposure")->at("status"), "warn");
}

TEST(DoctorCli, BadGuestCpusIsAOneLineError) {
  auto run = run_cli({"doctor", "--root", fixture("tuned-host"), "--guest-cpus", "4-x"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(run.out.empty());
}

}  // namespace
