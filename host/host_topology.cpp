#include "host/host_topology.hpp"

#include <algorithm>

namespace topolab {

CpuList HostTopology::online_cpus() const {
  std::vector<int> ids;
  for (const auto& c : cpus) {
    if (c.online) ids.push_back(c.id);
  }
  return CpuList::from_vector(std::move(ids));
}

CpuList HostTopology::all_cpus() const {
  std::vector<int> ids;
  for (const auto& c : cpus) ids.push_back(c.id);
  return CpuList::from_vector(std::move(ids));
}

const CpuInfo* HostTopology::cpu(int id) const {
  auto it = std::lower_bound(cpus.begin(), cpus.end(), id,
                             [](const CpuInfo& c, int v) { return c.id < v; });
  return it != cpus.end() && it->id == id ? &*it : nullptr;
}

std::vector<CpuList> HostTopology::cores() const {
  int max_core = -1;
  for (const auto& c : cpus) max_core = std::max(max_core, c.core);
  std::vector<std::vector<int>> members(static_cast<std::size_t>(max_core + 1));
  for (const auto& c : cpus) {
    if (c.online && c.core >= 0) members[static_cast<std::size_t>(c.core)].push_back(c.id);
  }
  std::vector<CpuList> out;
  for (auto& m : members) {
    if (!m.empty()) out.push_back(CpuList::from_vector(std::move(m)));
  }
  return out;
}

bool HostTopology::has_smt() const {
  return std::any_of(cpus.begin(), cpus.end(),
                     [](const CpuInfo& c) { return c.online && c.siblings.size() > 1; });
}

}  // namespace topolab
