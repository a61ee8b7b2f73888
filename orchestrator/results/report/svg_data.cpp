#include "orchestrator/results/report/svg_data.hpp"

#include <map>

#include "host/topology_json.hpp"
#include "orchestrator/results/store/result_store.hpp"

namespace topolab::report {
namespace {

constexpr std::size_t kMaxConfigKeyBytes = 64 * 1024;

// Why a configuration has no placement picture when its boot stored none.
std::string no_plan_note(const store::StoredCell& cell) {
  if (cell.cell.layout.is_null())
    return "no guest layout stored (host backend, or a store older than schema 2)";
  if (cell.status == "does-not-fit") return "placement: " + cell.error;
  if (cell.boot_id == 0) return "not booted";
  return "no placement stored with its boot (a store older than schema 5)";
}

// The configuration's pictures from its boot: the placement it was booted with (the stored
// plan, not planned again: a host topology rewritten by a later resume does not move it) and
// the topology the guest reported.
ConfigPicture picture_for(store::ResultStore& store, const std::optional<HostTopology>& host,
                          const store::StoredCell& cell) {
  ConfigPicture p;
  p.label = config_label(cell.cell.config_key);
  p.plan_note = no_plan_note(cell);
  if (cell.boot_id == 0) {
    p.seen_note = "not booted";
    return p;
  }
  auto boot = store.boot(cell.boot_id);
  if (!boot) {  // not_found since the store's typed errors
    p.seen_note = "boot record missing";
    return p;
  }
  const auto& b = boot->boot;
  if (b.plan.is_null()) {
    // the note above says why
  } else if (!host) {
    p.plan_note = "no readable host topology in the store";
  } else if (auto plan = placement_from_stored(b.plan); !plan) {
    p.plan_note = "stored placement: " + plan.error().message;
  } else {
    p.plan = std::move(*plan);
    p.plan_note.clear();
  }
  p.mismatch = b.mismatches.is_array() && !b.mismatches.empty();
  if (b.seen.is_null()) {
    p.seen_note = "no guest-seen topology (host backend)";
  } else if (auto seen = topology_from_json(b.seen); !seen) {
    p.seen_note = seen.error().message;
  } else {
    p.seen = std::move(*seen);
  }
  return p;
}

}  // namespace

std::string config_label(const std::string& config_key) {
  if (config_key.size() > kMaxConfigKeyBytes) return "(unreadable configuration)";
  const auto j = nlohmann::json::parse(config_key, nullptr, false);
  if (!j.is_object()) return config_key.empty() ? "(default)" : "(unreadable configuration)";
  std::string out;
  for (const auto& [k, v] : j.items())
    out += (out.empty() ? "" : " ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return out.empty() ? "(default)" : out;
}

namespace {

// One host's pictures: its topology (`topology`, as stored) and the cells of `host` ("" takes
// every cell: a store of one host).
PictureData host_pictures(store::ResultStore& store, const nlohmann::json& topology,
                          const std::vector<store::StoredCell>& cells, const std::string& host) {
  PictureData d;
  d.host_uri = host;
  if (topology.is_null()) {
    d.host_note = "no host topology stored";
  } else if (auto topo = topology_from_json(topology); !topo) {
    d.host_note = topo.error().message;
  } else {
    d.host = std::move(*topo);
  }
  std::map<std::string, bool> seen_configs;
  for (const auto& c : cells) {
    if (!host.empty() && c.cell.host != host) continue;
    if (!seen_configs.emplace(c.cell.config_key, true).second) continue;
    if (d.configs.size() == kMaxPictureConfigs) {
      ++d.configs_left_out;
      continue;
    }
    d.configs.push_back(picture_for(store, d.host, c));
  }
  return d;
}

}  // namespace

PictureData load_pictures(store::ResultStore& store, const store::StoredExperiment& exp,
                          const std::vector<store::StoredCell>& cells) {
  PictureData d = host_pictures(store, exp.host_topology, cells, "");
  // Several hosts: the runner recorded each host's topology under context.hosts (runner.cpp).
  const nlohmann::json& ctx = exp.context;
  if (!ctx.is_object() || !ctx.contains("hosts") || !ctx["hosts"].is_array() ||
      ctx["hosts"].size() < 2)
    return d;
  for (const auto& h : ctx["hosts"]) {
    if (d.per_host.size() == kMaxPictureHosts) break;
    if (!h.is_object() || !h.contains("host") || !h["host"].is_string()) continue;
    const nlohmann::json topo = h.contains("host_topology") ? h["host_topology"] : nullptr;
    d.per_host.push_back(host_pictures(store, topo, cells, h["host"].get<std::string>()));
  }
  return d;
}

}  // namespace topolab::report
