// Real boots under TCG through qemu:///system: the guest's own sysfs (read by the agent) must
// show the intended topology for each exposure, and a known-bad CPU model must be reported as
// a mismatch. This host has 2 CPUs, so the 16-vCPU layout boots unpinned.
// The exposure tests name Skylake-Server: QEMU 7.2's TCG drops topoext ("TCG doesn't support
// requested feature: CPUID.80000001H:ECX.topoext"), so EPYC-Rome + topoext shows neither SMT
// nor dies here (measured, see docs/lifecycle.md); Skylake-Server is also the TCG default now.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "tests/support/child_process.hpp"

namespace topolab::testing {
namespace {

std::string run_marker(const std::string& what) {
  return "it" + std::to_string(getpid()) + "-" + what;
}

std::string groups(const nlohmann::json& topo, const char* level) {
  std::string out;
  for (const auto& g : topo.at(level)) {
    out += (out.empty() ? "" : " | ") + g.at("cpus").get<std::string>();
  }
  return out;
}

// The boot's run log (issue 13): 0600, with the libvirt calls and their times, the boot
// timings and the agent exchange's summary; none of it on stderr (no -v).
void expect_run_log(const std::string& run_dir) {
  const std::filesystem::path log = std::filesystem::path(run_dir) / "topolab.log";
  struct stat st {};
  ASSERT_EQ(::lstat(log.c_str(), &st), 0) << log;
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::ifstream in(log);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  for (const char* want : {"] libvirt virConnectOpen(qemu:///system): ",
                           "] libvirt virDomainDefineXML(topolab-ryzen-1700x-",
                           "] libvirt virDomainCreate(topolab-ryzen-1700x-", "boot timings: {",
                           "\"hello_ms\":", "agent < hello", "agent > placement",
                           "agent session: ", "shutdown of topolab-ryzen-1700x-"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << " not in " << log << ":\n" << text;
  }
}

// Every retried attempt of a boot was a hang the watchdog caught or a kernel panic before hello
// (GuestSession::retryable_failure), never another failure retried.
void expect_retries_were_hangs(const nlohmann::json& timings) {
  const int attempts = timings.value("boot_attempts", 0);
  EXPECT_GE(attempts, 1) << timings.dump();
  const auto retries = timings.value("boot_retries", nlohmann::json());
  ASSERT_TRUE(retries.is_array()) << timings.dump();
  EXPECT_EQ(retries.size(), static_cast<std::size_t>(attempts - 1)) << timings.dump();
  for (const auto& r : retries) {
    const std::string why = r.value("reason", "");
    EXPECT_TRUE(why.rfind("guest hung: ", 0) == 0 || why.rfind("guest kernel panicked", 0) == 0)
        << r.dump();
  }
  if (attempts > 1) std::cout << "[figures] real TCG hang retried: " << attempts << " attempts\n";
}

class RealBoot : public ::testing::Test {
 protected:
  // Boots ryzen-1700x (16 vCPUs) with extra options, returns the parsed --json output.
  // --boot-retries 3: about one 16-vCPU TCG boot in 10-15 hangs in the guest kernel
  // (docs/lifecycle.md "Boot watchdog"); with the default single retry two hangs in a row
  // would fail about one boot in 100-200 here, and this suite boots five.
  nlohmann::json boot(const std::string& what, std::vector<std::string> extra, int want_exit) {
    marker_ = run_marker(what);
    std::vector<std::string> args = {"boot",   "ryzen-1700x",    "--policy", "unpinned",
                                     "--json", "--run-id",       marker_,    "--hello-timeout",
                                     "300000", "--boot-retries", "3"};
    if (std::find(extra.begin(), extra.end(), "--accel") == extra.end()) {
      extra.insert(extra.end(), {"--accel", "tcg"});
    }
    if (std::find(extra.begin(), extra.end(), "--set") == extra.end()) {
      extra.insert(extra.end(), {"--set", "cpu.model=Skylake-Server"});
    }
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_cli(args, std::chrono::minutes(6));
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.err.find("debug:"), std::string::npos) << r.err;
    EXPECT_EQ(r.exit_code, want_exit) << r.err << r.out;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_TRUE(j.is_object()) << "stdout is not JSON: " << r.out << "\nstderr: " << r.err;
    if (j.is_object() && j.contains("timings")) expect_retries_were_hangs(j["timings"]);
    return j.is_object() ? j : nlohmann::json::object();
  }
  void TearDown() override {
    if (!marker_.empty()) {
      EXPECT_EQ(topolab_domains_with(marker_), std::vector<std::string>{})
          << "a topolab- domain of this test is left behind";
    }
  }
  std::string marker_;
};

TEST_F(RealBoot, RyzenDiesExposureIsSeenByTheGuest) {
  auto j = boot("dies", {}, 0);
  ASSERT_TRUE(j.contains("seen"));
  EXPECT_TRUE(j["match"].get<bool>()) << j["mismatches"].dump();
  const auto& seen = j["seen"];
  EXPECT_EQ(seen["cpus"].size(), 16u);
  EXPECT_EQ(groups(seen, "packages"), "0-15");
  EXPECT_EQ(groups(seen, "dies"), "0-7 | 8-15");
  EXPECT_EQ(groups(seen, "l3_domains"), "0-7 | 8-15");
  EXPECT_EQ(groups(seen, "numa_nodes"), "0-15");
  EXPECT_EQ(seen["cpus"][0]["siblings"], "0-1");
  EXPECT_EQ(j["adjusted_levels"], nlohmann::json::array()) << "dies: every level is the layout's";
  for (const char* k : {"define_ms", "start_ms", "hello_ms", "guest_uptime_at_hello_ms"}) {
    EXPECT_TRUE(j["timings"].contains(k)) << k;
  }
  EXPECT_GT(j["timings"]["guest_uptime_at_hello_ms"].get<long>(), 0);
  // The boot watchdog watched this boot (16 vCPUs, TCG: 30 s + 16 x 1.5 s) and did not fire on
  // the attempt that said hello (a real hang of an earlier attempt was retried: checked above).
  EXPECT_EQ(j["timings"].value("watchdog_ms", 0), 54000);
  EXPECT_TRUE(j["timings"].contains("boot_attempts")) << j["timings"].dump();
  EXPECT_GT(j["timings"].value("console_first_output_ms", -1), 0);
  EXPECT_LT(j["timings"].value("console_max_silence_ms", 1000000), 54000);
  expect_run_log(j.value("run_dir", ""));
}

TEST_F(RealBoot, TwoSocketExposureIsSeenByTheGuest) {
  auto j = boot("sockets", {"--expose", "sockets"}, 0);
  ASSERT_TRUE(j.contains("seen"));
  EXPECT_TRUE(j["match"].get<bool>()) << j["mismatches"].dump();
  EXPECT_EQ(groups(j["seen"], "packages"), "0-7 | 8-15");
  EXPECT_EQ(groups(j["seen"], "l3_domains"), "0-7 | 8-15");
  EXPECT_EQ(j["adjusted_levels"], nlohmann::json::array())
      << "sockets: every level is the layout's";
}

TEST_F(RealBoot, FlatExposureIsSeenByTheGuest) {
  auto j = boot("flat", {"--expose", "flat"}, 0);
  ASSERT_TRUE(j.contains("seen"));
  EXPECT_TRUE(j["match"].get<bool>()) << j["mismatches"].dump();
  EXPECT_EQ(groups(j["seen"], "packages"), "0-15");
  EXPECT_EQ(groups(j["seen"], "dies"), "0-15");
  EXPECT_EQ(j["adjusted_levels"], nlohmann::json::array()) << "flat: every level is the layout's";
}

// NUMA exposure (issue 33: every exposure booted): two cells of 8 vCPUs in one socket. TCG's
// Skylake-Server shows the cells but one L3 across them (measured, qemu-guest-topology.md), so
// the L3 level is verified against the model's expectation and the output says so; the NUMA
// level itself is the layout's own and must match.
TEST_F(RealBoot, NumaExposureIsSeenAndItsL3IsMarkedModelAdjusted) {
  auto j = boot("numa", {"--expose", "numa"}, 0);
  ASSERT_TRUE(j.contains("seen"));
  EXPECT_TRUE(j["match"].get<bool>()) << j["mismatches"].dump();
  EXPECT_EQ(groups(j["seen"], "numa_nodes"), "0-7 | 8-15");
  EXPECT_EQ(groups(j["intended"], "numa_nodes"), "0-7 | 8-15");
  EXPECT_EQ(groups(j["seen"], "packages"), "0-15");
  EXPECT_EQ(groups(j["seen"], "l3_domains"), "0-15");
  EXPECT_EQ(groups(j["intended"], "l3_domains"), "0-15");
  ASSERT_EQ(j["adjusted_levels"].size(), 1u) << j["adjusted_levels"].dump();
  EXPECT_EQ(j["adjusted_levels"][0]["level"], "l3_domains");
  EXPECT_NE(j["adjusted_levels"][0]["why"].get<std::string>().find("one L3 per NUMA cell (2)"),
            std::string::npos)
      << j["adjusted_levels"].dump();
}

TEST_F(RealBoot, PlainEpycWithTopoextOnTwoSocketsIsAMismatchNotAPass) {
  // A model that cannot show this layout: whatever level breaks, the verdict must be a
  // mismatch (exit 3) naming the level and both values, never a pass.
  auto j = boot(
      "wrongmodel",
      {"--expose", "sockets", "--set", "cpu.model=EPYC", "--set", "cpu.features_require=topoext"},
      3);
  ASSERT_TRUE(j.contains("match"));
  EXPECT_FALSE(j["match"].get<bool>());
  ASSERT_FALSE(j["mismatches"].empty());
  for (const auto& m : j["mismatches"]) {
    EXPECT_FALSE(m["level"].get<std::string>().empty());
    EXPECT_NE(m["intended"], m["seen"]) << m.dump();
  }
  EXPECT_EQ(j["cpu_model"]["model"], "EPYC");
  std::cout << "wrong model mismatches: " << j["mismatches"].dump() << "\n";
}

}  // namespace
}  // namespace topolab::testing
