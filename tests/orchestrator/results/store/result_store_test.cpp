#include "orchestrator/results/store/result_store.hpp"

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace topolab::store {
namespace {

namespace fs = std::filesystem;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/topolab-store-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    path_ = dir_ / "results.db";
  }
  void TearDown() override {
    umount2((dir_ / "small").c_str(), MNT_DETACH);
    fs::remove_all(dir_);
  }

  std::unique_ptr<ResultStore> open() {
    auto s = ResultStore::open(path_);
    if (!s) ADD_FAILURE() << s.error().message;
    return s ? std::move(*s) : nullptr;
  }

  static CellRecord cell(const std::string& expose, int pos) {
    nlohmann::json f = {{"expose", expose}};
    return {f.dump(), f.dump(), f, "expose=" + expose, pos, nullptr, "qemu:///system"};
  }

  static RunRecord run(std::int64_t cell_id, int bench, int rep, double median) {
    RunRecord r;
    r.cell_id = cell_id;
    r.boot_id = 1;
    r.benchmark_index = bench;
    r.benchmark = "sqrt";
    r.repetition = rep;
    r.params = {{"n", 1000}};
    r.result = {{"benchmark", "sqrt"},
                {"metric", "time"},
                {"unit", "s"},
                {"lower_is_better", true},
                {"samples", {median, median}},
                {"summary", {{"n", 2}, {"median", median}}}};
    r.duration_ms = 12.5;
    return r;
  }

  fs::path dir_, path_;
};

TEST_F(StoreTest, RoundTripsExperimentCellsBootsAndRuns) {
  auto s = open();
  ASSERT_TRUE(s);
  auto exp = s->begin_experiment("e1", {{"baseline", {{"expose", "flat"}}}}, {{"cpus", 2}},
                                 {{"topolab", "0.1.0"}});
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  auto c1 = s->upsert_cell(*exp, cell("flat", 0));
  auto c2 = s->upsert_cell(*exp, cell("sockets", 1));
  ASSERT_TRUE(c1.ok() && c2.ok());
  BootRecord b;
  b.experiment_id = *exp;
  b.config_key = "{}";
  b.order_seed = 0xfedcba9876543210ULL;  // above INT64_MAX: stored as text
  b.seen = {{"cpus", nlohmann::json::array()}};
  b.mismatches = nlohmann::json::array();
  b.timings = {{"hello_ms", 900}};
  auto boot = s->add_boot(b);
  ASSERT_TRUE(boot.ok()) << boot.error().message;
  ASSERT_TRUE(s->add_run(run(*c1, 0, 1, 1.5)).ok());
  ASSERT_TRUE(s->add_run(run(*c1, 0, 2, 1.7)).ok());
  ASSERT_TRUE(s->set_cell_status(*c1, "done", "", nlohmann::json::array(), *boot).ok());
  ASSERT_TRUE(s->add_failure(*c2, *boot, 0, 1, "agent timed out").ok());
  ASSERT_TRUE(s->set_cell_status(*c2, "failed", "agent timed out", nullptr, *boot).ok());
  s.reset();

  auto r = ResultStore::open_read_only(path_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto exps = (*r)->experiments();
  ASSERT_TRUE(exps.ok());
  ASSERT_EQ(exps->size(), 1u);
  EXPECT_EQ((*exps)[0].name, "e1");
  EXPECT_EQ((*exps)[0].spec["baseline"]["expose"], "flat");
  EXPECT_EQ((*exps)[0].versions["topolab"], "0.1.0");
  auto cells = (*r)->cells((*exps)[0].id);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 2u);
  EXPECT_EQ((*cells)[0].status, "done");
  EXPECT_TRUE((*cells)[0].mismatches.is_array());
  EXPECT_EQ((*cells)[1].status, "failed");
  EXPECT_EQ((*cells)[1].error, "agent timed out");
  auto runs = (*r)->runs((*cells)[0].id);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_DOUBLE_EQ((*runs)[1].value, 1.7);
  EXPECT_EQ((*runs)[1].result["samples"].size(), 2u);
  EXPECT_EQ((*runs)[0].params["n"], 1000);
  auto boots = (*r)->boots((*exps)[0].id);
  ASSERT_TRUE(boots.ok());
  ASSERT_EQ(boots->size(), 1u);
  EXPECT_EQ((*boots)[0].boot.order_seed, 0xfedcba9876543210ULL);
  EXPECT_EQ((*boots)[0].boot.timings["hello_ms"], 900);
  auto fails = (*r)->failures((*cells)[1].id);
  ASSERT_TRUE(fails.ok());
  EXPECT_EQ(*fails, std::vector<std::string>{"agent timed out"});
}

