#include "host/topology_builder.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <utility>

#include "common/terminal_text.hpp"

namespace topolab {
namespace {

// Union-find over CPU positions: SMT sibling relations may be partial or asymmetric in junk
// input, so a core is the connected component rather than any single CPU's sibling list.
class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n) : parent_(n) {
    std::iota(parent_.begin(), parent_.end(), std::size_t{0});
  }
  std::size_t find(std::size_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void unite(std::size_t a, std::size_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<std::size_t> parent_;
};

void assign_cores(HostTopology& topo, const std::vector<RawCpu>& raw, const CpuList& online) {
  std::map<int, std::size_t> pos;
  for (std::size_t i = 0; i < topo.cpus.size(); ++i) pos[topo.cpus[i].id] = i;
  DisjointSets sets(topo.cpus.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (!raw[i].online) continue;
    for (int s : raw[i].siblings.intersected(online)) sets.unite(i, pos[s]);
  }
  // Components in order of their first CPU (the root is the smallest position).
  std::map<std::size_t, std::vector<int>> members;
  for (std::size_t i = 0; i < topo.cpus.size(); ++i) {
    if (topo.cpus[i].online) members[sets.find(i)].push_back(topo.cpus[i].id);
  }
  int core = 0;
  for (auto& [root, ids] : members) {
    CpuList siblings = CpuList::from_vector(ids);
    for (int id : ids) {
      auto& c = topo.cpus[pos[id]];
      c.core = core;
      c.siblings = siblings;
    }
    ++core;
  }
}

void assign_packages_and_dies(HostTopology& topo, const std::vector<RawCpu>& raw) {
  std::map<int, std::vector<int>> packages;
  std::map<std::pair<int, int>, std::vector<int>> dies;
  for (const auto& r : raw) {
    if (!r.online) continue;
    packages[r.package].push_back(r.id);
    dies[{r.package, r.die_id}].push_back(r.id);
  }
  for (auto& [id, ids] : packages) topo.packages.push_back({id, CpuList::from_vector(ids)});
  std::map<std::pair<int, int>, int> die_index;
  for (auto& [key, ids] : dies) {
    int index = static_cast<int>(topo.dies.size());
    die_index[key] = index;
    topo.dies.push_back({index, key.first, key.second, CpuList::from_vector(ids)});
  }
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (!raw[i].online) continue;
    topo.cpus[i].package = raw[i].package;
    topo.cpus[i].die = die_index[{raw[i].package, raw[i].die_id}];
  }
}

void assign_l3(HostTopology& topo, const std::vector<RawCache>& raw, const CpuList& online) {
  std::map<CpuList, std::uint64_t> domains;  // CpuList orders by first CPU, then the rest
  for (const auto& cache : raw) {
    CpuList cpus = cache.cpus.intersected(online);
    if (cpus.empty()) continue;
    auto [it, inserted] = domains.emplace(cpus, cache.size_kib);
    if (!inserted) it->second = std::max(it->second, cache.size_kib);
  }
  for (auto& [cpus, size] : domains) {
    topo.l3_domains.push_back({static_cast<int>(topo.l3_domains.size()), cpus, size});
  }
  // Overlapping (non-identical) sets only come from junk: the first domain wins.
  for (auto& c : topo.cpus) {
    if (!c.online) continue;
    for (const auto& d : topo.l3_domains) {
      if (d.cpus.contains(c.id)) {
        c.l3 = d.id;
        break;
      }
    }
  }
}

void assign_nodes(HostTopology& topo, std::vector<NumaNode> nodes, const CpuList& online) {
  std::sort(nodes.begin(), nodes.end(),
            [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
  for (auto& n : nodes) {
    n.cpus = n.cpus.intersected(online);
    topo.numa_nodes.push_back(std::move(n));
  }
  for (auto& c : topo.cpus) {
    if (!c.online) continue;
    for (const auto& n : topo.numa_nodes) {
      if (n.cpus.contains(c.id)) {
        c.node = n.id;
        break;
      }
    }
  }
}

Error size_error(const std::string& what, std::uint64_t kib, std::uint64_t max_kib) {
  return make_error(ErrorKind::input, what + " of " + std::to_string(kib) +
                                          " KiB is beyond the limit of " + std::to_string(max_kib) +
                                          " KiB (junk or a wrapped number)");
}

// One place for the bounds of every source's sizes and ids, checked before anything is derived.
Result<void> check_bounds(const RawTopology& raw) {
  std::set<int> node_ids;
  for (const auto& n : raw.numa_nodes) {
    const std::string node = "NUMA node " + std::to_string(n.id);
    if (n.id < 0 || n.id > kMaxSourceId)
      return make_error(ErrorKind::input, node + ": id outside 0.." + std::to_string(kMaxSourceId));
    if (!node_ids.insert(n.id).second) return make_error(ErrorKind::input, node + " listed twice");
    if (n.memory_kib > kMaxNodeMemoryKib)
      return size_error(node + ": memory", n.memory_kib, kMaxNodeMemoryKib);
    for (const auto& p : n.hugepages) {
      if (p.page_kib > kMaxHugepageKib)
        return size_error(node + ": hugepage size", p.page_kib, kMaxHugepageKib);
      if (p.page_kib != 0 && p.total > kMaxNodeMemoryKib / p.page_kib)
        return size_error(node + ": hugepage pool (" + std::to_string(p.total) + " pages)",
                          kMaxNodeMemoryKib + 1, kMaxNodeMemoryKib);
    }
  }
  for (const auto& c : raw.l3)
    if (c.size_kib > kMaxL3Kib) return size_error("an L3 cache", c.size_kib, kMaxL3Kib);
  for (const auto& c : raw.cpus)
    if (c.online && (c.package > kMaxSourceId || c.die_id > kMaxSourceId || c.die_id < -1))
      return make_error(ErrorKind::input, "CPU " + std::to_string(c.id) +
                                              ": package or die id outside -1.." +
                                              std::to_string(kMaxSourceId));
  return {};
}

}  // namespace

Error one_line(const Error& error) {
  constexpr std::size_t kMaxMessage = 480;
  std::string msg = error.message.size() > kMaxMessage
                        ? error.message.substr(0, kMaxMessage) + "..."
                        : error.message;
  for (char& ch : msg) {
    auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u == 0x7f) ch = '?';
  }
  return Error{msg, error.kind};
}

Result<HostTopology> build_topology(RawTopology raw) {
  if (raw.cpus.empty()) return make_error(ErrorKind::input, "no CPUs found");
  if (raw.cpus.size() > static_cast<std::size_t>(kMaxTopologyCpus)) {
    return make_error(ErrorKind::input, "too many CPUs (" + std::to_string(raw.cpus.size()) +
                                            ", limit " + std::to_string(kMaxTopologyCpus) + ")");
  }
  std::sort(raw.cpus.begin(), raw.cpus.end(),
            [](const RawCpu& a, const RawCpu& b) { return a.id < b.id; });
  // Ids index per-CPU tables and are written back as CPU lists: the same bound as the lists.
  if (raw.cpus.front().id < 0 || raw.cpus.back().id >= kMaxCpuIds) {
    int bad = raw.cpus.front().id < 0 ? raw.cpus.front().id : raw.cpus.back().id;
    return make_error(ErrorKind::input, "CPU id " + std::to_string(bad) + " is outside 0.." +
                                            std::to_string(kMaxCpuIds - 1));
  }
  for (std::size_t i = 1; i < raw.cpus.size(); ++i) {
    if (raw.cpus[i].id == raw.cpus[i - 1].id) {
      return make_error(ErrorKind::input,
                        "CPU " + std::to_string(raw.cpus[i].id) + " listed twice");
    }
  }
  TL_TRY(check_bounds(raw));
  HostTopology topo;
  std::vector<int> online_ids;
  for (const auto& r : raw.cpus) {
    CpuInfo c;
    c.id = r.id;
    c.online = r.online;
    topo.cpus.push_back(c);
    if (r.online) online_ids.push_back(r.id);
  }
  CpuList online = CpuList::from_vector(std::move(online_ids));
  assign_cores(topo, raw.cpus, online);
  assign_packages_and_dies(topo, raw.cpus);
  assign_l3(topo, raw.l3, online);
  assign_nodes(topo, std::move(raw.numa_nodes), online);
  topo.isolated = raw.isolated;
  // Text from a file or a guest (cpuinfo, a capabilities <model>, a tree's path): an escape
  // sequence reached terminals raw, invalid UTF-8 ended every --json with exit 70.
  topo.vendor = display_text(raw.vendor, kMaxTopologyTextBytes);
  topo.model = display_text(raw.model, kMaxTopologyTextBytes);
  topo.source = display_text(raw.source, kMaxTopologyTextBytes);
  return topo;
}

}  // namespace topolab
