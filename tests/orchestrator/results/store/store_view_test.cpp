// tests/support/store_view.hpp: the one reader integration tests poll a store with while
// `topolab run` writes it (fault injection, own disk, experiment runs).
#include "tests/support/store_view.hpp"

#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace topolab::testing {
namespace {

store::CellRecord cell(const std::string& expose, int pos) {
  nlohmann::json f = {{"expose", expose}};
  return {f.dump(), f.dump(), f, "expose=" + expose, pos, nullptr, "qemu:///system"};
}

store::RunRecord run(std::int64_t cell_id, std::int64_t boot_id, int rep) {
  store::RunRecord r;
  r.cell_id = cell_id;
  r.boot_id = boot_id;
  r.benchmark = "sqrt";
  r.repetition = rep;
  r.params = nlohmann::json::object();
  r.result = {{"benchmark", "sqrt"}, {"metric", "time"},
              {"unit", "s"},         {"lower_is_better", true},
              {"samples", {1.0}},    {"summary", {{"n", 1}, {"median", 1.0}}}};
  return r;
}

TEST(StoreView, AStoreThatIsNotThereYetReadsEmpty) {
  TempDir dir("topolab-store-view");
  const auto v = read_store(dir.path() / "missing.db");
  EXPECT_TRUE(v.cells.empty());
  EXPECT_EQ(v.total_runs, 0);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "missing.db")) << "a read creates nothing";

  ASSERT_TRUE(store::ResultStore::open(dir.path() / "new.db").ok());  // schema, no experiment
  EXPECT_TRUE(read_store(dir.path() / "new.db").cells.empty());
}

TEST(StoreView, CellsByLabelWithTheirRunsFailuresAndBoots) {
  TempDir dir("topolab-store-view");
  const auto db = dir.path() / "s.db";
  {
    auto s = store::ResultStore::open(db);
    ASSERT_TRUE(s.ok()) << s.error().message;
    auto exp = (*s)->begin_experiment("e", nlohmann::json::object(), nullptr, nullptr);
    ASSERT_TRUE(exp.ok()) << exp.error().message;
    auto flat = (*s)->upsert_cell(*exp, cell("flat", 0));
    auto sockets = (*s)->upsert_cell(*exp, cell("sockets", 1));
    ASSERT_TRUE(flat.ok() && sockets.ok());
    store::BootRecord b;
    b.experiment_id = *exp;
    b.config_key = "{}";
    auto boot = (*s)->add_boot(b);
    ASSERT_TRUE(boot.ok()) << boot.error().message;
    for (int rep : {1, 2}) ASSERT_TRUE((*s)->add_run(run(*flat, *boot, rep)).ok());
    ASSERT_TRUE((*s)->add_run(run(*sockets, *boot, 1)).ok());
    ASSERT_TRUE((*s)->add_failure(*sockets, *boot, 0, 2, "sqrt #2: agent closed").ok());
    ASSERT_TRUE((*s)->set_cell_status(*flat, "done", "", nlohmann::json::array(), *boot).ok());
    ASSERT_TRUE((*s)->set_cell_status(*sockets, "failed", "closed", nullptr, *boot).ok());
  }
  const auto v = read_store(db);
  ASSERT_EQ(v.cells.size(), 2u);
  EXPECT_EQ(v.cells.at("expose=flat").status, "done");
  EXPECT_EQ(v.cells.at("expose=sockets").error, "closed");
  EXPECT_EQ(v.runs.at("expose=flat"), 2);
  EXPECT_EQ(v.runs.at("expose=sockets"), 1);
  EXPECT_EQ(v.total_runs, 3);
  EXPECT_TRUE(v.failures.at("expose=flat").empty());
  ASSERT_EQ(v.failures.at("expose=sockets").size(), 1u);
  EXPECT_NE(v.failures.at("expose=sockets")[0].find("agent closed"), std::string::npos);
  EXPECT_EQ(v.boots.size(), 1u);
  EXPECT_EQ(v.cells_with_status("done"), 1);
  EXPECT_EQ(v.cells_with_status("failed"), 1);
  EXPECT_EQ(v.cells_with_status("running"), 0);
  EXPECT_EQ(v.failure_count(), 1);
}

}  // namespace
}  // namespace topolab::testing
