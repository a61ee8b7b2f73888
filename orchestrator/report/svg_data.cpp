#include "orchestrator/report/svg_data.hpp"

#include <map>

#include "host/topology_json.hpp"
#include "orchestrator/store/result_store.hpp"

namespace topolab::report {
namespace {

constexpr std::size_t kMaxConfigKeyBytes = 64 * 1024;

// The stored fields plan_placement reads, in an order where no field depends on a later one.
constexpr const char* kPlacementFields[] = {
    "guest.l3_groups",    "guest.cores_per_group", "guest.threads_per_core",
    "guest.memory_mib",   "guest.iothreads",       "expose.as",
    "placement.policy",   "placement.host_cpus",   "placement.housekeeping_cpus",
    "placement.explicit", "memory.hugepages"};

// The text set_layout_field takes for one stored value; nullopt: leave the default.
Result<std::optional<std::string>> field_text(const std::string& key, const nlohmann::json& v) {
  if (v.is_null()) return std::optional<std::string>();
  if (v.is_string()) return std::optional<std::string>(v.get<std::string>());
  if (v.is_boolean()) return std::optional<std::string>(v.get<bool>() ? "true" : "false");
  if (key == "memory.hugepages" && v.is_number_unsigned())
    return std::optional<std::string>(v.get<std::uint64_t>() == 0 ? "none" : v.dump() + "K");
  if (v.is_number_integer()) return std::optional<std::string>(v.dump());
  if (v.is_array() && v.size() <= static_cast<std::size_t>(kMaxCpuIds)) {
    std::string joined;  // placement.explicit: one list per vCPU, ';' between them
    for (const auto& item : v) {
      if (!item.is_string()) return make_error(key + ": expected CPU list strings");
      if (joined.size() > kMaxCpuListText * 4) return make_error(key + ": too long");
      joined += (joined.empty() ? "" : ";") + item.get<std::string>();
    }
    if (v.empty()) return std::optional<std::string>();
    return std::optional<std::string>(joined);
  }
  return make_error(key + ": unexpected stored value " + v.dump().substr(0, 60));
}

ConfigPicture picture_for(store::ResultStore& store, const std::optional<HostTopology>& host,
                          const store::StoredCell& cell) {
  ConfigPicture p;
  p.label = config_label(cell.cell.config_key);
  if (cell.cell.layout.is_null()) {
    p.plan_note = "no guest layout stored (host backend, or a store older than schema 2)";
  } else if (!host) {
    p.plan_note = "no readable host topology in the store";
  } else if (auto layout = layout_from_stored(cell.cell.layout); !layout) {
    p.plan_note = "stored layout: " + layout.error().message;
  } else if (auto plan = plan_placement(*layout, *host); !plan) {
    p.plan_note = "placement: " + plan.error().message;
  } else {
    p.plan = std::move(*plan);
  }
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

Result<Layout> layout_from_stored(const nlohmann::json& stored) {
  if (!stored.is_object()) return make_error("stored layout: expected an object");
  Layout l;
  for (const char* key : kPlacementFields) {
    if (!stored.contains(key)) continue;
    auto text = field_text(key, stored[key]);
    if (!text) return text.error();
    if (*text) TL_TRY(set_layout_field(l, key, **text));
  }
  TL_TRY(validate_layout(l));
  return l;
}

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
