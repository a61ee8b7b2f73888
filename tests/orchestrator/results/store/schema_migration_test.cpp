// Stores written by schema 1 (before cells.layout) still open: read-only as they are, for writing
// migrated to schema 2 with every old cell's layout "not recorded". A newer schema is refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "orchestrator/results/store/result_store.hpp"

namespace topolab::store {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// The schema of the store as main wrote it before issue 12 (schema_version 1), kept as it was
// written then (not from ResultStore::schema_sql: it is what that must match), with one cell and
// one run.
constexpr const char* kSchema1 = R"SQL(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta(key, value) VALUES('schema_version', '1');
CREATE TABLE experiments(
  id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, spec TEXT NOT NULL,
  host_topology TEXT, versions TEXT, created TEXT NOT NULL, updated TEXT NOT NULL);
CREATE TABLE cells(
  id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  cell_key TEXT NOT NULL, config_key TEXT NOT NULL, factors TEXT NOT NULL, label TEXT NOT NULL,
  position INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'pending', error TEXT,
  mismatches TEXT, boot_id INTEGER, UNIQUE(experiment_id, cell_key));
CREATE TABLE boots(
  id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  config_key TEXT NOT NULL, order_seed TEXT NOT NULL, intended_topology TEXT,
  seen_topology TEXT, mismatches TEXT, timings TEXT, versions TEXT, started TEXT NOT NULL);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY, cell_id INTEGER NOT NULL REFERENCES cells(id), boot_id INTEGER,
  benchmark_index INTEGER NOT NULL, benchmark TEXT NOT NULL, repetition INTEGER NOT NULL,
  params TEXT NOT NULL, samples TEXT, summary TEXT, result TEXT NOT NULL, value REAL,
  unit TEXT, duration_ms REAL, started TEXT NOT NULL,
  UNIQUE(cell_id, benchmark_index, repetition));
CREATE TABLE failures(
  id INTEGER PRIMARY KEY, cell_id INTEGER NOT NULL REFERENCES cells(id), boot_id INTEGER,
  benchmark_index INTEGER, repetition INTEGER, error TEXT NOT NULL, at TEXT NOT NULL);
INSERT INTO experiments VALUES(1, 'old', '{}', NULL, NULL, 't', 't');
INSERT INTO cells(id, experiment_id, cell_key, config_key, factors, label, position, status)
  VALUES(1, 1, '{"expose":"flat"}', '{"expose":"flat"}', '{"expose":"flat"}', 'expose=flat', 0,
         'done');
INSERT INTO runs(cell_id, boot_id, benchmark_index, benchmark, repetition, params, result, value,
                 started) VALUES(1, 1, 0, 'sqrt', 1, '{"n":1000}', '{"benchmark":"sqrt"}', 1.5, 't');
)SQL";

class SchemaMigrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/topolab-schema-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    path_ = dir_ / "old.db";
  }
  void TearDown() override { fs::remove_all(dir_); }

  void sql(const std::string& text) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    int rc = sqlite3_exec(db, text.c_str(), nullptr, nullptr, &err);
    std::string msg = err ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << msg;
  }

  std::string query(const std::string& text) {
    sqlite3* db = nullptr;
    sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* st = nullptr;
    std::string out = "(none)";
    if (sqlite3_prepare_v2(db, text.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      auto p = sqlite3_column_text(st, 0);
      out = p ? reinterpret_cast<const char*>(p) : "NULL";
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
  }

  // Every table's columns, unique keys and references, in order: what a schema means to SQLite,
  // without the CREATE text's spacing or the names of its automatic indexes.
  static std::string describe(const fs::path& path) {
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    std::string out;
    for (const char* q :
         {"SELECT m.name, p.cid, p.name, p.type, p.\"notnull\", p.dflt_value, p.pk FROM "
          "sqlite_master m, pragma_table_info(m.name) p WHERE m.type='table' ORDER BY 1, 2",
          "SELECT m.name, i.\"unique\", i.origin, (SELECT group_concat(name) FROM (SELECT name "
          "FROM pragma_index_info(i.name) ORDER BY seqno)) FROM sqlite_master m, "
          "pragma_index_list(m.name) i WHERE m.type='table' ORDER BY 1, 4",
          "SELECT m.name, f.\"from\", f.\"table\", f.\"to\" FROM sqlite_master m, "
          "pragma_foreign_key_list(m.name) f WHERE m.type='table' ORDER BY 1, 2"}) {
      sqlite3_stmt* st = nullptr;
      if (sqlite3_prepare_v2(db, q, -1, &st, nullptr) != SQLITE_OK) out += "(cannot query)\n";
      while (st && sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(st); ++c) {
          auto p = sqlite3_column_text(st, c);
          out += (p ? reinterpret_cast<const char*>(p) : "NULL") + std::string(" ");
        }
        out += "\n";
      }
      sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return out;
  }

  fs::path dir_, path_;
};

// Fixtures of older stores hold only rows and take their tables from ResultStore::schema_sql
// (tests/support/store_fixture.hpp): its schema 1 must be the one main wrote.
TEST_F(SchemaMigrationTest, TheStoresSchemaOneIsTheOneMainWrote) {
  sql(kSchema1);
  const fs::path built = dir_ / "built.db";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(built.c_str(), &db), SQLITE_OK);
  const int rc = sqlite3_exec(db, ResultStore::schema_sql(1).c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK);
  const std::string want = describe(path_);
  EXPECT_THAT(want, HasSubstr("cells 10 boot_id INTEGER 0 NULL 0"));
  EXPECT_EQ(describe(built), want);
  EXPECT_EQ(query("SELECT value FROM meta WHERE key='schema_version'"), "1");
}

