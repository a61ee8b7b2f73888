// `topolab merge` carries each boot's stored plan (boots.plan, schema 5, issue 28): the report
// of a merged store draws the placements its inputs' guests ran with.
#include <gtest/gtest.h>

#include "orchestrator/results/store/result_store.hpp"
#include "orchestrator/results/store/store_merge.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab::store {
namespace {

// One experiment "e" with one booted cell, its boot storing `plan`.
void write_shard(const std::filesystem::path& path, const std::string& cell_key,
                 const nlohmann::json& plan) {
  auto s = ResultStore::open(path);
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto exp =
      (*s)->begin_experiment("e", {{"benchmarks", nlohmann::json::array()}}, nullptr, nullptr);
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  CellRecord c{cell_key, cell_key, nlohmann::json::object(), cell_key, 0, nullptr, "local"};
  auto cell = (*s)->upsert_cell(*exp, c);
  ASSERT_TRUE(cell.ok()) << cell.error().message;
  BootRecord b;
  b.experiment_id = *exp;
  b.config_key = cell_key;
  b.host = "local";
  b.plan = plan;
  auto boot = (*s)->add_boot(b);
  ASSERT_TRUE(boot.ok()) << boot.error().message;
  ASSERT_TRUE((*s)->set_cell_status(*cell, "done", "", nlohmann::json::array(), *boot).ok());
}

TEST(MergePlan, EachBootKeepsItsStoredPlan) {
  testing::TempDir tmp{"topolab-merge-plan"};
  const nlohmann::json a = {{"vcpus", {{{"vcpu", 0}, {"host_cpus", "2"}}}}, {"pinned", true}};
  const nlohmann::json b = {{"vcpus", {{{"vcpu", 0}, {"host_cpus", "0-3"}}}}, {"pinned", false}};
  write_shard(tmp.path() / "a.db", "{\"x\":1}", a);
  write_shard(tmp.path() / "b.db", "{\"x\":2}", b);
  auto merged = merge_stores(tmp.path() / "out.db", {tmp.path() / "a.db", tmp.path() / "b.db"});
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  auto out = ResultStore::open_read_only(tmp.path() / "out.db");
  ASSERT_TRUE(out.ok()) << out.error().message;
  auto exps = (*out)->experiments();
  ASSERT_TRUE(exps.ok() && exps->size() == 1u);
  auto cells = (*out)->cells((*exps)[0].id);
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  ASSERT_EQ(cells->size(), 2u);
  for (const auto& c : *cells) {
    auto boot = (*out)->boot(c.boot_id);
    ASSERT_TRUE(boot.ok()) << boot.error().message;
    EXPECT_EQ(boot->boot.plan, c.cell.key == "{\"x\":1}" ? a : b) << c.cell.key;
  }
}

}  // namespace
}  // namespace topolab::store
