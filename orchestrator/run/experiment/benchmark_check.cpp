#include "orchestrator/run/experiment/benchmark_check.hpp"

#include <string>

#include "guest-agent/bench/benchmark.hpp"
#include "guest-agent/bench/benchmark_def.hpp"

namespace topolab::experiment::detail {
namespace {

// The agent's own bound on list parameters is per spec (max_items); this one only keeps a
// hostile file from building a huge array before that check runs.
constexpr std::size_t kMaxParamItems = 4096;

const bench::BenchmarkDef* find_benchmark(const std::string& name) {
  for (const auto& d : bench::all_benchmarks())
    if (d.name == name) return &d;
  return nullptr;
}

std::string known_benchmarks() {
  std::string known;
  for (const auto& name : bench::benchmark_names()) known += (known.empty() ? "" : ", ") + name;
  return known;
}

// Whether a param.* factor reaches this benchmark (param.X: every one; param.B.X: B), and which
// parameter it sets.
bool factor_reaches(const Factor& f, const std::string& bench, std::string& param) {
  if (f.kind != FactorKind::kParam) return false;
  const std::string rest = f.key.substr(6);  // after "param."
  if (rest.find('.') == std::string::npos) {
    param = rest;
    return true;
  }
  if (rest.rfind(bench + ".", 0) != 0) return false;
  param = rest.substr(bench.size() + 1);
  return true;
}

// The agent's message names the benchmark and parameter; the file adds where it was written.
Result<void> check_one(const Ctx& c, int line, const bench::BenchmarkDef& def,
                       const nlohmann::json& params) {
  auto checked = bench::validate_params(params, def.params, "benchmark '" + def.name + "'");
  if (!checked) return c.at_line(line, checked.error().message);
  return {};
}

}  // namespace

Result<nlohmann::json> params_to_json(const Ctx& c, const toml::table& t) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : t) {
    const std::string what = "benchmark.params." + std::string(k.str());
    if (auto arr = v.as_array()) {
      if (arr->size() > kMaxParamItems)
        return c.at(v, what + ": more than " + std::to_string(kMaxParamItems) + " items");
      nlohmann::json items = nlohmann::json::array();
      for (const auto& item : *arr) {
        if (item.is_array() || item.is_table())
          return c.at(item, what + ": expected an array of scalars (no nested arrays)");
        TL_ASSIGN(auto j, scalar_to_json(c, item, what));
        items.push_back(std::move(j));
      }
      out[std::string(k.str())] = std::move(items);
      continue;
    }
    TL_ASSIGN(auto j, scalar_to_json(c, v, what));
    out[std::string(k.str())] = std::move(j);
  }
  return out;
}

Result<void> check_benchmark_params(const Ctx& c, const Experiment& e) {
  for (const auto& b : e.benchmarks) {
    const bench::BenchmarkDef* def = find_benchmark(b.name);
    if (!def)
      return c.at_line(b.line, "[[benchmark]] name '" + b.name +
                                   "': unknown benchmark (known: " + known_benchmarks() + ")");
    TL_TRY(check_one(c, b.line, *def, b.params));
    // Each level on its own: parameters are checked one by one, so a combination of levels
    // that are each valid is valid (the work caps that depend on the guest stay in the agent).
    for (const auto& f : e.factors) {
      std::string param;
      if (!factor_reaches(f, b.name, param)) continue;
      for (const auto& level : f.levels) {
        nlohmann::json params = b.params.is_object() ? b.params : nlohmann::json::object();
        params[param] = level;
        TL_TRY(check_one(c, f.line, *def, params));
      }
    }
  }
  return {};
}

}  // namespace topolab::experiment::detail