// A migrated store and a new one have the same tables: the migration steps and the schema
// description cannot drift apart unnoticed.
TEST_F(SchemaMigrationTest, AMigratedStoreHasTheNewestSchema) {
  sql(kSchema1);
  ASSERT_TRUE(ResultStore::open(path_).ok());
  const fs::path fresh = dir_ / "fresh.db";
  ASSERT_TRUE(ResultStore::open(fresh).ok());
  const std::string want = describe(fresh);
  EXPECT_THAT(want, HasSubstr("cells 1 u experiment_id,host,cell_key"));
  EXPECT_EQ(describe(path_), want);
}

TEST_F(SchemaMigrationTest, ASchemaOneStoreIsReadAsItIs) {
  sql(kSchema1);
  auto s = ResultStore::open_read_only(path_);
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto exps = (*s)->experiments();
  ASSERT_TRUE(exps.ok());
  ASSERT_EQ(exps->size(), 1u);
  auto cells = (*s)->cells(1);
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  ASSERT_EQ(cells->size(), 1u);
  EXPECT_EQ((*s)->runs(1)->size(), 1u);
  EXPECT_EQ(query("SELECT value FROM meta WHERE key='schema_version'"), "1") << "read-only";
}

TEST_F(SchemaMigrationTest, OpeningForWritingMigratesAndMarksLayoutsNotRecorded) {
  sql(kSchema1);
  auto s = ResultStore::open(path_);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(query("SELECT value FROM meta WHERE key='schema_version'"), "5");
  auto ids = (*s)->run_identities("old");
  ASSERT_TRUE(ids.ok()) << ids.error().message;
  ASSERT_EQ(ids->size(), 1u);
  EXPECT_FALSE((*ids)[0].layout.has_value()) << "schema-1 cells did not record their layout";
  EXPECT_EQ((*ids)[0].benchmark, "sqrt");
  EXPECT_EQ((*ids)[0].params, nlohmann::json({{"n", 1000}}));
  // New cells record theirs; "null" (no guest) is not "not recorded".
  CellRecord c{"{}", "{}", nlohmann::json::object(), "(default)", 1, nullptr, "local"};
  auto id = (*s)->upsert_cell(1, c);
  ASSERT_TRUE(id.ok()) << id.error().message;
  RunRecord r;
  r.cell_id = *id;
  r.benchmark = "sqrt";
  r.repetition = 1;
  r.params = {{"n", 1}};
  // The store keeps only validated results (issue 12, class 1): a complete one.
  r.result = {{"benchmark", "sqrt"},     {"metric", "time"}, {"unit", "s"},
              {"lower_is_better", true}, {"samples", {1.0}}, {"summary", {{"n", 1}}}};
  auto added = (*s)->add_run(r);
  ASSERT_TRUE(added.ok()) << added.error().message;
  ids = (*s)->run_identities("old");
  ASSERT_EQ(ids->size(), 2u);
  ASSERT_TRUE((*ids)[1].layout.has_value());
  EXPECT_TRUE((*ids)[1].layout->is_null());
  // Opening again is a no-op.
  s->reset();
  ASSERT_TRUE(ResultStore::open(path_).ok());
  EXPECT_EQ(query("SELECT count(*) FROM pragma_table_info('cells') WHERE name='layout'"), "1");
}

