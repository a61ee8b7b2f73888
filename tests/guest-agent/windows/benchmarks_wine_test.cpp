// Every benchmark of the Windows agent under wine, with small parameters, through the
// orchestrator's AgentClient::run (the code that receives and validates the Linux agent's
// results); and c2c-latency CPU 0 <-> 1 against the Linux agent on the same machine.
#include <gtest/gtest.h>

#include "orchestrator/guest/agent/agent_client.hpp"
#include "tests/guest-agent/windows/wine_agent.hpp"

namespace topolab {
namespace {

using namespace testing;
using nlohmann::json;

const auto* const kWine = ::testing::AddGlobalTestEnvironment(new WineEnvironment);

struct Case {
  const char* benchmark;
  json params;
};

TEST(WindowsAgentBenchmarks, EveryBenchmarkRunsAndItsResultIsAccepted) {
  TOPOLAB_REQUIRE_WINE();
  const std::vector<Case> cases = {
      {"sqrt", {{"n", 20000}, {"repeats", 1}, {"threads", 2}, {"pin", "compact"}}},
      {"c2c-latency", {{"cpus", "0-1"}, {"iterations", 2000}, {"repeats", 3}}},
      {"mem-latency", {{"sizes_kib", {64, 256}}, {"loads", 20000}, {"repeats", 1}, {"cpu", 1}}},
      {"mem-bandwidth", {{"array_kib", 1024}, {"repeats", 1}, {"threads", 2}, {"pin", "scatter"}}},
      {"migration", {{"cpus", "0-1"}, {"sizes_kib", {64}}, {"repeats", 1}}},
      {"fault-rate", {{"iterations", 50}, {"pages_per_map", 8}, {"repeats", 1}}},
      {"syscall-rate", {{"iterations", 2000}, {"repeats", 1}, {"pin", "list"}, {"cpus", "1"}}},
      {"spawn-loop", {{"iterations", 2}, {"repeats", 1}}},
      {"topology", json::object()},
  };
  WineAgent agent;
  auto client = AgentClient::connect_tcp_loopback(agent.port(), 30000ms);
  ASSERT_TRUE(client.ok()) << client.error().message;
  for (const auto& c : cases) {
    auto result = (*client)->run(c.benchmark, c.params, 120000ms);
    EXPECT_TRUE(result.ok()) << c.benchmark << ": " << result.error().message;
  }
  ASSERT_TRUE((*client)->shutdown().ok());
}

// The same benchmark by hand (`run BENCH --json`), its JSON as printed.
json run_json(bool windows, const std::vector<std::string>& args) {
  std::vector<std::string> full = {"run"};
  full.insert(full.end(), args.begin(), args.end());
  full.push_back("--json");
  CliRun r;
  if (windows) {
    r = run_wine_agent(full);
  } else {
    full.insert(full.begin(), TOPOLAB_AGENT);
    r = run_process(full, 120s);
  }
  EXPECT_EQ(r.status(), 0) << r.err;
  json j = json::parse(r.out, nullptr, false);
  return j.is_discarded() ? json() : j;
}

TEST(WindowsAgentBenchmarks, PinningAndResultsFollowTheParameters) {
  TOPOLAB_REQUIRE_WINE();
  json r = run_json(true, {"sqrt", "--param", "n=1000", "--param", "repeats=1", "--param",
                           "threads=2", "--param", "pin=list", "--param", "cpus=1,0"});
  ASSERT_TRUE(r.is_object());
  EXPECT_EQ(r["environment"]["cpus"], "0-1");
  EXPECT_EQ(r["environment"]["threads"], 2);
  EXPECT_TRUE(r["environment"]["steal_before"].is_null()) << "Windows has no steal counter";
  r = run_json(true, {"migration", "--param", "cpus=0-1", "--param", "sizes_kib=[64]", "--param",
                      "repeats=1"});
  ASSERT_TRUE(r.is_object());
  EXPECT_EQ(r["details"]["rows"][0]["ran_on_b"], true) << "SetThreadGroupAffinity moved it";
  r = run_json(true, {"syscall-rate", "--param", "iterations=100", "--param", "repeats=1"});
  EXPECT_NE(r["details"]["call"].get<std::string>().find("NtWaitForSingleObject"),
            std::string::npos);
}

TEST(WindowsAgentBenchmarks, ParametersWithoutAWindowsMeaningAreRefused) {
  TOPOLAB_REQUIRE_WINE();
  // /bin/true is on spawn-loop's allow-list for Linux guests; on Windows it is refused, not
  // silently replaced by the agent itself.
  auto r = run_wine_agent({"run", "spawn-loop", "--param", "program=/bin/true"});
  EXPECT_EQ(r.status(), 65);  // ErrorKind::input: a parameter refused
  EXPECT_NE(r.err.find("'/bin/true' has no meaning on Windows"), std::string::npos) << r.err;
  r = run_wine_agent({"run", "c2c-latency", "--param", "cpus=0-4095"});
  EXPECT_EQ(r.status(), 4);  // ErrorKind::does_not_fit: valid CPUs this guest does not have
  EXPECT_NE(r.err.find("not available"), std::string::npos) << r.err;
}

TEST(WindowsAgentBenchmarks, C2cLatencyMatchesTheLinuxAgent) {
  TOPOLAB_REQUIRE_WINE();
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "this tree's Linux agent is sanitizer-instrumented: the comparison runs in the "
                  "release build's tests";
#endif
  const std::vector<std::string> args = {"c2c-latency",      "--param", "cpus=0-1", "--param",
                                         "iterations=20000", "--param", "repeats=7"};
  // The best of several samples, and up to six rounds of both agents: they share this
  // machine with other work, and a round where either was descheduled (hundreds of ns instead of
  // tens) says nothing about the agents. One round within range passes; all rounds are printed.
  // (Three rounds once all failed while two builds ran beside the unit tests: 2.1-3.1x.)
  std::string rounds;
  bool within = false;
  for (int round = 0; round < 6 && !within; ++round) {
    json w = run_json(true, args), l = run_json(false, args);
    ASSERT_TRUE(w.is_object() && l.is_object());
    double win_ns = w["details"]["pairs"][0]["min_ns"].get<double>();
    double linux_ns = l["details"]["pairs"][0]["min_ns"].get<double>();
    rounds += "windows(wine) " + std::to_string(win_ns) + " ns, linux " + std::to_string(linux_ns) +
              " ns\n";
    within = win_ns >= 0.5 * linux_ns && win_ns <= 2.0 * linux_ns;
  }
  std::cout << "c2c-latency 0<->1 min one-way:\n" << rounds;
  RecordProperty("c2c_rounds", rounds);
  EXPECT_TRUE(within) << "no round within 0.5-2x of the Linux agent:\n" << rounds;
}

// Telemetry on Windows (issue 26): CPU times from GetProcessTimes; migrations from the CPUs the
// benchmark threads post themselves (GetCurrentProcessorNumberEx, guest-agent/bench/
// cpu_board.hpp), since Windows tells no thread another's CPU; context switches and the kernel
// count omitted with the reason. Pinned threads (SetThreadGroupAffinity) never move.
TEST(WindowsAgentBenchmarks, TelemetryCountsMigrationsFromTheThreadsOwnCpus) {
  TOPOLAB_REQUIRE_WINE();
  for (const char* pin : {"list", "none"}) {
    std::vector<std::string> args = {"sqrt",      "--param",   "n=4000000",
                                     "--param",   "repeats=1", "--param",
                                     "threads=2", "--param",   std::string("pin=") + pin};
    if (std::string(pin) == "list") args.insert(args.end(), {"--param", "cpus=0,1"});
    json r = run_json(true, args);
    ASSERT_TRUE(r.is_object()) << pin;
    const json& t = r["telemetry"];
    SCOPED_TRACE(std::string("pin=") + pin + ": " + t.dump());
    ASSERT_TRUE(t.contains("migrations") && t["migrations"].is_number_unsigned());
    EXPECT_GT(t["samples"].get<std::uint64_t>(), 0u);
    EXPECT_GT(t["cpu_user_s"].get<double>(), 0.0);
    EXPECT_FALSE(t["omitted"].contains("migrations"));
    for (const char* why : {"ctx_switches_voluntary", "kernel_migrations"})
      EXPECT_TRUE(t["omitted"].contains(why)) << why;
    if (std::string(pin) == "list") {
      EXPECT_EQ(t["migrations"], 0) << "pinned threads moved";
    }
  }
}

}  // namespace
}  // namespace topolab
