// The runner against the real agent on the bare host (backend "host"): fast, no guest.
#include "orchestrator/run/experiment/runner.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "orchestrator/results/report/report_data.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "orchestrator/run/experiment/host_backend.hpp"
#include "orchestrator/run/experiment/matrix.hpp"
#include "tests/orchestrator/run/experiment/store_run.hpp"

namespace topolab::experiment {
namespace {

class RunnerTest : public StoreRunTest {
 protected:
  Result<RunSummary> run(const Experiment& e, std::string* log = nullptr) {
    HostBackend backend(TOPOLAB_AGENT);
    return run_with(e, backend, log);
  }
};

const std::string kTwoCells = two_cell_design("host-sqrt");

TEST_F(RunnerTest, RunsEveryCellOnceAndResumesWithoutWork) {
  auto e = parse(kTwoCells);
  std::string log;
  auto s = run(e, &log);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->boots, 1) << "parameter levels share one started agent";
  EXPECT_EQ(s->runs_executed, 4);
  EXPECT_EQ(s->runs_failed, 0);
  EXPECT_EQ(s->cells_done, 2);
  EXPECT_GT(s->benchmark_ms, 0);
  EXPECT_NE(log.find("[4/4]"), std::string::npos) << log;  // plain log lines when not a TTY
  EXPECT_EQ(log.find('\r'), std::string::npos) << "no bar redraws without a TTY";

  auto again = run(e);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->boots, 0);
  EXPECT_EQ(again->runs_executed, 0);
  EXPECT_EQ(again->runs_skipped, 4);

  e.repetitions = 3;  // one more repetition per cell: only those run
  auto more = run(e);
  ASSERT_TRUE(more.ok());
  EXPECT_EQ(more->boots, 1);
  EXPECT_EQ(more->runs_executed, 2);

  auto store = store::ResultStore::open_read_only(store_path());
  ASSERT_TRUE(store.ok());
  auto exps = (*store)->experiments();
  ASSERT_EQ(exps->size(), 1u);
  auto cells = (*store)->cells((*exps)[0].id);
  ASSERT_EQ(cells->size(), 2u);
  for (const auto& c : *cells) {
    EXPECT_EQ(c.status, "done");
    auto runs = (*store)->runs(c.id);
    ASSERT_EQ(runs->size(), 3u);
    EXPECT_EQ((*runs)[0].params["threads"], c.cell.factors["param.sqrt.threads"]);
    EXPECT_EQ((*runs)[0].result["benchmark"], "sqrt");
  }
  auto boots = (*store)->boots((*exps)[0].id);
  ASSERT_EQ(boots->size(), 2u);
  EXPECT_EQ((*boots)[0].boot.order_seed, configuration_seed(3, (*cells)[0].cell.config_key));
  EXPECT_TRUE((*boots)[0].boot.seen.contains("cpus"));
}

// A run that ends by a signal after a cell's last run but before its status is written leaves
// the cell "running" with every run stored (an own disk's graceful shutdown makes that window
// seconds wide). The rerun has nothing to run there and marks it done, keeping its boot.
TEST_F(RunnerTest, RerunMarksACompleteCellLeftRunningDone) {
  auto e = parse(kTwoCells);
  ASSERT_TRUE(run(e).ok());
  std::int64_t cell_id = 0, boot_id = 0;
  {
    auto store = store::ResultStore::open(store_path());
    ASSERT_TRUE(store.ok());
    auto exps = (*store)->experiments();
    auto cells = (*store)->cells((*exps)[0].id);
    ASSERT_EQ(cells->size(), 2u);
    cell_id = (*cells)[0].id;
    boot_id = (*cells)[0].boot_id;
    ASSERT_GT(boot_id, 0);
    ASSERT_TRUE((*store)->set_cell_status(cell_id, "running", "", (*cells)[0].mismatches, boot_id));
  }
  auto again = run(e);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->boots, 0);
  EXPECT_EQ(again->cells_done, 2);
  auto store = store::ResultStore::open_read_only(store_path());
  ASSERT_TRUE(store.ok());
  auto cells = (*store)->cells((*(*store)->experiments())[0].id);
  for (const auto& c : *cells) {
    EXPECT_EQ(c.status, "done") << c.cell.label;
    if (c.id == cell_id) {
      EXPECT_EQ(c.boot_id, boot_id) << "the boot that measured it is kept";
    }
  }
}

TEST_F(RunnerTest, FailedBenchmarkIsRecordedAndOthersContinue) {
  auto e = parse(R"(
name = "fails"
backend = "host"
repetitions = 1
[[benchmark]]
name = "c2c-latency"
params = { cpus = "0" }
[[benchmark]]
name = "sqrt"
params = { n = 10000, repeats = 1 }
)");
  // A valid file whose benchmark fails in the agent (one CPU where two are needed: what the
  // agent alone can know); an unknown benchmark name is refused when the file is read.
  auto s = run(e);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->runs_failed, 1);
  EXPECT_EQ(s->runs_executed, 1);
  EXPECT_EQ(s->cells_failed, 1);
  auto store = store::ResultStore::open_read_only(store_path());
  auto cells = (*store)->cells((*(*store)->experiments())[0].id);
  ASSERT_EQ(cells->size(), 1u);
  EXPECT_EQ((*cells)[0].status, "failed");
  EXPECT_NE((*cells)[0].error.find("c2c-latency needs at least two CPUs"), std::string::npos)
      << (*cells)[0].error;
  EXPECT_EQ((*store)->runs((*cells)[0].id)->size(), 1u);
  EXPECT_EQ((*store)->failures((*cells)[0].id)->size(), 1u);
}

