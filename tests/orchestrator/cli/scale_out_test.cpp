// Shards and store merge (issue 30) on the built `topolab` with backend "host" (real runs of the
// agent's benchmarks on this machine): 3 shards merged report what one direct run reports, a
// store merged alone reports exactly what it did, and every refusal leaves OUT untouched.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "common/exit_code.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "orchestrator/results/store/store_merge.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::run_cli;

const std::string kHost12 = std::string(TOPOLAB_TESTS_DIR) + "/badinput/cases/scaleout/host12.toml";

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Timestamps (when it ran) and store paths (where it was stored) are not what was measured.
const std::set<std::string> kWhen = {"created",   "updated", "started", "finished", "date",
                                     "generated", "store",   "stores",  "at"};

// The report with what differs between two stores of the same runs removed; with
// `mask_measurements`, every floating-point value too (two runs measure different times, but
// cells, statuses and run counts, integers, must agree).
json comparable(json j, bool mask_measurements) {
  if (j.is_object()) {
    json out = json::object();
    for (auto& [k, v] : j.items()) {
      if (kWhen.count(k)) continue;
      // Noise flags come from each run's measured steal and spread: measurements too (a
      // loaded machine flags one side's runs and not the other's).
      out[k] =
          mask_measurements && k == "noise" ? json("<measured>") : comparable(v, mask_measurements);
    }
    return out;
  }
  if (j.is_array()) {
    for (auto& v : j) v = comparable(v, mask_measurements);
    return j;
  }
  if (mask_measurements && j.is_number_float()) return "<measured>";
  return j;
}

class ScaleOutTest : public ::testing::Test {
 protected:
  fs::path at(const std::string& name) const { return dir_ / name; }

  void run_ok(const std::vector<std::string>& args) {
    auto r = run_cli(args);
    ASSERT_EQ(r.status(), 0) << r.err;
  }

