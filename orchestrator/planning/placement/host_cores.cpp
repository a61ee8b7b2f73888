#include "orchestrator/planning/placement/host_cores.hpp"

#include <algorithm>
#include <map>

namespace topolab::placement {

namespace {

// The CPUs placement.host_cpus leaves usable (its online ones), said in `out`; refused when it
// names CPUs this host does not have.
Result<CpuList> within_host_cpus(const Layout& layout, const CpuList& all, const CpuList& online,
                                 UsableHost& out) {
  if (!layout.host_cpus) return online;
  CpuList unknown = layout.host_cpus->minus(all);
  if (!unknown.empty()) {
    return make_error(ErrorKind::does_not_fit,
                      "placement.host_cpus " + layout.host_cpus->to_string() + " names CPUs " +
                          unknown.to_string() + " the host does not have (host CPUs " +
                          all.to_string() + ")");
  }
  CpuList offline = layout.host_cpus->minus(online);
  if (!offline.empty()) {
    out.warnings.push_back("host_cpus " + layout.host_cpus->to_string() + ": CPUs " +
                           offline.to_string() + " are offline and left out");
  }
  out.allowed_text = "within " + layout.host_cpus->to_string();
  return layout.host_cpus->intersected(online);
}

// `wanted` without placement.housekeeping_cpus, which must exist and have an online CPU.
Result<CpuList> outside_housekeeping(const Layout& layout, const CpuList& all,
                                     const CpuList& online, const CpuList& wanted,
                                     UsableHost& out) {
  if (!layout.housekeeping_cpus) return wanted;
  CpuList unknown = layout.housekeeping_cpus->minus(all);
  if (!unknown.empty()) {
    return make_error(ErrorKind::does_not_fit,
                      "placement.housekeeping_cpus " + layout.housekeeping_cpus->to_string() +
                          " names CPUs " + unknown.to_string() +
                          " the host does not have (host CPUs " + all.to_string() + ")");
  }
  if (layout.housekeeping_cpus->intersected(online).empty()) {
    return make_error(ErrorKind::does_not_fit, "placement.housekeeping_cpus " +
                                                   layout.housekeeping_cpus->to_string() +
                                                   ": no CPU of it is online");
  }
  if (out.allowed_text.empty()) {
    out.allowed_text = "outside housekeeping " + layout.housekeeping_cpus->to_string();
  }
  return wanted.minus(*layout.housekeeping_cpus);
}

// The online host cores holding a wanted CPU, in CPU order. Grouped by the host's core index;
// CPUs without one are cores of their own.
std::vector<HostCore> cores_of(const HostTopology& host, const CpuList& wanted) {
  std::map<int, HostCore> by_core;
  int synthetic = -2;
  for (const auto& c : host.cpus) {
    if (!c.online) continue;
    int key = c.core >= 0 ? c.core : synthetic--;
    auto& core = by_core[key];
    core.all.insert(c.id);
    if (wanted.contains(c.id)) {
      core.cpus.insert(c.id);
      if (core.l3 < 0) core.l3 = c.l3;
      if (core.node < 0) core.node = c.node;
      if (core.package < 0) core.package = c.package;
    }
  }
  std::vector<HostCore> cores;
  for (auto& [key, core] : by_core) {
    if (!core.cpus.empty()) cores.push_back(core);
  }
  std::sort(cores.begin(), cores.end(),
            [](const HostCore& a, const HostCore& b) { return a.cpus.first() < b.cpus.first(); });
  return cores;
}

}  // namespace

Result<UsableHost> usable_host(const Layout& layout, const HostTopology& host) {
  UsableHost out;
  const CpuList all = host.all_cpus();
  const CpuList online = host.online_cpus();
  if (online.empty())
    return make_error(ErrorKind::does_not_fit,
                      "host topology (" + host.source + ") has no online CPUs");
  TL_ASSIGN(CpuList within, within_host_cpus(layout, all, online, out));
  TL_ASSIGN(CpuList wanted, outside_housekeeping(layout, all, online, within, out));
  if (wanted.empty()) {
    return make_error(ErrorKind::does_not_fit, "no usable host CPUs " + out.allowed_text +
                                                   " (online " + online.to_string() + ")");
  }
  out.allowed = wanted;
  out.cores = cores_of(host, wanted);
  return out;
}

}  // namespace topolab::placement