TEST_F(RunnerTest, AdaptiveRepetitionsStopAtTheCap) {
  auto e = parse(R"(
name = "adaptive"
backend = "host"
repetitions = 2
[[benchmark]]
name = "sqrt"
params = { n = 5000, repeats = 1 }
[adaptive]
cv_threshold = 0.000001
max_repetitions = 4
)");
  auto s = run(e);
  ASSERT_TRUE(s.ok()) << s.error().message;
  // Timings of a real run never have a CV below 1e-6: runs are added up to the cap.
  EXPECT_EQ(s->runs_executed, 4);
  EXPECT_EQ(s->runs_adaptive, 2);
}

// Issue 27: a half-width target adds repetitions until the median's interval exists (6 runs)
// and is tight enough; 1e-6 % is never met, so the cap (8) is reached and the report says so.
TEST_F(RunnerTest, AdaptiveHalfWidthTargetRunsToTheCapAndTheReportSaysSo) {
  auto e = parse(R"(
name = "adaptive-hw"
backend = "host"
repetitions = 2
[[benchmark]]
name = "sqrt"
params = { n = 5000, repeats = 1 }
[adaptive]
ci_halfwidth_pct = 0.000001
max_repetitions = 8
)");
  auto s = run(e);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->runs_executed, 8);
  EXPECT_EQ(s->runs_adaptive, 6);
  auto store = store::ResultStore::open_read_only(store_path());
  auto data = report::load_report(**store, "");
  ASSERT_TRUE(data.ok()) << data.error().message;
  ASSERT_EQ(data->rows.size(), 1u);
  EXPECT_TRUE(data->rows[0].stopped_at_cap);
}

// A loose half-width target is met from the first interval (6 runs): no run beyond it.
TEST_F(RunnerTest, AdaptiveHalfWidthTargetStopsWhenMet) {
  auto e = parse(R"(
name = "adaptive-hw-loose"
backend = "host"
repetitions = 2
[[benchmark]]
name = "sqrt"
# Long enough (~1 ms, median of 3) that a loaded machine's noise stays well inside the loose
# target: at n = 5000 (a few µs) 6 of 15 runs needed 9 repetitions while a CI ran beside it.
params = { n = 200000, repeats = 3 }
[adaptive]
ci_halfwidth_pct = 99
max_repetitions = 20
)");
  auto s = run(e);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->runs_executed, 6);
  auto store = store::ResultStore::open_read_only(store_path());
  auto data = report::load_report(**store, "");
  ASSERT_TRUE(data.ok()) << data.error().message;
  EXPECT_FALSE(data->rows[0].stopped_at_cap);
}

// `replicate` changes nothing: its cells share one configuration (one agent start, one boot).
TEST_F(RunnerTest, ReplicateCellsShareOneConfiguration) {
  auto e = parse(R"(
name = "aa"
backend = "host"
repetitions = 1
[factors]
replicate = [1, 2, 3]
[[benchmark]]
name = "sqrt"
params = { n = 5000, repeats = 1 }
)");
  const auto cells = expand_cells(e);
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_EQ(cells[0].config_key, cells[2].config_key);
  EXPECT_NE(cells[0].key, cells[2].key);
  auto s = run(e);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->runs_executed, 3);
}

TEST_F(RunnerTest, HostBackendRejectsGuestFactorsBeforeStarting) {
  auto e = parse(R"(
name = "bad"
backend = "host"
[factors]
expose = ["flat", "sockets"]
[[benchmark]]
name = "sqrt"
)");
  auto s = run(e);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("runner.toml:5: factor 'expose' changes the guest"),
            std::string::npos)
      << s.error().message;
}

TEST(Progress, FormatsDurations) {
  EXPECT_EQ(Progress::format_duration(65), "1:05");
  EXPECT_EQ(Progress::format_duration(3723), "1:02:03");
  EXPECT_EQ(Progress::format_duration(-1), "?");
}

TEST(Progress, TerminalModeDrawsABarWithCellsAndEta) {
  std::FILE* out = std::tmpfile();
  Progress p(out, /*tty=*/true);
  p.begin(4, 1, 10);
  p.run_start("expose=flat", "sqrt", 1);
  p.run_done("expose=flat", "sqrt", 1, 1.0, "s", 100);
  p.end();
  std::rewind(out);
  char buf[4096] = {};
  std::size_t n = std::fread(buf, 1, sizeof buf - 1, out);
  std::fclose(out);
  std::string text(buf, n);
  EXPECT_NE(text.find("cells 1/4"), std::string::npos) << text;
  EXPECT_NE(text.find("runs 1/10"), std::string::npos) << text;
  EXPECT_NE(text.find("expose=flat sqrt #1"), std::string::npos) << text;
  EXPECT_NE(text.find("ETA"), std::string::npos) << text;
  EXPECT_NE(text.find('\r'), std::string::npos);
}

}  // namespace
}  // namespace topolab::experiment