// Stored JSON carries text from the host, files and guests: a byte that is not UTF-8 is stored
// as U+FFFD, never an exception after the cell ran (nlohmann's strict dump threw: exit 70).
TEST_F(StoreTest, TextThatIsNotUtf8IsStoredReplacedNotThrown) {
  auto s = open();
  ASSERT_TRUE(s);
  const std::string bad = "kernel \xff\xfe 6.1";
  auto exp = s->begin_experiment("e1", {{"note", bad}}, {{"model", bad}}, {{"kernel", bad}});
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  BootRecord b;
  b.experiment_id = *exp;
  b.config_key = "{}";
  b.timings = {{"reason", bad}};
  b.versions = {{"kernel", bad}};
  auto boot = s->add_boot(b);
  ASSERT_TRUE(boot.ok()) << boot.error().message;
  s.reset();
  auto r = ResultStore::open_read_only(path_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto exps = (*r)->experiments();
  ASSERT_TRUE(exps.ok() && exps->size() == 1u);
  EXPECT_EQ((*exps)[0].versions["kernel"], "kernel \uFFFD\uFFFD 6.1");
  auto boots = (*r)->boots((*exps)[0].id);
  ASSERT_TRUE(boots.ok() && boots->size() == 1u);
  EXPECT_EQ((*boots)[0].boot.timings["reason"], "kernel \uFFFD\uFFFD 6.1");
}

TEST_F(StoreTest, ResumeBookkeepingKeepsCompletedRunsPerCell) {
  std::int64_t c1 = 0;
  {
    auto s = open();
    auto exp = s->begin_experiment("e", {}, {}, {});
    c1 = *s->upsert_cell(*exp, cell("flat", 0));
    ASSERT_TRUE(s->add_run(run(c1, 0, 1, 1.0)).ok());
    ASSERT_TRUE(s->add_run(run(c1, 1, 3, 1.0)).ok());
  }
  auto s = open();  // "rerun": same experiment, same cells
  auto exp = s->begin_experiment("e", {{"repetitions", 3}}, {}, {});
  ASSERT_TRUE(exp.ok());
  auto again = s->upsert_cell(*exp, cell("flat", 0));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, c1) << "the same cell must keep its id so its runs count";
  auto done = s->completed_runs(*again);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(*done, (std::set<std::pair<int, int>>{{0, 1}, {1, 3}}));
  auto other = s->upsert_cell(*exp, cell("dies", 1));
  EXPECT_TRUE(s->completed_runs(*other)->empty());
  EXPECT_EQ(s->experiments()->size(), 1u);
}

TEST_F(StoreTest, UsesWriteAheadLogging) {
  auto s = open();
  ASSERT_TRUE(s->begin_experiment("e", {}, {}, {}).ok());
  EXPECT_TRUE(fs::exists(dir_ / "results.db-wal"));
}

TEST_F(StoreTest, ReadOnlyStoreIsAClearErrorAndStaysIntact) {
  {
    auto s = open();
    auto exp = s->begin_experiment("e", {}, {}, {});
    ASSERT_TRUE(s->add_run(run(*s->upsert_cell(*exp, cell("flat", 0)), 0, 1, 2.0)).ok());
  }
  auto size_before = fs::file_size(path_);
  // Root ignores permission bits: make the file immutable instead.
  std::string cmd = "chattr +i " + path_.string() + " 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) GTEST_SKIP() << "chattr +i not supported here";
  auto s = ResultStore::open(path_);
  std::system(("chattr -i " + path_.string()).c_str());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(path_.string()), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("read-only"), std::string::npos) << s.error().message;
  EXPECT_EQ(fs::file_size(path_), size_before);
  auto r = ResultStore::open_read_only(path_);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->experiments()->size(), 1u);
}

TEST_F(StoreTest, MissingFolderIsAClearError) {
  auto s = ResultStore::open(dir_ / "no" / "such" / "dir" / "r.db");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("r.db"), std::string::npos);
}

TEST_F(StoreTest, FullDiskFailsCleanlyAndKeepsCommittedResults) {
  fs::path mnt = dir_ / "small";
  fs::create_directory(mnt);
  if (mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=256k") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here";
  fs::path db = mnt / "r.db";
  std::string error;
  int committed = 0;
  {
    auto s = ResultStore::open(db);
    ASSERT_TRUE(s.ok()) << s.error().message;
    auto exp = (*s)->begin_experiment("e", {}, {}, {});
    auto c = (*s)->upsert_cell(*exp, cell("flat", 0));
    for (int rep = 1; rep < 10000 && error.empty(); ++rep) {
      auto r = run(*c, 0, rep, 1.0);
      r.result["samples"] = std::vector<double>(2000, 1.0);  // ~8 KiB of text each
      auto ok = (*s)->add_run(r);
      if (ok)
        ++committed;
      else
        error = ok.error().message;
    }
  }
  EXPECT_GT(committed, 0);
  EXPECT_NE(error.find("disk is full"), std::string::npos) << error;
  EXPECT_NE(error.find(db.string()), std::string::npos) << error;
  // Reopen: everything committed before the failure is there and consistent.
  auto r = ResultStore::open_read_only(db);
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto exps = (*r)->experiments();
  ASSERT_TRUE(exps.ok()) << exps.error().message;
  auto cells = (*r)->cells((*exps)[0].id);
  auto runs = (*r)->runs((*cells)[0].id);
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(static_cast<int>(runs->size()), committed);
}

}  // namespace
}  // namespace topolab::store
