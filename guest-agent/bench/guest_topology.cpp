#include "guest-agent/bench/guest_topology.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "common/file_io.hpp"

namespace topolab::bench {
namespace {

namespace fs = std::filesystem;

int read_int(const fs::path& p, int fallback) {
  auto text = read_attribute(p);
  if (!text) return fallback;
  try {
    return std::stoi(*text);
  } catch (...) {
    return fallback;
  }
}

CpuList read_list(const fs::path& p) {
  auto text = read_attribute(p);
  if (!text) return {};
  auto list = CpuList::parse(*text);
  return list ? *list : CpuList{};
}

std::uint64_t read_size_kib(const fs::path& p) {
  auto text = read_attribute(p);  // "32768K"
  if (!text) return 0;
  try {
    std::uint64_t v = std::stoull(*text);
    if (!text->empty() && text->back() == 'M') v *= 1024;
    return v;
  } catch (...) {
    return 0;
  }
}

}  // namespace

std::string pair_class(const HostTopology* topo, int a, int b) {
  const CpuInfo* ca = topo ? topo->cpu(a) : nullptr;
  const CpuInfo* cb = topo ? topo->cpu(b) : nullptr;
  if (!ca || !cb) return "unknown";
  if (ca->siblings.contains(b) || (ca->core >= 0 && ca->core == cb->core)) return "smt";
  if (ca->package != cb->package) return "other_package";
  if (ca->l3 >= 0 && ca->l3 == cb->l3) return "same_l3";
  return "other_l3";
}

HostTopology read_local_topology(const std::string& root) {
  fs::path cpu_dir = fs::path(root) / "sys/devices/system/cpu";
  HostTopology topo;
  topo.source = "sysfs:" + root;
  CpuList possible = read_list(cpu_dir / "possible");
  CpuList online = read_list(cpu_dir / "online");
  if (possible.empty()) possible = online;
  std::map<CpuList, int> cores, l3s;
  std::map<std::pair<int, int>, int> dies;
  for (int id : possible) {
    fs::path dir = cpu_dir / ("cpu" + std::to_string(id));
    if (!fs::exists(dir)) continue;
    CpuInfo c;
    c.id = id;
    c.online = online.empty() || online.contains(id);
    c.package = read_int(dir / "topology/physical_package_id", 0);
    int die_id = read_int(dir / "topology/die_id", 0);
    auto [die_it, new_die] = dies.try_emplace({c.package, die_id}, static_cast<int>(dies.size()));
    c.die = die_it->second;
    c.siblings = read_list(dir / "topology/thread_siblings_list");
    if (c.siblings.empty()) c.siblings = CpuList{id};
    auto [core_it, new_core] = cores.try_emplace(c.siblings, static_cast<int>(cores.size()));
    c.core = core_it->second;
    CpuList l3 = read_list(dir / "cache/index3/shared_cpu_list");
    if (!l3.empty()) {
      auto [l3_it, new_l3] = l3s.try_emplace(l3, static_cast<int>(topo.l3_domains.size()));
      if (new_l3) {
        topo.l3_domains.push_back({l3_it->second, l3, read_size_kib(dir / "cache/index3/size")});
      }
      c.l3 = l3_it->second;
    }
    topo.cpus.push_back(c);
  }
  for (const auto& [key, index] : dies) {
    Die d{index, key.first, key.second, {}};
    for (const auto& c : topo.cpus) {
      if (c.die == index) d.cpus.insert(c.id);
    }
    topo.dies.push_back(d);
  }
  std::sort(topo.dies.begin(), topo.dies.end(), [](auto& a, auto& b) { return a.id < b.id; });
  std::map<int, CpuList> packages;
  for (const auto& c : topo.cpus) packages[c.package].insert(c.id);
  for (const auto& [id, cpus] : packages) topo.packages.push_back({id, cpus});
  fs::path node_dir = fs::path(root) / "sys/devices/system/node";
  for (int id : read_list(node_dir / "online")) {
    NumaNode n;
    n.id = id;
    n.cpus = read_list(node_dir / ("node" + std::to_string(id)) / "cpulist");
    for (int cpu : n.cpus) {
      auto it = std::find_if(topo.cpus.begin(), topo.cpus.end(),
                             [&](const CpuInfo& c) { return c.id == cpu; });
      if (it != topo.cpus.end()) it->node = id;
    }
    topo.numa_nodes.push_back(n);
  }
  return topo;
}

const HostTopology* context_topology(const BenchContext& ctx, HostTopology& storage) {
  if (ctx.topology) return ctx.topology;
  storage = read_local_topology("/");
  return storage.cpus.empty() ? nullptr : &storage;
}

nlohmann::json topology_json(const HostTopology& topo) {
  using nlohmann::json;
  json cpus = json::array();
  for (const auto& c : topo.cpus) {
    cpus.push_back({{"id", c.id},
                    {"online", c.online},
                    {"package", c.package},
                    {"die", c.die},
                    {"core", c.core},
                    {"l3", c.l3},
                    {"node", c.node},
                    {"siblings", c.siblings.to_string()}});
  }
  json packages = json::array(), dies = json::array(), l3 = json::array(), nodes = json::array();
  for (const auto& p : topo.packages)
    packages.push_back({{"id", p.id}, {"cpus", p.cpus.to_string()}});
  for (const auto& d : topo.dies) {
    dies.push_back({{"id", d.id}, {"package", d.package}, {"cpus", d.cpus.to_string()}});
  }
  for (const auto& d : topo.l3_domains) {
    l3.push_back({{"id", d.id}, {"cpus", d.cpus.to_string()}, {"size_kib", d.size_kib}});
  }
  for (const auto& n : topo.numa_nodes) {
    nodes.push_back({{"id", n.id}, {"cpus", n.cpus.to_string()}, {"memory_kib", n.memory_kib}});
  }
  return {{"cpus", cpus},          {"packages", packages}, {"dies", dies},
          {"l3_domains", l3},      {"numa_nodes", nodes},  {"isolated", topo.isolated.to_string()},
          {"vendor", topo.vendor}, {"model", topo.model}};
}

}  // namespace topolab::bench