// Schema 3 (issue 18): experiments.context and boots.context. An older store read as it is has
// no context ("not recorded"); migrated, it records new context and keeps the old rows null.
TEST_F(SchemaMigrationTest, OldStoresReadWithoutContextAndMigrateToRecordIt) {
  sql(kSchema1);
  sql("INSERT INTO boots VALUES(1, 1, '{}', '7', NULL, NULL, '[]', '{}', '{}', 't')");
  {
    auto ro = ResultStore::open_read_only(path_);
    ASSERT_TRUE(ro.ok()) << ro.error().message;
    auto exps = (*ro)->experiments();
    ASSERT_TRUE(exps.ok()) << exps.error().message;
    EXPECT_TRUE((*exps)[0].context.is_null());
    auto boots = (*ro)->boots(1);
    ASSERT_TRUE(boots.ok()) << boots.error().message;
    ASSERT_EQ(boots->size(), 1u);
    EXPECT_TRUE((*boots)[0].boot.context.is_null());
  }
  auto s = ResultStore::open(path_);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(query("SELECT count(*) FROM pragma_table_info('boots') WHERE name='context'"), "1");
  const nlohmann::json exp_ctx = {{"connect_uri", "qemu:///system"}, {"accel_requested", "auto"}};
  auto id = (*s)->begin_experiment("new", nlohmann::json::object(), nullptr, nullptr, exp_ctx);
  ASSERT_TRUE(id.ok()) << id.error().message;
  BootRecord b;
  b.experiment_id = *id;
  b.context = {{"accelerator", "tcg"}};
  ASSERT_TRUE((*s)->add_boot(b).ok());
  auto exps = (*s)->experiments();
  ASSERT_TRUE(exps.ok());
  ASSERT_EQ(exps->size(), 2u);
  EXPECT_TRUE((*exps)[0].context.is_null()) << "the old experiment recorded none";
  EXPECT_EQ((*exps)[1].context, exp_ctx);
  auto boots = (*s)->boots(*id);
  ASSERT_TRUE(boots.ok());
  ASSERT_EQ(boots->size(), 1u);
  EXPECT_EQ((*boots)[0].boot.context, b.context);
  EXPECT_TRUE((*s)->boot(1)->boot.context.is_null());
}

// Schema 5 (issue 28): a boot stores the placement it was booted with. A schema-4 store reads
// its boots' plan as not recorded (NULL), gains the column when opened for writing, and a new
// boot's plan reads back as written.
TEST_F(SchemaMigrationTest, SchemaFourBootsGainTheirPlanColumn) {
  sql(ResultStore::schema_sql(4));
  sql("INSERT INTO experiments VALUES(1, 'old', '{}', NULL, NULL, 't', 't', NULL);"
      "INSERT INTO boots VALUES(1, 1, '{}', '7', NULL, NULL, '[]', '{}', '{}', 't', NULL, "
      "'qemu:///system', NULL)");
  {
    auto ro = ResultStore::open_read_only(path_);
    ASSERT_TRUE(ro.ok()) << ro.error().message;
    auto old = (*ro)->boot(1);
    ASSERT_TRUE(old.ok()) << old.error().message;
    EXPECT_TRUE(old->boot.plan.is_null()) << "read as it is: not recorded";
  }
  EXPECT_EQ(query("SELECT count(*) FROM pragma_table_info('boots') WHERE name='plan'"), "0");
  auto s = ResultStore::open(path_);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(query("SELECT count(*) FROM pragma_table_info('boots') WHERE name='plan'"), "1");
  EXPECT_TRUE((*s)->boot(1)->boot.plan.is_null());
  BootRecord b;
  b.experiment_id = 1;
  b.plan = {{"vcpus", {{{"vcpu", 0}, {"host_cpus", "3"}}}}, {"pinned", true}};
  auto id = (*s)->add_boot(b);
  ASSERT_TRUE(id.ok()) << id.error().message;
  EXPECT_EQ((*s)->boot(*id)->boot.plan, b.plan);
}

// Redteam wave 3: a crafted store's 40 KB host was repeated on every report line (321 KB of
// text for two cells); read back it is bounded like a URI topolab writes (<= 256 bytes), with
// head and tail kept so two hosts stay two.
TEST_F(SchemaMigrationTest, AHugeStoredHostIsReadBounded) {
  sql(kSchema1);
  sql("ALTER TABLE cells ADD COLUMN layout TEXT; ALTER TABLE experiments ADD COLUMN context TEXT;"
      "ALTER TABLE boots ADD COLUMN context TEXT;"
      "UPDATE meta SET value='3' WHERE key='schema_version';");
  auto s = ResultStore::open(path_);
  ASSERT_TRUE(s.ok()) << s.error().message;
  sql("UPDATE cells SET host = 'qemu+tcp://' || hex(zeroblob(20000)) || 'A/system'");
  auto cells = (*s)->cells(1);
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  ASSERT_EQ(cells->size(), 1u);
  const std::string& host = (*cells)[0].cell.host;
  EXPECT_LE(host.size(), 300u);
  EXPECT_THAT(host, HasSubstr("bytes cut"));
  EXPECT_THAT(host, ::testing::EndsWith("A/system"));
  // A password a store holds (written before it was refused, or planted) is never read back.
  sql("UPDATE cells SET host = 'qemu+tcp://u:s3cret@h/system'");
  EXPECT_EQ((*s)->cells(1)->at(0).cell.host, "qemu+tcp://u:***@h/system");
}

