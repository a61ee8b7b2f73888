#include "orchestrator/planning/placement/placement_policies.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "orchestrator/planning/placement/l3_preference.hpp"

namespace topolab::placement {
namespace {

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
      v.vcpu = vcpu_at(l, {a.group, a.core, th});
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

// "6 cores x 2 threads (threads_per_core=2)": an SMT-infeasible layout names the field to
// change, not only a count that reads like the host's.
std::string group_shape(int cores, int threads) {
  return std::to_string(cores) + " cores x " + std::to_string(threads) +
         (threads == 1 ? " thread" : " threads") + " (threads_per_core=" + std::to_string(threads) +
         ")";
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
    return make_error(ErrorKind::does_not_fit,
                      "SMT requested (threads_per_core=" + std::to_string(l.threads_per_core) +
                          ") but the host has no SMT siblings");
  }
  if (static_cast<int>(best) < l.threads_per_core) {
    return make_error(ErrorKind::does_not_fit,
                      "SMT requested (threads_per_core=" + std::to_string(l.threads_per_core) +
                          ") but host cores" + within(u) + " offer at most " +
                          std::to_string(best) +
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

using CoresByL3 = std::map<int, std::vector<const HostCore*>>;

// The L3 domains that hold a whole group (ids), or why the host cannot hold the layout.
Result<std::vector<int>> fitting_domains(const Layout& l, const UsableHost& u,
                                         const CoresByL3& by_l3) {
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
    return make_error(ErrorKind::does_not_fit, std::to_string(g_count) +
                                                   " L3 groups requested, host offers " +
                                                   std::to_string(by_l3.size()) + " L3 domain" +
                                                   (by_l3.size() == 1 ? "" : "s") + within(u) +
                                                   " (" + list_of(offered) + ")");
  }
  if (fitting.empty()) {
    int largest = *std::max_element(capacities.begin(), capacities.end());
    return make_error(ErrorKind::does_not_fit,
                      "L3 group of " + group_shape(c_count, l.threads_per_core) +
                          " is larger than any host L3 domain" + within(u) +
                          ": the largest offers " + std::to_string(largest) + " whole core" +
                          (largest == 1 ? "" : "s") + " (" + list_of(offered) + ")");
  }
  if (static_cast<int>(fitting.size()) < g_count) {
    return make_error(ErrorKind::does_not_fit,
                      std::to_string(g_count) + " L3 groups of " + std::to_string(c_count) +
                          " cores requested, only " + std::to_string(fitting.size()) +
                          " host L3 domain" + (fitting.size() == 1 ? "" : "s") + within(u) +
                          " hold " + std::to_string(c_count) + " whole cores (" +
                          list_of(fitting_cpus) + ")");
  }
  return fitting;
}

// One fitting domain per group, preferring domains whose NUMA node still holds the group's
// share of the memory.
std::vector<int> choose_domains(const Layout& l, const HostTopology& host,
                                const std::vector<int>& fitting, const CoresByL3& by_l3) {
  const int g_count = l.l3_groups;
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
      int node = by_l3.at(d).front()->node;
      bool known = node_left.count(node) && node_left[node] > 0;
      if (pass == 0 && known && node_left[node] < share_mib) continue;
      if (known) node_left[node] -= std::min(node_left[node], share_mib);
      chosen.push_back(d);
      used.insert(d);
    }
  }
  return chosen;
}

// Two levels: each guest node's groups on fitting domains of one host node of its own that
// holds the node's memory (a memoryless guest node prefers a memoryless host node). nullopt
// when some guest node finds none; the caller then places groups as for one level.
std::optional<std::vector<int>> choose_domains_by_node(const Layout& l, const HostTopology& host,
                                                       const std::vector<int>& fitting,
                                                       const CoresByL3& by_l3) {
  std::map<int, std::vector<int>> free_by_node;  // host node -> its fitting domains, in order
  for (int d : fitting) free_by_node[by_l3.at(d).front()->node].push_back(d);
  std::map<int, const NumaNode*> nodes;
  for (const auto& n : host.numa_nodes) nodes[n.id] = &n;
  // Memory: a host node said to have none holds none; one whose size is unknown (0, not
  // memoryless) is taken to hold the share, as for one level.
  auto holds = [&](int host_node, std::uint64_t need_mib) {
    const NumaNode* n = nodes.count(host_node) ? nodes[host_node] : nullptr;
    if (n && n->memoryless) return false;
    return !n || n->memory_kib == 0 || n->memory_kib / 1024 >= need_mib;
  };
  auto memoryless = [&](int host_node) {
    return nodes.count(host_node) && nodes[host_node]->memoryless;
  };
  const auto sizes = cell_memory_kib(l, l.memory_mib * 1024);
  if (!sizes) return std::nullopt;
  std::vector<int> chosen;
  std::set<int> used;
  for (int n = 0; n < l.numa_nodes; ++n) {
    const std::uint64_t need = (*sizes)[static_cast<std::size_t>(n)] / 1024;
    int pick = -1;
    for (int pass = 0; pass < 2 && pick < 0; ++pass) {
      for (const auto& [host_node, domains] : free_by_node) {
        if (used.count(host_node) || static_cast<int>(domains.size()) < l.groups_per_node())
          continue;
        const bool fits = need > 0 ? holds(host_node, need) : (pass == 1 || memoryless(host_node));
        if (fits) {
          pick = host_node;
          break;
        }
      }
    }
    if (pick < 0) return std::nullopt;
    used.insert(pick);
    const auto& domains = free_by_node[pick];
    chosen.insert(chosen.end(), domains.begin(), domains.begin() + l.groups_per_node());
  }
  return chosen;
}

}  // namespace

