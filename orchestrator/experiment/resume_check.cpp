#include "orchestrator/experiment/resume_check.hpp"

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
      return make_error(who + " has results for cell '" + s.cell_label +
                        "', which the file no longer defines (a factor, level or [[exclude]] "
                        "changed)" +
                        kAdvice);
    const Cell& cell = *it->second;
    auto layout = layouts.find(cell.config_key);
    const nlohmann::json now = layout == layouts.end() ? nlohmann::json() : layout->second;
    if (!s.layout && !now.is_null())
      return make_error(who + " ran cell '" + s.cell_label +
                        "' before topolab recorded layouts (store schema 1), so the layout "
                        "cannot be shown unchanged" +
                        kAdvice);
    if (s.layout && *s.layout != now)
      return make_error(who + " ran cell '" + s.cell_label + "' with another layout (" +
                        layout_difference(*s.layout, now) + ")" + kAdvice);
    const auto index = static_cast<std::size_t>(s.benchmark_index);
    if (s.benchmark_index < 0 || index >= e.benchmarks.size())
      return make_error(who + " has results of benchmark #" +
                        std::to_string(s.benchmark_index + 1) + " " +
                        benchmark_text(s.benchmark, s.params) + "; the file now has " +
                        std::to_string(e.benchmarks.size()) + " benchmark(s)" + kAdvice);
    const nlohmann::json params = benchmark_params(e, cell, s.benchmark_index);
    const std::string& name = e.benchmarks[index].name;
    // dump() compares types too: 1000 and 1000.0 are different parameters.
    if (s.benchmark != name || s.params.dump() != params.dump())
      return make_error(who + " was run with benchmark " + benchmark_text(s.benchmark, s.params) +
                        " (cell '" + s.cell_label + "'); the file now says " +
                        benchmark_text(name, params) + kAdvice);
  }
  return {};
}

}  // namespace topolab::experiment
