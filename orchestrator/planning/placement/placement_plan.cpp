#include "orchestrator/planning/placement/placement_plan.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "orchestrator/planning/placement/host_cores.hpp"
#include "orchestrator/planning/placement/l3_preference.hpp"
#include "orchestrator/planning/placement/placement_policies.hpp"

namespace topolab {
namespace {

using placement::UsableHost;

const NumaNode* find_node(const HostTopology& host, int id) {
  for (const auto& n : host.numa_nodes) {
    if (n.id == id) return &n;
  }
  return nullptr;
}

std::uint64_t node_memory_mib(const HostTopology& host, int id) {
  const NumaNode* n = find_node(host, id);
  return n ? n->memory_kib / 1024 : 0;
}

// Emulator and I/O threads: housekeeping CPUs, else CPUs left over, else the guest's own.
void place_emulator(const Layout& l, const HostTopology& host, const UsableHost& u,
                    PlacementPlan& plan) {
  if (l.housekeeping_cpus) {
    plan.emulator_cpus = l.housekeeping_cpus->intersected(host.online_cpus());
    plan.notes.push_back("emulator" + std::string(l.iothreads ? " and I/O" : "") +
                         " threads pinned to housekeeping_cpus " + plan.emulator_cpus.to_string());
  } else {
    CpuList used, used_cores;
    for (const auto& v : plan.vcpus) used = used.united(v.host_cpus);
    for (int c : used) {
      const CpuInfo* info = host.cpu(c);
      used_cores = used_cores.united(info && !info->siblings.empty() ? info->siblings : CpuList{c});
    }
    CpuList pool = l.host_cpus ? u.allowed : host.online_cpus();
    CpuList left = plan.pinned ? pool.minus(used_cores) : CpuList{};
    if (!plan.pinned) {
      plan.emulator_cpus = u.allowed;
      plan.notes.push_back("emulator threads float with the vCPUs over " + u.allowed.to_string() +
                           " (unpinned, no housekeeping_cpus given)");
    } else if (!left.empty()) {
      plan.emulator_cpus = left;
      plan.notes.push_back("emulator threads on CPUs left over: " + left.to_string() +
                           " (no housekeeping_cpus given)");
    } else {
      plan.emulator_cpus = used;
      plan.warnings.push_back(
          "no housekeeping_cpus and no CPUs left over: emulator threads "
          "share the guest's CPUs " +
          used.to_string());
    }
  }
  if (l.iothreads > 0) plan.iothread_cpus = plan.emulator_cpus;
}

Result<void> place_memory(const Layout& l, const HostTopology& host, PlacementPlan& plan) {
  std::uint64_t host_total = 0;
  bool all_known = !host.numa_nodes.empty();
  for (const auto& n : host.numa_nodes) {
    host_total += n.memory_kib / 1024;
    all_known = all_known && (n.memory_kib > 0 || n.memoryless);
  }
  if (all_known && l.memory_mib > host_total) {
    return make_error(ErrorKind::does_not_fit,
                      "guest memory " + std::to_string(l.memory_mib) +
                          " MiB is larger than the host's memory (" + std::to_string(host_total) +
                          " MiB over " + std::to_string(host.numa_nodes.size()) + " NUMA node" +
                          (host.numa_nodes.size() == 1 ? "" : "s") + ")");
  }
  if (!plan.pinned) return {};
  std::set<int> nodes;
  for (const auto& v : plan.vcpus) {
    for (int c : v.host_cpus) {
      const CpuInfo* info = host.cpu(c);
      if (info && info->node >= 0) nodes.insert(info->node);
    }
  }
  if (nodes.empty()) return {};
  plan.memory_nodes = CpuList::from_vector({nodes.begin(), nodes.end()});
  if (!plan.nodes.empty()) {
    auto sizes = cell_memory_kib(l, l.memory_mib * 1024);
    std::map<int, std::uint64_t> need;
    if (sizes) {
      for (const auto& n : plan.nodes)
        if (n.host_node >= 0)
          need[n.host_node] += (*sizes)[static_cast<std::size_t>(n.node)] / 1024;
    }
    for (const auto& [node, mib] : need) {
      std::uint64_t have = node_memory_mib(host, node);
      if (have > 0 && mib > have) {
        return make_error(ErrorKind::does_not_fit,
                          "guest NUMA cells on host node " + std::to_string(node) + " need " +
                              std::to_string(mib) + " MiB, the node holds " + std::to_string(have) +
                              " MiB (memory larger than the node)");
      }
    }
  }
  std::uint64_t have = 0;
  bool known = true;
  for (int n : nodes) {
    std::uint64_t m = node_memory_mib(host, n);
    const NumaNode* node = find_node(host, n);
    known = known && (m > 0 || (node && node->memoryless));
    have += m;
  }
  if (known && l.memory_mib > have) {
    plan.memory_strict = false;
    plan.warnings.push_back("guest memory " + std::to_string(l.memory_mib) +
                            " MiB is larger than host node(s) " + plan.memory_nodes.to_string() +
                            " backing its CPUs (" + std::to_string(have) +
                            " MiB): numatune set to preferred, memory will spill to other nodes");
  }
  return {};
}

// The guest cells' host nodes (a cell is on one host node when all its groups are), notes for
// cells that are not, and the host's distances between them as the default distances.
void place_nodes(const Layout& l, const HostTopology& host, PlacementPlan& plan) {
  const ExposureMeaning m = exposure_meaning(l);
  plan.nodes.clear();
  if (!m.numa_cells()) return;
  plan.nodes.assign(static_cast<std::size_t>(m.cells), {});
  for (int c = 0; c < m.cells; ++c) plan.nodes[static_cast<std::size_t>(c)].node = c;
  for (const auto& g : plan.groups)
    plan.nodes[static_cast<std::size_t>(m.cell_of_group(g.group))].groups.push_back(g.group);
  std::set<int> host_nodes;
  for (auto& n : plan.nodes) {
    std::set<int> under;
    for (int g : n.groups) under.insert(plan.groups[static_cast<std::size_t>(g)].host_node);
    n.host_node = under.size() == 1 ? *under.begin() : -1;
    host_nodes.insert(n.host_node);
    if (n.host_node < 0 && plan.pinned && l.two_level())
      plan.notes.push_back("guest node " + std::to_string(n.node) +
                           " is not on one host NUMA node (its L3 groups are on different "
                           "host nodes)");
  }
  // One-level `numa` layouts keep libvirt's default distances (their XML is unchanged).
  if (!l.two_level() || host_nodes.count(-1) || host_nodes.size() != plan.nodes.size()) return;
  std::vector<std::vector<int>> d;
  for (const auto& a : plan.nodes) {
    const NumaNode* from = find_node(host, a.host_node);
    std::vector<int> row;
    for (const auto& b : plan.nodes) {
      std::size_t k = 0;
      while (k < host.numa_nodes.size() && host.numa_nodes[k].id != b.host_node) ++k;
      if (!from || k >= from->distances.size()) return;
      row.push_back(from->distances[k]);
    }
    d.push_back(std::move(row));
  }
  plan.node_distances = std::move(d);
}

Result<PlacementPlan> plan_once(const Layout& l, const HostTopology& host) {
  TL_TRY(validate_layout(l));
  const GuestTopology topo = guest_topology_for(l);
  if (topo.vcpus() != l.vcpu_count()) {
    return make_error(ErrorKind::internal,
                      "announced topology " + std::to_string(topo.sockets) + " sockets x " +
                          std::to_string(topo.dies) + " dies x " + std::to_string(topo.cores) +
                          " cores x " + std::to_string(topo.threads) +
                          " threads = " + std::to_string(topo.vcpus()) +
                          " differs from the vCPU count " + std::to_string(l.vcpu_count()));
  }
  TL_ASSIGN(auto usable, placement::usable_host(l, host));
  Result<PlacementPlan> plan = make_error(ErrorKind::internal, "unknown policy");
  switch (l.policy) {
    case PlacementPolicy::kL3Aligned:
      plan = placement::plan_l3_aligned(l, host, usable);
      break;
    case PlacementPolicy::kCompact:
      plan = placement::plan_compact_or_scatter(l, host, usable, false);
      break;
    case PlacementPolicy::kScatter:
      plan = placement::plan_compact_or_scatter(l, host, usable, true);
      break;
    case PlacementPolicy::kUnpinned:
      plan = placement::plan_unpinned(l, usable);
      break;
    case PlacementPolicy::kExplicit:
      plan = placement::plan_explicit(l, host, usable);
      break;
  }
  if (!plan) return plan.error();
  plan->topology = topo;
  plan->warnings.insert(plan->warnings.begin(), usable.warnings.begin(), usable.warnings.end());
  place_emulator(l, host, usable, *plan);
  if (plan->pinned) placement::warn_split_smt_pairs(l, host, plan->warnings);
  place_nodes(l, host, *plan);
  TL_TRY(place_memory(l, host, *plan));
  if (plan->pinned && l.threads_per_core == 1 && host.has_smt()) {
    CpuList idle;
    for (const auto& v : plan->vcpus) {
      const CpuInfo* info = host.cpu(v.host_cpus.first());
      if (info) idle = idle.united(info->siblings.minus(v.host_cpus));
    }
    idle = idle.minus(plan->emulator_cpus);
    if (!idle.empty()) {
      plan->notes.push_back("one thread per host core: SMT siblings " + idle.to_string() +
                            " stay idle");
    }
  }
  return plan;
}

// Single-field changes, nearest first, that might make a refused layout fit.
std::vector<std::pair<std::string, std::function<void(Layout&)>>> candidate_changes(
    const Layout& l) {
  std::vector<std::pair<std::string, std::function<void(Layout&)>>> out;
  const int t = l.threads_per_core, c = l.cores_per_group, g = l.l3_groups;
  if (t > 1) {
    out.push_back({"threads_per_core=1 cores_per_group=" + std::to_string(c * t) +
                       " (--threads 1 "
                       "--cores " +
                       std::to_string(c * t) + ")",
                   [=](Layout& x) { x.threads_per_core = 1, x.cores_per_group = c * t; }});
    out.push_back({"threads_per_core=1 (--threads 1)", [](Layout& x) { x.threads_per_core = 1; }});
  }
  for (int k = g - 1; k >= 1 && k >= g - 64; --k) {
    out.push_back({"l3_groups=" + std::to_string(k) + " (--groups " + std::to_string(k) + ")",
                   [=](Layout& x) { x.l3_groups = k; }});
  }
  for (int k = c - 1; k >= 1 && k >= c - 64; --k) {
    out.push_back({"cores_per_group=" + std::to_string(k) + " (--cores " + std::to_string(k) + ")",
                   [=](Layout& x) { x.cores_per_group = k; }});
  }
  for (std::uint64_t m = l.memory_mib / 2; m >= 256; m /= 2) {
    out.push_back({"memory_mib=" + std::to_string(m) + " (--memory " + std::to_string(m) + ")",
                   [=](Layout& x) { x.memory_mib = m; }});
  }
  return out;
}

}  // namespace

GuestTopology guest_topology_for(const Layout& l) { return exposure_meaning(l).topology; }

Result<PlacementPlan> plan_placement(const Layout& layout, const HostTopology& host) {
  auto plan = plan_once(layout, host);
  if (plan) return plan;
  // Only host-fit refusals get a suggestion; layout errors stand alone.
  if (!validate_layout(layout)) return plan;
  for (auto& [text, change] : candidate_changes(layout)) {
    Layout alt = layout;
    change(alt);
    if (alt.policy == PlacementPolicy::kExplicit) break;
    if (plan_once(alt, host)) {
      return Error{plan.error().message + "; nearest feasible: " + text, plan.error().kind};
    }
  }
  if (layout.policy == PlacementPolicy::kL3Aligned) {
    Layout alt = layout;
    alt.policy = PlacementPolicy::kCompact;
    if (plan_once(alt, host)) {
      return Error{plan.error().message +
                       "; nearest feasible: policy compact (--policy compact, groups not "
                       "L3-aligned)",
                   plan.error().kind};
    }
  }
  return plan;
}

nlohmann::json plan_to_json(const PlacementPlan& plan) {
  nlohmann::json j;
  j["vcpus"] = nlohmann::json::array();
  for (const auto& v : plan.vcpus) {
    j["vcpus"].push_back({{"vcpu", v.vcpu},
                          {"host_cpus", v.host_cpus.to_string()},
                          {"group", v.group},
                          {"core", v.core},
                          {"thread", v.thread}});
  }
  j["groups"] = nlohmann::json::array();
  for (const auto& g : plan.groups) {
    j["groups"].push_back({{"group", g.group},
                           {"host_l3", g.host_l3},
                           {"host_cpus", g.host_cpus.to_string()},
                           {"host_node", g.host_node}});
  }
  if (!plan.nodes.empty()) {  // only guests with cells: other plans' JSON is unchanged
    j["nodes"] = nlohmann::json::array();
    for (const auto& n : plan.nodes)
      j["nodes"].push_back({{"node", n.node}, {"groups", n.groups}, {"host_node", n.host_node}});
    j["node_distances"] = plan.node_distances;
  }
  j["topology"] = {{"sockets", plan.topology.sockets},
                   {"dies", plan.topology.dies},
                   {"cores", plan.topology.cores},
                   {"threads", plan.topology.threads}};
  j["pinned"] = plan.pinned;
  j["emulator_cpus"] = plan.emulator_cpus.to_string();
  j["iothread_cpus"] = plan.iothread_cpus.to_string();
  j["memory_nodes"] = plan.memory_nodes.to_string();
  j["memory_mode"] = plan.memory_nodes.empty() ? "" : (plan.memory_strict ? "strict" : "preferred");
  j["warnings"] = plan.warnings;
  j["notes"] = plan.notes;
  return j;
}

}  // namespace topolab