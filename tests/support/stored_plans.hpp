#pragma once
// The plans `topolab run` stores with each boot since store schema 5 (boots.plan, issue 28),
// for fixture stores dumped before it: each boot's plan made by the planning stage from its
// cell's stored layout (layout_to_json: set_layout_field keys) on the store's host, as the
// runner makes it. The report draws placement from these and never plans again.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "host/topology_json.hpp"
#include "orchestrator/model/layout/layout.hpp"
#include "orchestrator/planning/plan/guest_plan.hpp"
#include "orchestrator/results/store/result_store.hpp"

namespace topolab::testing {

// A stored layout value as set_layout_field takes it: lists comma-joined, booleans as words.
inline std::string layout_value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_array()) return v.dump();
  std::string out;
  for (const auto& e : v) out += (out.empty() ? "" : ",") + layout_value_text(e);
  return out;
}

// SQL that adds boots.plan and fills it; sets *why and returns "" when a plan cannot be made.
inline std::string stored_plans_sql(const std::filesystem::path& db, std::string* why) {
  auto fail = [&](const std::string& w) {
    *why = w;
    return std::string();
  };
  auto store = store::ResultStore::open_read_only(db);
  if (!store) return fail(store.error().message);
  auto exps = (*store)->experiments();
  if (!exps || exps->empty()) return fail("no experiment in " + db.string());
  auto host = topology_from_json((*exps)[0].host_topology);
  auto cells = (*store)->cells((*exps)[0].id);
  if (!host || !cells) return fail("no host topology or cells in " + db.string());
  std::string sql = "ALTER TABLE boots ADD COLUMN plan TEXT;\n";
  std::set<std::int64_t> done;
  const nlohmann::json defaults = layout_to_json(Layout{});
  for (const auto& c : *cells) {
    if (!c.boot_id || !c.cell.layout.is_object() || !done.insert(c.boot_id).second) continue;
    Layout l;
    for (const auto& [key, value] : c.cell.layout.items()) {
      // Only what differs from a default layout: the stored form of an unset field (0 for no
      // hugepages, [] for no list) is no value set_layout_field takes.
      if (value.is_null() || (defaults.contains(key) && defaults[key] == value)) continue;
      auto set = set_layout_field(l, key, layout_value_text(value));
      if (!set) return fail(key + ": " + set.error().message);
    }
    auto plan = plan::plan_guest(l, {*host, std::nullopt, std::nullopt});
    if (!plan) return fail(plan.error().message);
    std::string text;
    for (char ch : plan::guest_plan_to_json(*plan).dump())
      text += ch == '\'' ? "''" : std::string(1, ch);
    sql += "UPDATE boots SET plan = '" + text + "' WHERE id = " + std::to_string(c.boot_id) + ";\n";
  }
  return sql;
}

}  // namespace topolab::testing
