#include "orchestrator/run/experiment/shard.hpp"

#include <charconv>

namespace topolab::experiment {
namespace {

// Digits only (no sign, no spaces, no "+1"), within 1..kMaxShards.
bool parse_count(const std::string& text, int& out) {
  if (text.empty() || text.size() > 6) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= 1 && out <= kMaxShards;
}

const std::string kExpected =
    "expected K/N with 1 <= K <= N <= " + std::to_string(kMaxShards) + " (e.g. 2/4)";

}  // namespace

Result<Shard> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  Shard s;
  if (slash == std::string::npos || !parse_count(text.substr(0, slash), s.index) ||
      !parse_count(text.substr(slash + 1), s.count) || s.index > s.count)
    return make_error(ErrorKind::input, "--shard '" + text + "': " + kExpected);
  return s;
}

Result<int> parse_shard_count(const std::string& text) {
  int n = 0;
  if (!parse_count(text, n))
    return make_error(ErrorKind::input, "shard count '" + text + "': expected an integer 1.." +
                                            std::to_string(kMaxShards));
  return n;
}

Result<std::vector<Configuration>> shard_configurations(const Experiment& e,
                                                        const std::vector<Configuration>& all,
                                                        const Shard& shard) {
  const bool by_cell = e.backend == BackendKind::kHost;
  std::size_t units = 0;
  for (const auto& c : all) units += by_cell ? c.cells.size() : 1;
  if (static_cast<std::size_t>(shard.count) > units)
    return make_error(ErrorKind::input,
                      e.source_file.string() + ": " + std::to_string(shard.count) +
                          " shards but the experiment has " + std::to_string(units) +
                          (by_cell ? " cell(s)" : " guest configuration(s)") +
                          "; a shard holds whole " + (by_cell ? "cells" : "configurations") +
                          ", so at most " + std::to_string(units) + " shards");
  const auto mine = [&](std::size_t unit) {
    return static_cast<int>(unit % static_cast<std::size_t>(shard.count)) + 1 == shard.index;
  };
  std::vector<Configuration> out;
  std::size_t unit = 0;
  for (const auto& c : all) {
    if (!by_cell) {
      if (mine(unit++)) out.push_back(c);
      continue;
    }
    Configuration part = c;
    part.cells.clear();
    for (int cell : c.cells)
      if (mine(unit++)) part.cells.push_back(cell);
    if (!part.cells.empty()) out.push_back(std::move(part));
  }
  return out;
}

Result<nlohmann::json> shard_listing(const Experiment& e, const std::vector<Cell>& cells,
                                     const std::vector<Configuration>& configs, int count) {
  nlohmann::json out = nlohmann::json::array();
  for (int k = 1; k <= count; ++k) {
    TL_ASSIGN(const auto part, shard_configurations(e, configs, Shard{k, count}));
    nlohmann::json labels = nlohmann::json::array(), cell_labels = nlohmann::json::array();
    for (const auto& c : part) {
      labels.push_back(c.label());
      for (int i : c.cells) cell_labels.push_back(cells[static_cast<std::size_t>(i)].label());
    }
    out.push_back(
        {{"shard", Shard{k, count}.text()}, {"configurations", labels}, {"cells", cell_labels}});
  }
  return out;
}

}  // namespace topolab::experiment
