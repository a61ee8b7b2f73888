#include "orchestrator/placement/host_cores.hpp"

#include <algorithm>
#include <map>

namespace topolab::placement {

Result<UsableHost> usable_host(const Layout& layout, const HostTopology& host) {
  UsableHost out;
  const CpuList all = host.all_cpus();
  const CpuList online = host.online_cpus();
  if (online.empty())
    return make_error(ErrorKind::does_not_fit,
                      "host topology (" + host.source + ") has no online CPUs");
  CpuList wanted = online;
  if (layout.host_cpus) {
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
    wanted = layout.host_cpus->intersected(online);
    out.allowed_text = "within " + layout.host_cpus->to_string();
  }
  if (layout.housekeeping_cpus) {
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
    wanted = wanted.minus(*layout.housekeeping_cpus);
    if (out.allowed_text.empty()) {
      out.allowed_text = "outside housekeeping " + layout.housekeeping_cpus->to_string();
    }
  }
  if (wanted.empty()) {
    return make_error(ErrorKind::does_not_fit, "no usable host CPUs " + out.allowed_text +
                                                   " (online " + online.to_string() + ")");
  }
  out.allowed = wanted;

  // Group by the host's core index; CPUs without one are cores of their own.
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
  for (auto& [key, core] : by_core) {
    if (!core.cpus.empty()) out.cores.push_back(core);
  }
  std::sort(out.cores.begin(), out.cores.end(),
            [](const HostCore& a, const HostCore& b) { return a.cpus.first() < b.cpus.first(); });
  return out;
}

}  // namespace topolab::placement
