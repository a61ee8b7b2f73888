// Issue 25 acceptance on a real TCG guest (the built-in image), with the study examples
// themselves: examples/studies/smt-on-off.toml (os.smt x os.sched_autogroup on a layout with
// threads_per_core = 2) runs in one boot, every run stores the value read back, equal to the
// request, and the guest's online CPUs follow os.smt (2 with "on", 1 with "off");
// examples/studies/opteron-linux.toml (the scheduler rows, debugfs mounted by the agent) runs in
// one boot with every setting read back as requested.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/owned_fd.hpp"
#include "common/process.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "tests/support/run_summary.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using testing::configurations_booted;

const std::string kStudies = std::string(TOPOLAB_SOURCE_DIR) + "/examples/studies/";

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct StudyRun {
  int rc = -1;
  nlohmann::json summary;
  std::string err;
};

StudyRun run_study(const std::string& file, const fs::path& dir, const fs::path& db) {
  ProcessSpec spec(
      {TOPOLAB_CLI, "run", kStudies + file, "--store", db.string(), "--accel", "tcg", "--json"});
  OwnedFd o(open((dir / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  OwnedFd e(open((dir / "err").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  spec.out = Sink::to_fd(o.get());
  spec.err = Sink::to_fd(e.get());
  auto p = Process::spawn(spec);
  StudyRun r;
  if (!p.ok()) return {-1, nullptr, p.error().message};
  r.rc = p->wait(std::chrono::minutes(14)).status.shell_status();
  r.summary = nlohmann::json::parse(slurp(dir / "out"), nullptr, false);
  r.err = slurp(dir / "err");
  return r;
}

// Every run of every cell read back what it asked for.
void expect_seen_as_requested(store::ResultStore& s, const store::StoredCell& c) {
  auto runs = s.runs(c.id);
  ASSERT_TRUE(runs.ok());
  ASSERT_FALSE(runs->empty()) << c.cell.label;
  for (const auto& run : *runs) {
    const auto& cond = run.result["environment"]["conditions"];
    ASSERT_TRUE(cond.is_object()) << c.cell.label << run.result["environment"].dump();
    for (const auto& [name, v] : cond.items()) {
      EXPECT_EQ(v["seen"], v["requested"]) << c.cell.label << " " << name;
      if (c.cell.factors.contains(name)) {
        EXPECT_EQ(v["requested"], c.cell.factors[name]);
      }
    }
  }
}

TEST(OsSettingsRun, SmtOnOffFourCellsOneBootSeenEqualsRequestedAndOnlineCpusFollow) {
  char tmpl[] = "/tmp/topolab-it-os-XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  const fs::path db = dir / "os.db";
  StudyRun run = run_study("smt-on-off.toml", dir, db);
  ASSERT_EQ(run.rc, 0) << run.err;
  const auto& summary = run.summary;
  EXPECT_EQ(configurations_booted(summary), 1) << summary.dump();
  EXPECT_EQ(summary["cells_done"], 4);
  EXPECT_EQ(summary["cells_mismatch"], 0);

  auto store = store::ResultStore::open_read_only(db);
  ASSERT_TRUE(store.ok()) << store.error().message;
  auto exps = (*store)->experiments();
  ASSERT_TRUE(exps.ok() && exps->size() == 1u);
  auto cells = (*store)->cells((*exps)[0].id);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 4u);
  for (const auto& c : *cells) {
    EXPECT_EQ(c.status, "done") << c.cell.label << ": " << c.error;
    expect_seen_as_requested(**store, c);
    auto runs = (*store)->runs(c.id);
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs->size(), 2u) << c.cell.label;  // topology and sqrt
    const auto& first = (*runs)[0].benchmark == "topology" ? (*runs)[0] : (*runs)[1];
    const auto& r = first.result;
    const auto& cond = r["environment"]["conditions"];
    for (const char* name : {"os.sched_autogroup", "os.smt"}) {
      EXPECT_EQ(cond[name]["seen"], c.cell.factors[name]) << c.cell.label << cond.dump();
    }
    const auto& cpus = r["details"]["topology"]["cpus"];
    ASSERT_TRUE(cpus.is_array()) << r["details"].dump();
    int online = 0;
    for (const auto& cpu : cpus) online += cpu.value("online", false) ? 1 : 0;
    EXPECT_EQ(cpus.size(), 2u);
    EXPECT_EQ(online, c.cell.factors["os.smt"] == "on" ? 2 : 1)
        << c.cell.label << ": " << r["details"]["topology"].dump();
  }
  fs::remove_all(dir);
}

TEST(OsSettingsRun, OpteronLinuxStudyOneBootSchedulerRowsApplied) {
  char tmpl[] = "/tmp/topolab-it-os-XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  const fs::path db = dir / "opteron.db";
  StudyRun run = run_study("opteron-linux.toml", dir, db);
  ASSERT_EQ(run.rc, 0) << run.err;
  EXPECT_EQ(configurations_booted(run.summary), 1) << run.summary.dump();
  EXPECT_EQ(run.summary["cells_done"], 8);
  EXPECT_EQ(run.summary["cells_mismatch"], 0);
  auto store = store::ResultStore::open_read_only(db);
  ASSERT_TRUE(store.ok());
  auto cells = (*store)->cells((*(*store)->experiments())[0].id);
  ASSERT_TRUE(cells.ok());
  for (const auto& c : *cells) expect_seen_as_requested(**store, c);
  fs::remove_all(dir);
}

// The Threadripper sweep at test size: 8 cells (threads x pin x autogroup) in one boot, every
// run of both benchmarks with the thread count it asked for and the settings read back.
TEST(OsSettingsRun, ThreadripperScalingSweepOneBootEveryCellRuns) {
  char tmpl[] = "/tmp/topolab-it-os-XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  const fs::path db = dir / "tr.db";
  StudyRun run = run_study("threadripper-scaling.toml", dir, db);
  ASSERT_EQ(run.rc, 0) << run.err;
  EXPECT_EQ(configurations_booted(run.summary), 1) << run.summary.dump();
  EXPECT_EQ(run.summary["cells_done"], 8);
  EXPECT_EQ(run.summary["runs_executed"], 16);
  auto store = store::ResultStore::open_read_only(db);
  ASSERT_TRUE(store.ok());
  auto cells = (*store)->cells((*(*store)->experiments())[0].id);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 8u);
  for (const auto& c : *cells) {
    expect_seen_as_requested(**store, c);
    auto runs = (*store)->runs(c.id);  // kept: the loop reads into it
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs->size(), 2u) << c.cell.label;
    for (const auto& r : *runs)
      EXPECT_EQ(r.result["environment"]["threads"], c.cell.factors["param.threads"])
          << c.cell.label << " " << r.benchmark << ": " << r.result.dump().substr(0, 400);
  }
  fs::remove_all(dir);
}

// SMT on/off x cpuset in one boot: the cpuset "0" keeps both threads on CPU 0, the default
// uses every online CPU (2 with SMT on, 1 with it off).
TEST(OsSettingsRun, SmtCpusetStudyOneBootCpusFollowTheCpusetAndSmt) {
  char tmpl[] = "/tmp/topolab-it-os-XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  const fs::path db = dir / "cpuset.db";
  StudyRun run = run_study("smt-cpuset.toml", dir, db);
  ASSERT_EQ(run.rc, 0) << run.err;
  EXPECT_EQ(configurations_booted(run.summary), 1) << run.summary.dump();
  EXPECT_EQ(run.summary["cells_done"], 4);
  auto store = store::ResultStore::open_read_only(db);
  ASSERT_TRUE(store.ok());
  auto cells = (*store)->cells((*(*store)->experiments())[0].id);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 4u);
  for (const auto& c : *cells) {
    expect_seen_as_requested(**store, c);
    auto runs = (*store)->runs(c.id);
    ASSERT_EQ(runs->size(), 1u);
    const std::string want = c.cell.factors["param.sqrt.cpus"] == "0" ? "0"
                             : c.cell.factors["os.smt"] == "on"       ? "0-1"
                                                                      : "0";
    EXPECT_EQ((*runs)[0].result["environment"]["cpus"], want)
        << c.cell.label << ": " << (*runs)[0].result["environment"].dump();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace topolab
