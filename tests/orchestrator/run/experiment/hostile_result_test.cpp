// Issue 12, class 1: a guest's malformed result fails only its run. The hostile agent
// (data/hostile_agent.py) plays the guest over the real protocol and the real HostBackend:
// before the typed boundary, "unit": 5 threw out of the runner with cells left 'running'.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "orchestrator/results/report/console_reporter.hpp"
#include "orchestrator/run/experiment/host_backend.hpp"
#include "orchestrator/run/experiment/runner.hpp"
#include "tests/orchestrator/run/experiment/store_run.hpp"

namespace topolab::experiment {
namespace {

namespace fs = std::filesystem;

const fs::path kHostileAgent =
    fs::path(TOPOLAB_TESTS_DIR) / "orchestrator/run/experiment/data/hostile_agent.py";

class HostileResult : public StoreRunTest {
 protected:
  // Runs `e` against the hostile agent: one run per cell, `failed` of them refused, `done`
  // stored; the experiment itself never aborts. Returns the progress log.
  std::string run_hostile(const Experiment& e, int failed, int done) {
    std::string log;
    HostBackend backend(kHostileAgent);
    auto s = run_with(e, backend, &log);
    EXPECT_TRUE(s.ok()) << "the experiment must not abort: " << s.error().message;
    if (!s.ok()) return log;
    EXPECT_EQ(s->runs_failed, failed) << log;
    EXPECT_EQ(s->runs_executed, done) << log;
    EXPECT_EQ(s->cells_failed, failed);
    EXPECT_EQ(s->cells_done, done);
    return log;
  }
};

TEST_F(HostileResult, ANumberUnitFailsOnlyItsCellAndNothingIsLeftRunning) {
  const Experiment e = parse(R"(
name = "hostile"
backend = "host"
repetitions = 1
[factors]
"param.sqrt.threads" = [1, 2]
[[benchmark]]
name = "sqrt"
)",
                             "hostile.toml");
  const std::string log = run_hostile(e, 1, 1);
  // The reason reaches the progress log; the guest's escape sequences do not.
  EXPECT_NE(log.find("guest result: field 'unit': expected a string, got number 5"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find('\x1b'), std::string::npos) << "raw ESC from the guest on the terminal";
  EXPECT_NE(log.find("s\\x1b]0;pwned\\x07"), std::string::npos) << log;

  auto store = store::ResultStore::open_read_only(store_path());
  ASSERT_TRUE(store.ok());
  auto cells = (*store)->cells((*(*store)->experiments())[0].id);
  ASSERT_EQ(cells->size(), 2u);
  for (const auto& c : *cells) {
    EXPECT_NE(c.status, "running") << c.cell.label;
    if (c.cell.factors["param.sqrt.threads"] == 1) {
      EXPECT_EQ(c.status, "failed");
      EXPECT_NE(c.error.find("field 'unit': expected a string, got number 5"), std::string::npos)
          << c.error;
      EXPECT_TRUE((*store)->runs(c.id)->empty()) << "an invalid result is never stored";
    } else {
      EXPECT_EQ(c.status, "done");
    }
  }
  // The report of that store works and keeps the guest's bytes off the terminal.
  auto data = report::load_report(**store, "");
  ASSERT_TRUE(data.ok()) << data.error().message;
  std::ostringstream table;
  report::ConsoleReporter(table).report(*data);
  EXPECT_EQ(table.str().find('\x1b'), std::string::npos) << table.str();
}

// Issue 26: hostile telemetry from a fake agent over the real protocol and runner. Each bad
// object fails only its run, with the field named, and nothing of it is stored; a valid one is
// stored as sent.
TEST_F(HostileResult, HostileTelemetryFailsOnlyItsRunAndNothingOfItIsStored) {
  const Experiment e = parse(R"(
name = "hostile-telemetry"
backend = "host"
repetitions = 1
timeout_s = 30
[factors]
"param.sqrt.threads" = [3, 4, 5, 6, 7, 8, 9]
[[benchmark]]
name = "sqrt"
)",
                             "hostile-telemetry.toml");
  run_hostile(e, 6, 1);
  const std::map<int, std::string> reasons = {
      {3, "field 'telemetry.cpu_user_s': expected seconds 0..1e7"},
      {4, "field 'telemetry.migrations': expected an integer"},
      {5, "field 'telemetry.cpu_user_s': expected seconds 0..1e7"},
      {6, "field 'telemetry.samples': expected an integer 0..100000"},
      {7, "field 'host_telemetry' is measured by the host"},
      {9, "field 'telemetry"},
  };
  auto store = store::ResultStore::open_read_only(store_path());
  ASSERT_TRUE(store.ok());
  auto cells = (*store)->cells((*(*store)->experiments())[0].id);
  ASSERT_EQ(cells->size(), 7u);
  for (const auto& c : *cells) {
    const int threads = c.cell.factors["param.sqrt.threads"].get<int>();
    auto runs = (*store)->runs(c.id);
    ASSERT_TRUE(runs.ok());
    if (threads == 8) {
      EXPECT_EQ(c.status, "done") << c.error;
      ASSERT_EQ(runs->size(), 1u);
      const auto& t = (*runs)[0].result["telemetry"];
      EXPECT_EQ(t["cpu_user_s"], 0.5) << t.dump();
      EXPECT_EQ(t["migrations"], 1) << t.dump();
      continue;
    }
    EXPECT_EQ(c.status, "failed") << threads;
    EXPECT_NE(c.error.find(reasons.at(threads)), std::string::npos) << threads << ": " << c.error;
    EXPECT_TRUE(runs->empty()) << threads << ": a refused result was stored";
  }
}

}  // namespace
}  // namespace topolab::experiment
