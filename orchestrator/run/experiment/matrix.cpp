#include "orchestrator/run/experiment/matrix.hpp"

#include <unordered_map>

namespace topolab::experiment {
namespace {

bool is_config_factor(const Experiment& e, const std::string& key) {
  const Factor* f = e.factor(key);
  return f && (f->kind == FactorKind::kLayout || f->kind == FactorKind::kCmdline);
}

nlohmann::json levels_object(const Levels& levels) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : levels) j[k] = v;
  return j;
}

std::string levels_label(const Levels& levels) {
  std::string out;
  for (const auto& [k, v] : levels) out += (out.empty() ? "" : " ") + k + "=" + level_text(v);
  return out.empty() ? "(default)" : out;
}

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

nlohmann::json Cell::factors_json() const { return levels_object(levels); }
std::string Cell::label() const { return levels_label(levels); }
std::string Configuration::label() const { return levels_label(levels); }

bool is_excluded(const Experiment& e, const Levels& levels) {
  for (const auto& rule : e.excludes) {
    bool all = true;
    for (const auto& [k, v] : rule.match) {
      bool hit = false;
      for (const auto& [lk, lv] : levels) hit = hit || (lk == k && same_level(lv, v));
      all = all && hit;
    }
    if (all) return true;
  }
  return false;
}

std::vector<Cell> expand_cells(const Experiment& e) {
  std::vector<Cell> cells;
  std::vector<std::size_t> idx(e.factors.size(), 0);
  // Odometer over the factors; the last factor varies fastest.
  while (true) {
    Levels levels;
    for (std::size_t i = 0; i < e.factors.size(); ++i)
      levels.emplace_back(e.factors[i].key, e.factors[i].levels[idx[i]]);
    if (!is_excluded(e, levels)) {
      Cell c;
      c.index = static_cast<int>(cells.size());
      c.levels = levels;
      c.key = levels_object(levels).dump();
      Levels config;
      for (const auto& l : levels)
        if (is_config_factor(e, l.first)) config.push_back(l);
      c.config_key = levels_object(config).dump();
      cells.push_back(std::move(c));
    }
    std::size_t i = e.factors.size();
    while (i > 0) {
      --i;
      if (++idx[i] < e.factors[i].levels.size()) break;
      idx[i] = 0;
      if (i == 0) return cells;
    }
    if (e.factors.empty()) return cells;
  }
}

std::vector<Configuration> group_by_configuration(const Experiment& e,
                                                  const std::vector<Cell>& cells) {
  std::vector<Configuration> configs;
  // Indexed by key: a linear search per cell was quadratic (10^10 compares at kMaxCells).
  std::unordered_map<std::string, std::size_t> index;
  for (const auto& c : cells) {
    auto [it, added] = index.try_emplace(c.config_key, configs.size());
    if (added) {
      Configuration g;
      g.key = c.config_key;
      for (const auto& l : c.levels)
        if (is_config_factor(e, l.first)) g.levels.push_back(l);
      configs.push_back(std::move(g));
    }
    configs[it->second].cells.push_back(c.index);
  }
  return configs;
}

nlohmann::json benchmark_params(const Experiment& e, const Cell& cell, int benchmark) {
  const auto& b = e.benchmarks.at(static_cast<std::size_t>(benchmark));
  nlohmann::json params = b.params.is_object() ? b.params : nlohmann::json::object();
  const std::string prefix = "param." + b.name + ".";
  // param.<name> applies to every benchmark; param.<bench>.<name> to one (and wins).
  for (const auto& [k, v] : cell.levels)
    if (k.rfind("param.", 0) == 0 && k.find('.', 6) == std::string::npos) params[k.substr(6)] = v;
  for (const auto& [k, v] : cell.levels)
    if (k.rfind(prefix, 0) == 0) params[k.substr(prefix.size())] = v;
  return params;
}

std::map<std::string, nlohmann::json> os_settings(const Experiment& e, const Cell& cell) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& k : e.os_constants) out[k.name] = k.value;
  for (const auto& [k, v] : cell.levels) {
    const Factor* f = e.factor(k);
    if (f && f->kind == FactorKind::kOs) out[k] = v;
  }
  return out;
}

std::string cmdline_extra(const Configuration& config) {
  std::string out;
  for (const auto& [k, v] : config.levels) {
    if (k.rfind("cmdline.", 0) != 0) continue;
    std::string opt = k.substr(8);
    if (v.is_boolean()) {
      if (!v.get<bool>()) continue;
    } else {
      opt += "=" + level_text(v);
    }
    out += (out.empty() ? "" : " ") + opt;
  }
  return out;
}

int baseline_cell(const Experiment& e, const std::vector<Cell>& cells, const Cell& cell) {
  if (e.baseline.empty()) return -1;
  Levels want = cell.levels;
  for (auto& [k, v] : want) {
    auto it = e.baseline.find(k);
    if (it != e.baseline.end()) v = it->second;
  }
  const std::string key = levels_object(want).dump();
  for (const auto& c : cells)
    if (c.key == key) return c.index;
  return -1;
}

std::uint64_t configuration_seed(std::uint64_t experiment_seed, const std::string& config_key) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char ch : config_key) h = (h ^ ch) * 1099511628211ULL;
  std::uint64_t state = experiment_seed ^ h;
  return splitmix64(state);
}

void shuffle_runs(std::vector<RunSpec>& runs, std::uint64_t seed) {
  std::uint64_t state = seed;
  for (std::size_t i = runs.size(); i > 1; --i) {
    std::size_t j = static_cast<std::size_t>(splitmix64(state) % i);
    std::swap(runs[i - 1], runs[j]);
  }
}

std::vector<RunSpec> configuration_runs(const Experiment& e, const Configuration& config,
                                        int first_rep, int last_rep, std::uint64_t seed) {
  std::vector<RunSpec> runs;
  for (int cell : config.cells)
    for (int b = 0; b < static_cast<int>(e.benchmarks.size()); ++b)
      for (int r = first_rep; r <= last_rep; ++r) runs.push_back({cell, b, r});
  shuffle_runs(runs, seed);
  return runs;
}

}  // namespace topolab::experiment