Result<PlacementPlan> plan_l3_aligned(const Layout& l, const HostTopology& host,
                                      const UsableHost& u) {
  if (host.l3_domains.empty()) {
    return make_error(
        ErrorKind::does_not_fit,
        "host (" + host.source + ") reports no L3 domains; l3-aligned placement needs them");
  }
  TL_TRY(check_threads(l, host, u));
  auto by_l3 = cores_by_l3(eligible_cores(l, u));
  by_l3.erase(-1);
  TL_ASSIGN(auto fitting, fitting_domains(l, u, by_l3));
  PlacementPlan plan;
  fitting = prefer_larger_l3(host, std::move(fitting), plan.notes);
  std::vector<int> chosen;
  if (auto by_node =
          l.two_level() ? choose_domains_by_node(l, host, fitting, by_l3) : std::nullopt) {
    chosen = std::move(*by_node);
  } else {
    chosen = choose_domains(l, host, fitting, by_l3);
    if (l.two_level())
      plan.notes.push_back(
          "no host NUMA node of its own holds the L3 groups and memory of every "
          "guest node: groups placed on L3 domains in host order");
  }
  note_larger_l3_given_up(l, host, by_l3, chosen, plan.notes);
  std::vector<CoreAssignment> cores;
  for (int g = 0; g < l.l3_groups; ++g) {
    const auto& dom = by_l3[chosen[static_cast<std::size_t>(g)]];
    for (int c = 0; c < l.cores_per_group; ++c) {
      cores.push_back({dom[static_cast<std::size_t>(c)], g, c});
    }
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
    return make_error(ErrorKind::does_not_fit,
                      group_shape(needed, l.threads_per_core) + " requested, host offers " +
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
        {order[static_cast<std::size_t>(i)], core_slot(l, i).group, core_slot(l, i).core});
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
  for (int v = 0; v < l.vcpu_count(); ++v) {
    const VcpuSlot slot = vcpu_slot(l, v);
    plan.vcpus.push_back({v, u.allowed, slot.group, slot.core, slot.thread});
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
  CpuList seen;
  for (int v = 0; v < l.vcpu_count(); ++v) {
    const CpuList& cpus = l.explicit_cpus[static_cast<std::size_t>(v)];
    const std::string what = "explicit: vCPU " + std::to_string(v) + " (" + cpus.to_string() + ")";
    if (!cpus.is_subset_of(online)) {
      return make_error(ErrorKind::does_not_fit,
                        what + " names CPUs " + cpus.minus(online).to_string() +
                            " that are not online on the host (online " + online.to_string() + ")");
    }
    if (l.host_cpus && !cpus.is_subset_of(*l.host_cpus)) {
      return make_error(ErrorKind::input,
                        what + " is outside host_cpus " + l.host_cpus->to_string());
    }
    if (l.housekeeping_cpus && cpus.intersects(*l.housekeeping_cpus)) {
      return make_error(ErrorKind::input,
                        what + " overlaps housekeeping_cpus " + l.housekeeping_cpus->to_string());
    }
    if (cpus.intersects(seen)) {
      plan.warnings.push_back(what + " shares CPUs " + cpus.intersected(seen).to_string() +
                              " with another vCPU");
    }
    seen = seen.united(cpus);
    const VcpuSlot slot = vcpu_slot(l, v);
    plan.vcpus.push_back({v, cpus, slot.group, slot.core, slot.thread});
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

}  // namespace topolab::placement