  json report(const fs::path& store) {
    auto r = run_cli({"report", store.string(), "--format", "json"});
    EXPECT_EQ(r.status(), 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }

  void run_shards(int n) {
    for (int k = 1; k <= n; ++k)
      run_ok({"run", kHost12, "--store", at("s" + std::to_string(k) + ".db").string(), "--shard",
              std::to_string(k) + "/" + std::to_string(n), "-q"});
  }

  testing::TempDir temp_{"topolab-scale-out-test"};
  const fs::path dir_ = temp_.path();
};

TEST_F(ScaleOutTest, ListShardsSplitsTheCellsOnceEach) {
  auto r = run_cli({"run", kHost12, "--list-shards", "3", "--json"});
  ASSERT_EQ(r.status(), 0) << r.err;
  auto j = json::parse(r.out);
  ASSERT_EQ(j["shards"].size(), 3u);
  std::set<std::string> seen;
  for (const auto& s : j["shards"]) {
    EXPECT_EQ(s["cells"].size(), 4u) << s.dump();
    for (const auto& c : s["cells"]) EXPECT_TRUE(seen.insert(c.get<std::string>()).second) << c;
  }
  EXPECT_EQ(seen.size(), 12u);
  // Deterministic: the same listing again.
  EXPECT_EQ(run_cli({"run", kHost12, "--list-shards", "3", "--json"}).out, r.out);
}

TEST_F(ScaleOutTest, ThreeShardsMergedReportWhatOneDirectRunReports) {
  run_ok({"run", kHost12, "--store", at("direct.db").string(), "-q"});
  run_shards(3);
  // A shard's store holds every cell, the other shards' still pending.
  {
    auto s1 = store::ResultStore::open_read_only(at("s1.db"));
    ASSERT_TRUE(s1.ok()) << s1.error().message;
    auto cells = (*s1)->cells((*(*s1)->experiments())[0].id);
    int done = 0, pending = 0;
    for (const auto& c : *cells) (c.status == "done" ? done : pending) += 1;
    EXPECT_EQ(done, 4);
    EXPECT_EQ(pending, 8);
  }
  auto m = run_cli({"merge", at("merged.db").string(), at("s1.db").string(), at("s2.db").string(),
                    at("s3.db").string(), "--json"});
  ASSERT_EQ(m.status(), 0) << m.err;
  auto summary = json::parse(m.out);
  int runs_added = 0;
  for (const auto& in : summary["inputs"]) runs_added += in["added"].value("runs", 0);
  EXPECT_EQ(runs_added, 12);

  const json direct = report(at("direct.db")), merged = report(at("merged.db"));
  ASSERT_FALSE(direct.is_discarded());
  ASSERT_FALSE(merged.is_discarded());
  EXPECT_EQ(comparable(merged, true), comparable(direct, true)) << "merged:\n"
                                                                << merged.dump(1) << "\ndirect:\n"
                                                                << direct.dump(1);

  // The same runs merged alone report exactly (statistics included) what their store does.
  auto one = run_cli({"merge", at("copy.db").string(), at("direct.db").string()});
  ASSERT_EQ(one.status(), 0) << one.err;
  EXPECT_EQ(comparable(report(at("copy.db")), false), comparable(direct, false));
}

TEST_F(ScaleOutTest, MergingAgainAddsNothingAndAResumedShardAdvancesItsCells) {
  run_shards(2);
  run_ok({"merge", at("m.db").string(), at("s1.db").string()});
  auto again =
      run_cli({"merge", at("m.db").string(), at("s1.db").string(), at("s2.db").string(), "--json"});
  ASSERT_EQ(again.status(), 0) << again.err;
  auto j = json::parse(again.out);
  EXPECT_EQ(j["inputs"][0]["added"].value("runs", 0), 0) << j.dump();
  EXPECT_EQ(j["inputs"][0]["already_present"].value("runs", 0), 6) << j.dump();
  EXPECT_EQ(j["inputs"][1]["added"].value("runs", 0), 6) << j.dump();
  EXPECT_EQ(j["inputs"][1]["cells_advanced"], 6) << "shard 2's cells were pending in s1";
  auto m = store::ResultStore::open_read_only(at("m.db"));
  ASSERT_TRUE(m.ok());
  // Held in a local: a range-for over *temporary would read a destroyed Result.
  auto cells = (*m)->cells((*(*m)->experiments())[0].id);
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  EXPECT_EQ(cells->size(), 12u);
  for (const auto& c : *cells) EXPECT_EQ(c.status, "done") << c.cell.label;
}

// What each refusal leaves: OUT byte for byte as it was, and no temporary file beside it.
class MergeRefusalTest : public ScaleOutTest {
 protected:
  void SetUp() override {
    run_shards(2);
    run_ok({"merge", at("out.db").string(), at("s1.db").string()});
    before_ = read_all(at("out.db"));
  }
  void expect_refused(const std::vector<std::string>& inputs, const std::string& message) {
    std::vector<std::string> args = {"merge", at("out.db").string()};
    for (const auto& i : inputs) args.push_back(at(i).string());
    auto r = run_cli(args);
    EXPECT_EQ(r.status(), to_int(ExitCode::data_error)) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(read_all(at("out.db")), before_) << "OUT was changed";
    for (const auto& e : fs::directory_iterator(dir_))
      EXPECT_EQ(e.path().filename().string().find(".merge-"), std::string::npos) << e.path();
  }
  void sql(const std::string& db, const std::string& statement) {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(at(db).c_str(), &h), SQLITE_OK);
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(h, statement.c_str(), nullptr, nullptr, &err), SQLITE_OK)
        << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(h);
  }
  std::string before_;
};

TEST_F(MergeRefusalTest, AnotherDefinitionIsRefusedNamingTheFirstDifference) {
  fs::copy_file(at("s2.db"), at("other.db"));
  sql("other.db", "UPDATE experiments SET spec=json_set(spec, '$.repetitions', 5)");
  expect_refused({"other.db"}, "repetitions: 1 -> 5");
}

TEST_F(MergeRefusalTest, ARunIdWithOtherContentIsRefused) {
  fs::copy_file(at("s1.db"), at("tampered.db"));
  sql("tampered.db", "UPDATE runs SET value = value * 2 WHERE id = (SELECT MIN(id) FROM runs)");
  expect_refused({"tampered.db"}, "is already merged with different content (column 'value')");
}

TEST_F(MergeRefusalTest, TheSameFileTwiceAndOutAsInputAreRefused) {
  expect_refused({"s2.db", "s2.db"}, "is given twice");
  expect_refused({"out.db"}, "is the output store");
}

