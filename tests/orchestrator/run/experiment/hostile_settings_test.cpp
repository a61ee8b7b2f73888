// Issue 25: a hostile agent (data/hostile_agent.py, over the real protocol and the real runner)
// that reads back another value than the one requested yields a reported mismatch, never a
// silent pass; a setting it refuses fails that cell with the agent's message while the other
// cell completes. The host backend is built with allow_host_settings: the hostile agent changes
// nothing on this machine.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "orchestrator/results/report/console_reporter.hpp"
#include "orchestrator/results/report/csv_reporter.hpp"
#include "orchestrator/results/report/html_reporter.hpp"
#include "orchestrator/results/report/json_reporter.hpp"
#include "orchestrator/run/experiment/host_backend.hpp"
#include "orchestrator/run/experiment/runner.hpp"
#include "tests/orchestrator/run/experiment/store_run.hpp"

namespace topolab::experiment {
namespace {

namespace fs = std::filesystem;

const fs::path kHostileAgent =
    fs::path(TOPOLAB_TESTS_DIR) / "orchestrator/run/experiment/data/hostile_agent.py";

class HostileSettings : public StoreRunTest {};

const char* kDesign = R"(
name = "hostile-settings"
backend = "host"
repetitions = 1
[factors]
"os.timer_migration" = [0, 1]
[os]
sched_autogroup = 0
[[benchmark]]
name = "sqrt"
)";

TEST_F(HostileSettings, ALyingReadBackIsAMismatchAndARefusalFailsOnlyItsCell) {
  const Experiment e = parse(kDesign, "hostile.toml");
  std::string log;
  {
    HostBackend backend(kHostileAgent, /*allow_host_settings=*/true);
    auto s = run_with(e, backend, &log);
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s->cells_done, 1);
    EXPECT_EQ(s->cells_failed, 1);
    EXPECT_EQ(s->cells_mismatch, 2) << "both cells read sched_autogroup back as 1";
    EXPECT_EQ(s->runs_executed, 1);
  }
  EXPECT_NE(log.find("os.sched_autogroup requested 0, the guest reads 1: measured, flagged"),
            std::string::npos)
      << log;
  auto store = store::ResultStore::open_read_only(store_path());
  ASSERT_TRUE(store.ok());
  auto cells = (*store)->cells((*(*store)->experiments())[0].id);
  ASSERT_EQ(cells->size(), 2u);
  for (const auto& c : *cells) {
    ASSERT_TRUE(c.mismatches.is_array()) << c.mismatches.dump();
    ASSERT_EQ(c.mismatches.size(), 1u) << c.mismatches.dump();
    EXPECT_EQ(c.mismatches[0],
              (nlohmann::json{{"level", "os.sched_autogroup"}, {"intended", 0}, {"seen", 1}}));
    if (c.cell.factors["os.timer_migration"] == 1) {
      EXPECT_EQ(c.status, "failed");
      EXPECT_NE(c.error.find("the agent refused os.timer_migration: EPERM: timer_migration is "
                             "locked on this hostile guest"),
                std::string::npos)
          << c.error;
      EXPECT_TRUE((*store)->runs(c.id)->empty());
    } else {
      EXPECT_EQ(c.status, "done");
      auto runs = (*store)->runs(c.id);
      ASSERT_EQ(runs->size(), 1u);
      const auto& cond = (*runs)[0].result["environment"]["conditions"];
      EXPECT_EQ(cond["os.timer_migration"], (nlohmann::json{{"requested", 0}, {"seen", 0}}));
      EXPECT_EQ(cond["os.sched_autogroup"], (nlohmann::json{{"requested", 0}, {"seen", 1}}));
    }
  }
  // The JSON report: requested and seen per cell, the lie among the mismatches.
  auto data = report::load_report(**store, "");
  ASSERT_TRUE(data.ok()) << data.error().message;
  std::ostringstream out;
  report::JsonReporter(out).report(*data);
  auto j = nlohmann::json::parse(out.str());
  int with_runs = 0;
  for (const auto& row : j["rows"]) {
    const auto& ctx = row["cell_context"];
    EXPECT_NE(ctx["mismatches"].get<std::string>().find("os.sched_autogroup: intended 0, seen 1"),
              std::string::npos)
        << ctx.dump();
    if (!ctx.contains("conditions")) continue;
    ++with_runs;
    EXPECT_EQ(ctx["conditions"]["os.sched_autogroup"],
              (nlohmann::json{{"requested", 0}, {"seen", {1}}}));
  }
  EXPECT_GE(with_runs, 1) << j["rows"].dump();
  // Table, CSV and HTML: the same requested and seen values as text, one column per format.
  const std::string done_cell =
      "os.sched_autogroup: requested 0, seen 1; "
      "os.timer_migration: requested 0, seen 0";
  std::ostringstream table, csv, html;
  report::ConsoleReporter(table).report(*data);
  report::CsvReporter(csv).report(*data);
  report::HtmlReporter(html).report(*data);
  EXPECT_NE(table.str().find(done_cell), std::string::npos) << table.str();
  EXPECT_NE(csv.str().find(",conditions"), std::string::npos) << csv.str();
  EXPECT_NE(csv.str().find(done_cell), std::string::npos) << csv.str();
  EXPECT_NE(html.str().find("<th class=\"t\">conditions</th>"), std::string::npos);
  EXPECT_NE(html.str().find("<td class=\"t\">" + done_cell + "</td>"), std::string::npos)
      << html.str();
}

// Resume (docs/experiments.md "Guest OS settings"): the same file resumes even though the
// agent read a value back unlike the request (a measurement, not a change of design), and
// with [os] written in another form of the same values; a changed [os] value is refused with
// what changed, before any host is contacted.
TEST_F(HostileSettings, ResumeRefusesChangedOsSettingsButNotAMismatch) {
  HostBackend backend(kHostileAgent, /*allow_host_settings=*/true);
  ASSERT_TRUE(run_with(parse(kDesign, "hostile.toml"), backend).ok());
  auto again = run_with(parse(kDesign, "hostile.toml"), backend);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->runs_executed, 0);
  EXPECT_EQ(again->runs_skipped, 1);
  std::string same = kDesign;
  same.replace(same.find("[os]\nsched_autogroup = 0"), 24, "[os]\n\"sched_autogroup\" = 0 ");
  ASSERT_TRUE(run_with(parse(same, "hostile.toml"), backend).ok());
  std::string changed = kDesign;
  changed.replace(changed.find("sched_autogroup = 0"), 19, "sched_autogroup = 1");
  auto refused = run_with(parse(changed, "hostile.toml"), backend);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("ran cell 'os.timer_migration=0' with other guest OS "
                                         "settings (os.sched_autogroup 0 -> 1): use a new "
                                         "--store or rename the experiment"),
            std::string::npos)
      << refused.error().message;
}

TEST_F(HostileSettings, TheHostBackendRefusesOsSettingsUnlessAllowed) {
  const Experiment e = parse(kDesign, "hostile.toml");
  HostBackend backend(kHostileAgent);
  auto s = run_with(e, backend, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("hostile.toml:6: factor 'os.timer_migration' would change this "
                                   "host's own settings"),
            std::string::npos)
      << s.error().message;
  EXPECT_NE(s.error().message.find("--allow-host-settings"), std::string::npos);
}

}  // namespace
}  // namespace topolab::experiment