// Schema 4 (issue 16): a cell is (experiment, host, key). A schema-3 store read as it is has no
// host (""); migrated, every old cell, boot and run gets the host its experiment ran on (the
// recorded connection URI, "local" for backend "host"), ids and runs are kept, and the same
// cell key can then be stored for a second host.
TEST_F(SchemaMigrationTest, SchemaThreeMigratesToOneHostPerCell) {
  sql(kSchema1);
  sql("ALTER TABLE cells ADD COLUMN layout TEXT; ALTER TABLE experiments ADD COLUMN context TEXT;"
      "ALTER TABLE boots ADD COLUMN context TEXT;"
      "UPDATE meta SET value='3' WHERE key='schema_version';"
      "UPDATE experiments SET context='{\"connect_uri\":\"qemu+tcp://127.0.0.1:16509/system\"}';"
      "INSERT INTO experiments VALUES(2, 'bare', '{\"backend\":\"host\"}', NULL, NULL, 't', "
      "'t', 'not json');"
      "INSERT INTO cells(id, experiment_id, cell_key, config_key, factors, label, position) "
      "VALUES(2, 2, '{}', '{}', '{}', '(default)', 0);"
      "INSERT INTO boots VALUES(1, 1, '{}', '7', NULL, NULL, '[]', '{}', '{}', 't', NULL)");
  {
    auto ro = ResultStore::open_read_only(path_);
    ASSERT_TRUE(ro.ok()) << ro.error().message;
    auto cells = (*ro)->cells(1);
    ASSERT_TRUE(cells.ok()) << cells.error().message;
    EXPECT_EQ((*cells)[0].cell.host, "") << "read as it is: not recorded";
    EXPECT_EQ((*ro)->boot(1)->finished, "");
  }
  auto s = ResultStore::open(path_);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(query("SELECT value FROM meta WHERE key='schema_version'"), "5");
  auto cells = (*s)->cells(1);
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  ASSERT_EQ(cells->size(), 1u);
  EXPECT_EQ((*cells)[0].id, 1);
  EXPECT_EQ((*cells)[0].cell.host, "qemu+tcp://127.0.0.1:16509/system");
  EXPECT_EQ((*cells)[0].status, "done");
  EXPECT_EQ((*s)->runs(1)->size(), 1u) << "the runs still point at their cell";
  EXPECT_EQ(query("SELECT host FROM runs WHERE cell_id=1"), "qemu+tcp://127.0.0.1:16509/system");
  EXPECT_EQ((*s)->boot(1)->boot.host, "qemu+tcp://127.0.0.1:16509/system");
  EXPECT_EQ((*s)->cells(2)->at(0).cell.host, "local") << "backend host, unreadable context";
  EXPECT_EQ(query("SELECT count(*) FROM pragma_foreign_key_check"), "0");
  // The same levels on a second host are a second cell.
  CellRecord other{R"({"expose":"flat"})",
                   R"({"expose":"flat"})",
                   {{"expose", "flat"}},
                   "expose=flat",
                   0,
                   nullptr,
                   "qemu:///system"};
  auto id = (*s)->upsert_cell(1, other);
  ASSERT_TRUE(id.ok()) << id.error().message;
  EXPECT_NE(*id, 1);
  EXPECT_EQ((*s)->cells(1)->size(), 2u);
  ASSERT_TRUE((*s)->finish_boot(1).ok());
  EXPECT_NE((*s)->boot(1)->finished, "");
  s->reset();
  ASSERT_TRUE(ResultStore::open(path_).ok()) << "opening again is a no-op";
  EXPECT_EQ(query("SELECT count(*) FROM cells"), "3");
}

TEST_F(SchemaMigrationTest, AnUnknownSchemaIsRefusedAndLeftUntouched) {
  sql(kSchema1);
  sql("UPDATE meta SET value='7' WHERE key='schema_version'");
  auto s = ResultStore::open(path_);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, HasSubstr("old.db: schema version '7' is not one this topolab "
                                           "knows"));
  EXPECT_EQ(query("SELECT value FROM meta WHERE key='schema_version'"), "7");
  EXPECT_EQ(query("SELECT count(*) FROM pragma_table_info('cells') WHERE name='layout'"), "0");
}

}  // namespace
}  // namespace topolab::store
