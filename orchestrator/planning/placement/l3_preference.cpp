#include "orchestrator/planning/placement/l3_preference.hpp"

#include <algorithm>
#include <set>

namespace topolab::placement {
namespace {

std::uint64_t l3_kib_of(const HostTopology& host, int domain) {
  if (domain < 0 || static_cast<std::size_t>(domain) >= host.l3_domains.size()) return 0;
  return host.l3_domains[static_cast<std::size_t>(domain)].size_kib;
}

CpuList l3_cpus_of(const HostTopology& host, int domain) {
  if (domain < 0 || static_cast<std::size_t>(domain) >= host.l3_domains.size()) return {};
  return host.l3_domains[static_cast<std::size_t>(domain)].cpus;
}

// Whole online cores of the domain with at least `threads` online threads (the whole host, no
// host_cpus or housekeeping): what the domain could carry if nothing were held back.
int whole_host_cores(const HostTopology& host, int domain, int threads) {
  std::set<int> counted;
  int n = 0;
  for (int id : l3_cpus_of(host, domain)) {
    const CpuInfo* c = host.cpu(id);
    if (!c || !c->online || counted.count(id)) continue;
    const CpuList core = c->siblings.empty() ? CpuList{id} : c->siblings;
    int online = 0;
    for (int s : core) {
      const CpuInfo* sc = host.cpu(s);
      online += sc && sc->online ? 1 : 0;
      counted.insert(s);
    }
    n += online >= threads ? 1 : 0;
  }
  return n;
}

}  // namespace

std::string l3_size_text(std::uint64_t kib) {
  if (kib == 0) return "unknown size";
  if (kib % 1024 == 0) return std::to_string(kib / 1024) + " MiB";
  return std::to_string(kib) + " KiB";
}

std::vector<int> prefer_larger_l3(const HostTopology& host, std::vector<int> fitting,
                                  std::vector<std::string>& notes) {
  std::set<std::uint64_t> sizes;
  for (const auto& d : host.l3_domains) sizes.insert(d.size_kib);
  // Unknown sizes (0) compare as nothing: no preference is drawn from them.
  if (sizes.size() < 2 || sizes.count(0)) return fitting;
  std::stable_sort(fitting.begin(), fitting.end(),
                   [&](int a, int b) { return l3_kib_of(host, a) > l3_kib_of(host, b); });
  std::string listed;
  for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {
    listed += (listed.empty() ? "" : ", ") + l3_size_text(*it);
  }
  notes.push_back("host L3 domains differ in size (" + listed +
                  "): l3-aligned places groups on the larger ones first");
  return fitting;
}

void note_larger_l3_given_up(const Layout& l, const HostTopology& host,
                             const std::map<int, std::vector<const HostCore*>>& usable_by_l3,
                             const std::vector<int>& chosen, std::vector<std::string>& notes) {
  if (chosen.empty()) return;
  std::uint64_t smallest = UINT64_MAX;
  for (int d : chosen) smallest = std::min(smallest, l3_kib_of(host, d));
  if (smallest == 0) return;
  for (std::size_t d = 0; d < host.l3_domains.size(); ++d) {
    const int id = static_cast<int>(d);
    if (std::find(chosen.begin(), chosen.end(), id) != chosen.end()) continue;
    if (l3_kib_of(host, id) <= smallest) continue;
    if (whole_host_cores(host, id, l.threads_per_core) < l.cores_per_group) continue;
    const auto it = usable_by_l3.find(id);
    const int usable = it == usable_by_l3.end() ? 0 : static_cast<int>(it->second.size());
    if (usable >= l.cores_per_group) continue;  // it was free: not given up to restrictions
    std::string held;
    if (l.housekeeping_cpus && l.housekeeping_cpus->intersects(l3_cpus_of(host, id))) {
      held = "housekeeping_cpus " + l.housekeeping_cpus->to_string() + " take CPUs " +
             l.housekeeping_cpus->intersected(l3_cpus_of(host, id)).to_string() + " of it";
    } else if (l.host_cpus) {
      held = "host_cpus " + l.host_cpus->to_string() + " leave out CPUs " +
             l3_cpus_of(host, id).minus(*l.host_cpus).to_string() + " of it";
    } else {
      held = "the allowed CPUs leave out part of it";
    }
    notes.push_back(
        "larger L3 not used: host L3 domain " + std::to_string(id) + " (" +
        l3_size_text(l3_kib_of(host, id)) + ", CPUs " + l3_cpus_of(host, id).to_string() +
        ") offers " + std::to_string(usable) + " of the " + std::to_string(l.cores_per_group) +
        " whole cores a group needs: " + held + "; the guest gets " + l3_size_text(smallest) +
        " instead. To get it back, move housekeeping_cpus to another L3 domain "
        "or widen host_cpus");
  }
}

void warn_split_smt_pairs(const Layout& l, const HostTopology& host,
                          std::vector<std::string>& warnings) {
  if (!l.housekeeping_cpus || !host.has_smt()) return;
  CpuList orphans;
  for (int id : *l.housekeeping_cpus) {
    const CpuInfo* c = host.cpu(id);
    if (!c || !c->online) continue;
    for (int s : c->siblings) {
      const CpuInfo* sc = host.cpu(s);
      if (sc && sc->online && !l.housekeeping_cpus->contains(s)) orphans.insert(s);
    }
  }
  if (l.host_cpus) orphans = orphans.intersected(*l.host_cpus);
  if (orphans.empty()) return;
  warnings.push_back(
      "housekeeping_cpus " + l.housekeeping_cpus->to_string() +
      " split SMT pairs: their siblings " + orphans.to_string() +
      " are left to the guest side, where a core with " + std::to_string(l.threads_per_core) +
      " thread(s) " +
      (l.threads_per_core > 1 ? "cannot use them" : "shares its core with host work") +
      "; give housekeeping whole cores (add " + orphans.to_string() + " to housekeeping_cpus)");
}

}  // namespace topolab::placement
