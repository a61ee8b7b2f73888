#include "orchestrator/placement/placement_plan.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "orchestrator/placement/host_cores.hpp"

namespace topolab {
namespace {

using placement::HostCore;
using placement::UsableHost;

// "8-11, 12-15"; "; " between lists that contain commas themselves; at most 8 shown.
std::string list_of(const std::vector<CpuList>& lists) {
  bool commas = false;
  for (const auto& l : lists) commas = commas || l.to_string().find(',') != std::string::npos;
  std::string out;
  for (std::size_t i = 0; i < lists.size() && i < 8; ++i) {
    out += (i ? (commas ? "; " : ", ") : "") + lists[i].to_string();
  }
  if (lists.size() > 8) out += "; ... " + std::to_string(lists.size()) + " in all";
  return out;
}

std::string within(const UsableHost& u) {
  return u.allowed_text.empty() ? "" : " " + u.allowed_text;
}

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

// A guest core's place: the host core and the guest group/core index.
struct CoreAssignment {
  const HostCore* host = nullptr;
  int group = 0;
  int core = 0;
};

// Fills vcpus/groups from one host core per guest core (threads from the core's siblings).
void fill_pinned(const Layout& l, const HostTopology& host,
                 const std::vector<CoreAssignment>& cores, PlacementPlan& plan) {
  const int t = l.threads_per_core;
  plan.groups.resize(static_cast<std::size_t>(l.l3_groups));
  for (int g = 0; g < l.l3_groups; ++g) plan.groups[static_cast<std::size_t>(g)].group = g;
  std::vector<std::set<int>> group_l3(plan.groups.size()), group_nodes(plan.groups.size());
  for (const auto& a : cores) {
    for (int th = 0; th < t; ++th) {
      VcpuPlacement v;
      v.vcpu = (a.group * l.cores_per_group + a.core) * t + th;
      v.host_cpus = CpuList{a.host->cpus.ids()[static_cast<std::size_t>(th)]};
      v.group = a.group;
      v.core = a.core;
      v.thread = th;
      plan.vcpus.push_back(v);
      auto& g = plan.groups[static_cast<std::size_t>(a.group)];
      g.host_cpus = g.host_cpus.united(v.host_cpus);
      const CpuInfo* info = host.cpu(v.host_cpus.first());
      group_l3[static_cast<std::size_t>(a.group)].insert(info ? info->l3 : -1);
      group_nodes[static_cast<std::size_t>(a.group)].insert(info ? info->node : -1);
    }
  }
  std::sort(plan.vcpus.begin(), plan.vcpus.end(),
            [](const VcpuPlacement& a, const VcpuPlacement& b) { return a.vcpu < b.vcpu; });
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    plan.groups[g].host_l3 = group_l3[g].size() == 1 ? *group_l3[g].begin() : -1;
    plan.groups[g].host_node = group_nodes[g].size() == 1 ? *group_nodes[g].begin() : -1;
  }
}

// Host cores that can carry one guest core (enough usable siblings).
std::vector<const HostCore*> eligible_cores(const Layout& l, const UsableHost& u) {
  std::vector<const HostCore*> out;
  for (const auto& c : u.cores) {
    if (static_cast<int>(c.cpus.size()) >= l.threads_per_core) out.push_back(&c);
  }
  return out;
}

Result<void> check_threads(const Layout& l, const HostTopology& host, const UsableHost& u) {
  if (l.threads_per_core <= 1) return {};
  std::size_t best = 0;
  for (const auto& c : u.cores) best = std::max(best, c.cpus.size());
  if (!host.has_smt()) {
    return make_error("SMT requested (threads_per_core=" + std::to_string(l.threads_per_core) +
                      ") but the host has no SMT siblings");
  }
  if (static_cast<int>(best) < l.threads_per_core) {
    return make_error("SMT requested (threads_per_core=" + std::to_string(l.threads_per_core) +
                      ") but host cores" + within(u) + " offer at most " + std::to_string(best) +
                      " usable thread(s) each (siblings outside the allowed CPUs?)");
  }
  return {};
}

// Domains ordered by id with their eligible cores (first CPU order).
std::map<int, std::vector<const HostCore*>> cores_by_l3(const std::vector<const HostCore*>& cs) {
  std::map<int, std::vector<const HostCore*>> out;
  for (const auto* c : cs) out[c->l3].push_back(c);
  return out;
}

CpuList cpus_of(const std::vector<const HostCore*>& cs) {
  CpuList out;
  for (const auto* c : cs) out = out.united(c->cpus);
  return out;
}

Result<PlacementPlan> plan_l3_aligned(const Layout& l, const HostTopology& host,
                                      const UsableHost& u) {
  if (host.l3_domains.empty()) {
    return make_error("host (" + host.source +
                      ") reports no L3 domains; l3-aligned placement needs them");
  }
  TL_TRY(check_threads(l, host, u));
  auto by_l3 = cores_by_l3(eligible_cores(l, u));
  by_l3.erase(-1);
  const int g_count = l.l3_groups, c_count = l.cores_per_group;
  std::vector<int> fitting;
  std::vector<CpuList> offered, fitting_cpus;
  std::vector<int> capacities;
  for (const auto& [d, cores] : by_l3) {
    offered.push_back(cpus_of(cores));
    capacities.push_back(static_cast<int>(cores.size()));
    if (static_cast<int>(cores.size()) >= c_count) {
      fitting.push_back(d);
      fitting_cpus.push_back(cpus_of(cores));
    }
  }
  if (static_cast<int>(by_l3.size()) < g_count) {
    return make_error(std::to_string(g_count) + " L3 groups requested, host offers " +
                      std::to_string(by_l3.size()) + " L3 domain" + (by_l3.size() == 1 ? "" : "s") +
                      within(u) + " (" + list_of(offered) + ")");
  }
  if (fitting.empty()) {
    int largest = *std::max_element(capacities.begin(), capacities.end());
    return make_error("L3 group of " + std::to_string(c_count) + " cores x " +
                      std::to_string(l.threads_per_core) +
                      " threads is larger than any host L3 domain" + within(u) +
                      ": the largest offers " + std::to_string(largest) + " whole core" +
                      (largest == 1 ? "" : "s") + " (" + list_of(offered) + ")");
  }
  if (static_cast<int>(fitting.size()) < g_count) {
    return make_error(std::to_string(g_count) + " L3 groups of " + std::to_string(c_count) +
                      " cores requested, only " + std::to_string(fitting.size()) +
                      " host L3 domain" + (fitting.size() == 1 ? "" : "s") + within(u) + " hold " +
                      std::to_string(c_count) + " whole cores (" + list_of(fitting_cpus) + ")");
  }

  // Prefer domains whose NUMA node still holds the group's share of the memory.
  const std::uint64_t share_mib = (l.memory_mib + static_cast<std::uint64_t>(g_count) - 1) /
                                  static_cast<std::uint64_t>(g_count);
  std::map<int, std::uint64_t> node_left;
  for (const auto& n : host.numa_nodes) node_left[n.id] = n.memory_kib / 1024;
  std::vector<int> chosen;
  std::set<int> used;
  for (int pass = 0; pass < 2 && static_cast<int>(chosen.size()) < g_count; ++pass) {
    for (int d : fitting) {
      if (static_cast<int>(chosen.size()) == g_count) break;
      if (used.count(d)) continue;
      int node = by_l3[d].front()->node;
      bool known = node_left.count(node) && node_left[node] > 0;
      if (pass == 0 && known && node_left[node] < share_mib) continue;
      if (known) node_left[node] -= std::min(node_left[node], share_mib);
      chosen.push_back(d);
      used.insert(d);
    }
  }
  PlacementPlan plan;
  std::vector<CoreAssignment> cores;
  for (int g = 0; g < g_count; ++g) {
    const auto& dom = by_l3[chosen[static_cast<std::size_t>(g)]];
    for (int c = 0; c < c_count; ++c) cores.push_back({dom[static_cast<std::size_t>(c)], g, c});
  }
  fill_pinned(l, host, cores, plan);
  return plan;
}

Result<PlacementPlan> plan_compact_or_scatter(const Layout& l, const HostTopology& host,
                                              const UsableHost& u, bool scatter) {
  TL_TRY(check_threads(l, host, u));
  auto eligible = eligible_cores(l, u);
  const int needed = l.cores_total();
  if (static_cast<int>(eligible.size()) < needed) {
    return make_error(std::to_string(needed) + " guest cores x " +
                      std::to_string(l.threads_per_core) + " threads requested, host offers " +
                      std::to_string(eligible.size()) + " whole core" +
                      (eligible.size() == 1 ? "" : "s") + " with " +
                      std::to_string(l.threads_per_core) + " usable thread(s)" + within(u));
  }
  // "Fill domains in order": by L3 domain, then first CPU.
  auto by_l3 = cores_by_l3(eligible);
  std::vector<const HostCore*> order;
  PlacementPlan plan;
  if (!scatter) {
    for (auto& [d, cs] : by_l3) order.insert(order.end(), cs.begin(), cs.end());
  } else {
    // Round-robin over domains so consecutive guest cores of a group land on different L3s.
    std::vector<std::vector<const HostCore*>> queues;
    for (auto& [d, cs] : by_l3) queues.push_back(cs);
    if (queues.size() < 2) {
      plan.warnings.push_back("scatter: the host offers only one L3 domain" + within(u) +
                              "; placement equals compact");
    }
    std::vector<std::size_t> next(queues.size(), 0);
    while (static_cast<int>(order.size()) < needed) {
      for (std::size_t q = 0; q < queues.size() && static_cast<int>(order.size()) < needed; ++q) {
        if (next[q] < queues[q].size()) order.push_back(queues[q][next[q]++]);
      }
    }
  }
  std::vector<CoreAssignment> cores;
  for (int i = 0; i < needed; ++i) {
    cores.push_back(
        {order[static_cast<std::size_t>(i)], i / l.cores_per_group, i % l.cores_per_group});
  }
  fill_pinned(l, host, cores, plan);
  for (const auto& g : plan.groups) {
    if (g.host_l3 < 0 && !scatter && !host.l3_domains.empty()) {
      plan.warnings.push_back("compact: group " + std::to_string(g.group) + " (" +
                              g.host_cpus.to_string() + ") spans several host L3 domains");
    }
  }
  return plan;
}

Result<PlacementPlan> plan_unpinned(const Layout& l, const UsableHost& u) {
  PlacementPlan plan;
  plan.pinned = false;
  const int t = l.threads_per_core;
  for (int v = 0; v < l.vcpu_count(); ++v) {
    plan.vcpus.push_back(
        {v, u.allowed, v / (l.cores_per_group * t), (v / t) % l.cores_per_group, v % t});
  }
  for (int g = 0; g < l.l3_groups; ++g) plan.groups.push_back({g, -1, u.allowed, -1});
  if (l.vcpu_count() > static_cast<int>(u.allowed.size())) {
    plan.warnings.push_back(std::to_string(l.vcpu_count()) + " vCPUs float over " +
                            std::to_string(u.allowed.size()) + " host CPU" +
                            (u.allowed.size() == 1 ? "" : "s") + " (" + u.allowed.to_string() +
                            "): overcommitted, timings will not reflect the layout");
  }
  return plan;
}

Result<PlacementPlan> plan_explicit(const Layout& l, const HostTopology& host,
                                    const UsableHost& u) {
  PlacementPlan plan;
  const CpuList online = host.online_cpus();
  const int t = l.threads_per_core;
  CpuList seen;
  for (int v = 0; v < l.vcpu_count(); ++v) {
    const CpuList& cpus = l.explicit_cpus[static_cast<std::size_t>(v)];
    const std::string what = "explicit: vCPU " + std::to_string(v) + " (" + cpus.to_string() + ")";
    if (!cpus.is_subset_of(online)) {
      return make_error(what + " names CPUs " + cpus.minus(online).to_string() +
                        " that are not online on the host (online " + online.to_string() + ")");
    }
    if (l.host_cpus && !cpus.is_subset_of(*l.host_cpus)) {
      return make_error(what + " is outside host_cpus " + l.host_cpus->to_string());
    }
    if (l.housekeeping_cpus && cpus.intersects(*l.housekeeping_cpus)) {
      return make_error(what + " overlaps housekeeping_cpus " + l.housekeeping_cpus->to_string());
    }
    if (cpus.intersects(seen)) {
      plan.warnings.push_back(what + " shares CPUs " + cpus.intersected(seen).to_string() +
                              " with another vCPU");
    }
    seen = seen.united(cpus);
    plan.vcpus.push_back(
        {v, cpus, v / (l.cores_per_group * t), (v / t) % l.cores_per_group, v % t});
  }
  (void)u;
  plan.groups.resize(static_cast<std::size_t>(l.l3_groups));
  for (int g = 0; g < l.l3_groups; ++g) {
    auto& gp = plan.groups[static_cast<std::size_t>(g)];
    gp.group = g;
    std::set<int> l3s, nodes;
    for (const auto& v : plan.vcpus) {
      if (v.group != g) continue;
      gp.host_cpus = gp.host_cpus.united(v.host_cpus);
      for (int c : v.host_cpus) {
        const CpuInfo* info = host.cpu(c);
        l3s.insert(info ? info->l3 : -1);
        nodes.insert(info ? info->node : -1);
      }
    }
    gp.host_l3 = l3s.size() == 1 ? *l3s.begin() : -1;
    gp.host_node = nodes.size() == 1 ? *nodes.begin() : -1;
    if (l3s.size() > 1) {
      plan.warnings.push_back("explicit: group " + std::to_string(g) + " (" +
                              gp.host_cpus.to_string() + ") spans several host L3 domains");
    }
  }
  return plan;
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
    all_known = all_known && n.memory_kib > 0;
  }
  if (all_known && l.memory_mib > host_total) {
    return make_error("guest memory " + std::to_string(l.memory_mib) +
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
  if (l.expose == Exposure::kNuma) {
    const std::uint64_t share = l.memory_mib / static_cast<std::uint64_t>(l.l3_groups);
    std::map<int, std::uint64_t> need;
    for (const auto& g : plan.groups) {
      if (g.host_node >= 0) need[g.host_node] += share;
    }
    for (const auto& [node, mib] : need) {
      std::uint64_t have = node_memory_mib(host, node);
      if (have > 0 && mib > have) {
        return make_error("guest NUMA cells on host node " + std::to_string(node) + " need " +
                          std::to_string(mib) + " MiB, the node holds " + std::to_string(have) +
                          " MiB (memory larger than the node)");
      }
    }
  }
  std::uint64_t have = 0;
  bool known = true;
  for (int n : nodes) {
    std::uint64_t m = node_memory_mib(host, n);
    known = known && m > 0;
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

Result<PlacementPlan> plan_once(const Layout& l, const HostTopology& host) {
  TL_TRY(validate_layout(l));
  const GuestTopology topo = guest_topology_for(l);
  if (topo.vcpus() != l.vcpu_count()) {
    return make_error("announced topology " + std::to_string(topo.sockets) + " sockets x " +
                      std::to_string(topo.dies) + " dies x " + std::to_string(topo.cores) +
                      " cores x " + std::to_string(topo.threads) +
                      " threads = " + std::to_string(topo.vcpus()) +
                      " differs from the vCPU count " + std::to_string(l.vcpu_count()));
  }
  auto usable = placement::usable_host(l, host);
  if (!usable) return usable.error();
  Result<PlacementPlan> plan = make_error("unknown policy");
  switch (l.policy) {
    case PlacementPolicy::kL3Aligned:
      plan = plan_l3_aligned(l, host, *usable);
      break;
    case PlacementPolicy::kCompact:
      plan = plan_compact_or_scatter(l, host, *usable, false);
      break;
    case PlacementPolicy::kScatter:
      plan = plan_compact_or_scatter(l, host, *usable, true);
      break;
    case PlacementPolicy::kUnpinned:
      plan = plan_unpinned(l, *usable);
      break;
    case PlacementPolicy::kExplicit:
      plan = plan_explicit(l, host, *usable);
      break;
  }
  if (!plan) return plan.error();
  plan->topology = topo;
  plan->warnings.insert(plan->warnings.begin(), usable->warnings.begin(), usable->warnings.end());
  place_emulator(l, host, *usable, *plan);
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

GuestTopology guest_topology_for(const Layout& l) {
  GuestTopology t;
  t.threads = l.threads_per_core;
  switch (l.expose) {
    case Exposure::kFlat:
    case Exposure::kNuma:
      t.cores = l.l3_groups * l.cores_per_group;
      break;
    case Exposure::kSockets:
      t.sockets = l.l3_groups, t.cores = l.cores_per_group;
      break;
    case Exposure::kDies:
      t.dies = l.l3_groups, t.cores = l.cores_per_group;
      break;
  }
  return t;
}

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
      return make_error(plan.error().message + "; nearest feasible: " + text);
    }
  }
  if (layout.policy == PlacementPolicy::kL3Aligned) {
    Layout alt = layout;
    alt.policy = PlacementPolicy::kCompact;
    if (plan_once(alt, host)) {
      return make_error(plan.error().message +
                        "; nearest feasible: policy compact (--policy "
                        "compact, groups not L3-aligned)");
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
