// Issue 12, class 1: a guest's malformed result fails only its run. The hostile agent
// (data/hostile_agent.py) plays the guest over the real protocol and the real HostBackend:
// before the typed boundary, "unit": 5 threw out of the runner with cells left 'running'.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "orchestrator/experiment/host_backend.hpp"
#include "orchestrator/experiment/runner.hpp"
#include "orchestrator/report/reporter.hpp"
#include "tests/orchestrator/experiment/store_run.hpp"

namespace topolab::experiment {
namespace {

namespace fs = std::filesystem;

const fs::path kHostileAgent =
    fs::path(TOPOLAB_TESTS_DIR) / "orchestrator/experiment/data/hostile_agent.py";

class HostileResult : public StoreRunTest {};

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
  std::string log;
  {
    HostBackend backend(kHostileAgent);
    auto s = run_with(e, backend, &log);
    ASSERT_TRUE(s.ok()) << "the experiment must not abort: " << s.error().message;
    EXPECT_EQ(s->runs_failed, 1);
    EXPECT_EQ(s->runs_executed, 1);
    EXPECT_EQ(s->cells_failed, 1);
    EXPECT_EQ(s->cells_done, 1);
  }
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

}  // namespace
}  // namespace topolab::experiment