// OUT a symbolic link (to a store or to any file): refused, the link and its target untouched
// (merge replaced the link by a regular file; redteam 2026-12-02, M26 and M13).
TEST_F(MergeRefusalTest, AnOutThatIsASymlinkIsRefusedAndLeftAlone) {
  fs::create_symlink(at("out.db"), at("out-link.db"));
  auto r = run_cli({"merge", at("out-link.db").string(), at("s2.db").string()});
  EXPECT_EQ(r.status(), to_int(ExitCode::data_error)) << r.err;
  EXPECT_NE(r.err.find("is a symbolic link"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_symlink(at("out-link.db")));
  EXPECT_EQ(read_all(at("out.db")), before_) << "the link's target was changed";
}

// A table the schema does not have is refused (by the store's reader first; merge's own rule
// check refuses a table the schema gained without a merge rule, which
// StoreMergeRules.EveryTableOfTheSchemaHasAMergeRule catches before any store has one).
TEST_F(MergeRefusalTest, ATableWithoutAMergeRuleIsRefusedNotDropped) {
  fs::copy_file(at("s2.db"), at("extra.db"));
  sql("extra.db", "CREATE TABLE conditions(run_id INTEGER, value TEXT)");
  expect_refused({"extra.db"}, "table 'conditions'");
}

TEST_F(MergeRefusalTest, AColumnTheMergedSchemaLacksIsRefused) {
  fs::copy_file(at("s2.db"), at("column.db"));
  sql("column.db", "ALTER TABLE runs ADD COLUMN governor TEXT");
  expect_refused({"column.db"}, "column runs.governor is not in the merged store's schema");
}

// The guard against a table left out: every table a new store has is one merge copies. A new
// table (a schema change) fails this until store_merge.cpp has a rule for it.
TEST(StoreMergeRules, EveryTableOfTheSchemaHasAMergeRule) {
  testing::TempDir dir{"topolab-merge-rules"};
  { ASSERT_TRUE(store::ResultStore::open(dir.path() / "new.db").ok()); }
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open((dir.path() / "new.db").c_str(), &h), SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  sqlite3_prepare_v2(
      h, "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'", -1, &q,
      nullptr);
  std::set<std::string> tables;
  while (sqlite3_step(q) == SQLITE_ROW)
    tables.insert(reinterpret_cast<const char*>(sqlite3_column_text(q, 0)));
  sqlite3_finalize(q);
  sqlite3_close(h);
  const auto rules = store::merged_tables();
  EXPECT_EQ(tables, std::set<std::string>(rules.begin(), rules.end()));
}

TEST_F(ScaleOutTest, SlurmWritesAnArrayAndAMergeJob) {
  const fs::path script = at("submit.sh");
  auto r = run_cli({"slurm", kHost12, "--shards", "3", "--store-dir", at("stores").string(),
                    "--partition", "batch", "--time", "00:30:00", "-o", script.string(), "--json"});
  ASSERT_EQ(r.status(), 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["shards"], 3);
  const std::string s = read_all(script);
  EXPECT_NE(s.find("--array=1-3 --exclusive --nodes=1"), std::string::npos) << s;
  EXPECT_NE(s.find("--partition='batch' --time='00:30:00'"), std::string::npos) << s;
  EXPECT_NE(s.find("--dependency=afterany:\"${array_id}\""), std::string::npos) << s;
  EXPECT_NE(s.find("--shard \"${SLURM_ARRAY_TASK_ID}/3\""), std::string::npos) << s;
  EXPECT_NE(s.find("'" + std::string(TOPOLAB_CLI) + "' merge"), std::string::npos) << s;
  EXPECT_TRUE(fs::is_directory(at("stores")));
  auto bash = testing::run_process({"/bin/bash", "-n", script.string()});  // it parses
  EXPECT_EQ(bash.status(), 0) << bash.err;
}

// `-o` naming the experiment file (or a hard link to it) is refused before anything is made:
// the script used to replace the experiment, exit 0 (redteam 2026-12-02, L15).
TEST_F(ScaleOutTest, SlurmRefusesToWriteItsScriptOverTheExperiment) {
  const fs::path copy = at("exp.toml");
  fs::copy_file(kHost12, copy);
  const fs::path link = at("exp-link.toml");
  fs::create_hard_link(copy, link);
  const std::string before = read_all(copy);
  for (const fs::path& out : {copy, link}) {
    auto r = run_cli({"slurm", copy.string(), "--shards", "2", "--store-dir",
                      at("stores-refused").string(), "-o", out.string()});
    EXPECT_EQ(r.status(), to_int(ExitCode::data_error)) << r.err;
    EXPECT_NE(r.err.find("an output never replaces an input"), std::string::npos) << r.err;
  }
  EXPECT_EQ(read_all(copy), before) << "the experiment file was overwritten";
  EXPECT_FALSE(fs::exists(at("stores-refused"))) << "a store folder was made for a refused run";
}

}  // namespace
}  // namespace topolab
