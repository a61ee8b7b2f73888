#include "orchestrator/run/experiment/resume_check.hpp"

#include <optional>
#include <unordered_map>

namespace topolab::experiment {
namespace {

constexpr const char* kAdvice = ": use a new --store or rename the experiment";

// "guest.memory_mib 1024 -> 2048, expose.as flat -> numa" (at most 4 fields).
std::string layout_difference(const nlohmann::json& was, const nlohmann::json& now) {
  if (!was.is_object() || !now.is_object())
    return std::string(was.is_null() ? "no guest layout" : "a guest layout") + " -> " +
           (now.is_null() ? "no guest layout" : "a guest layout");
  std::string out;
  int n = 0;
  for (const auto& [k, v] : now.items()) {
    const nlohmann::json old = was.contains(k) ? was[k] : nlohmann::json();
    if (old == v) continue;
    if (n++ == 4) return out + ", ...";
    out += (out.empty() ? "" : ", ") + k + " " + old.dump() + " -> " + v.dump();
  }
  return out.empty() ? "fields no longer recorded" : out;
}

// What a stored run asked the guest for ({NAME: requested}), from its environment.conditions;
// nullopt when that record is unreadable. Runs from before issue 25 have none: {}.
std::optional<std::map<std::string, nlohmann::json>> stored_requests(const nlohmann::json& c) {
  std::map<std::string, nlohmann::json> out;
  if (c.is_null()) return out;
  if (!c.is_object()) return std::nullopt;
  for (const auto& [name, entry] : c.items()) {
    if (!entry.is_object() || !entry.contains("requested")) return std::nullopt;
    out[name] = entry["requested"];
  }
  return out;
}

// "os.timer_migration 1 -> 0, os.smt unset -> off" (at most 4 settings).
std::string settings_difference(const std::map<std::string, nlohmann::json>& was,
                                const std::map<std::string, nlohmann::json>& now) {
  std::map<std::string, std::pair<std::string, std::string>> diff;
  auto text = [](const std::map<std::string, nlohmann::json>& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? std::string("unset") : level_text(it->second);
  };
  for (const auto& m : {was, now})
    for (const auto& [k, v] : m)
      if (text(was, k) != text(now, k)) diff[k] = {text(was, k), text(now, k)};
  std::string out;
  int n = 0;
  for (const auto& [k, d] : diff) {
    if (n++ == 4) return out + ", ...";
    out += (out.empty() ? "" : ", ") + k + " " + d.first + " -> " + d.second;
  }
  return out;
}

// A run measured under other guest OS settings ([os] or an os.* level) than the cell now asks
// for is refused like another layout; the values read back (seen) may differ from the request
// and never block (they are measurements, shown as mismatches).
Result<void> check_settings(const Experiment& e, const Cell& cell,
                            const store::StoredRunIdentity& s, const std::string& who) {
  const auto now = os_settings(e, cell);
  const auto was = stored_requests(s.conditions);
  if (!was)
    return make_error(ErrorKind::input, who + " has a run of cell '" + s.cell_label +
                                            "' whose guest OS settings record is unreadable" +
                                            kAdvice);
  if (*was == now) return {};
  return make_error(ErrorKind::input, who + " ran cell '" + s.cell_label +
                                          "' with other guest OS settings (" +
                                          settings_difference(*was, now) + ")" + kAdvice);
}

}  // namespace

std::string benchmark_text(const std::string& name, const nlohmann::json& params) {
  std::string out;
  if (params.is_object())
    for (const auto& [k, v] : params.items())
      out += (out.empty() ? "" : ", ") + k + "=" + level_text(v);
  return name + "{" + out + "}";
}

Result<void> check_resume(const Experiment& e, const std::vector<Cell>& cells,
                          const std::map<std::string, nlohmann::json>& layouts,
                          const std::vector<store::StoredRunIdentity>& stored,
                          const std::string& store_name) {
  std::unordered_map<std::string, const Cell*> by_key;
  for (const auto& c : cells) by_key.emplace(c.key, &c);
  const std::string who = "experiment '" + e.name + "' in " + store_name;
  for (const auto& s : stored) {
    auto it = by_key.find(s.cell_key);
    if (it == by_key.end())
      return make_error(ErrorKind::input,
                        who + " has results for cell '" + s.cell_label +
                            "', which the file no longer defines (a factor, level or [[exclude]] "
                            "changed)" +
                            kAdvice);
    const Cell& cell = *it->second;
    auto layout = layouts.find(cell.config_key);
    const nlohmann::json now = layout == layouts.end() ? nlohmann::json() : layout->second;
    if (!s.layout && !now.is_null())
      return make_error(ErrorKind::input,
                        who + " ran cell '" + s.cell_label +
                            "' before topolab recorded layouts (store schema 1), so the layout "
                            "cannot be shown unchanged" +
                            kAdvice);
    if (s.layout && *s.layout != now)
      return make_error(ErrorKind::input, who + " ran cell '" + s.cell_label +
                                              "' with another layout (" +
                                              layout_difference(*s.layout, now) + ")" + kAdvice);
    TL_TRY(check_settings(e, cell, s, who));
    const auto index = static_cast<std::size_t>(s.benchmark_index);
    if (s.benchmark_index < 0 || index >= e.benchmarks.size())
      return make_error(ErrorKind::input,
                        who + " has results of benchmark #" +
                            std::to_string(s.benchmark_index + 1) + " " +
                            benchmark_text(s.benchmark, s.params) + "; the file now has " +
                            std::to_string(e.benchmarks.size()) + " benchmark(s)" + kAdvice);
    const nlohmann::json params = benchmark_params(e, cell, s.benchmark_index);
    const std::string& name = e.benchmarks[index].name;
    // dump() compares types too: 1000 and 1000.0 are different parameters.
    if (s.benchmark != name || s.params.dump() != params.dump())
      return make_error(ErrorKind::input, who + " was run with benchmark " +
                                              benchmark_text(s.benchmark, s.params) + " (cell '" +
                                              s.cell_label + "'); the file now says " +
                                              benchmark_text(name, params) + kAdvice);
  }
  return {};
}

}  // namespace topolab::experiment
