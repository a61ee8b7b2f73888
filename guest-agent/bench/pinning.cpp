#include "guest-agent/bench/pinning.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "guest-agent/os.hpp"

namespace topolab::bench {
namespace {

struct CpuKey {
  int package, l3, core, thread, id;  // thread: position among the core's SMT siblings
};

CpuKey key_of(int id, const HostTopology* topo) {
  const CpuInfo* c = topo ? topo->cpu(id) : nullptr;
  if (!c) return {0, 0, id, 0, id};
  int thread = 0;
  for (int s : c->siblings) {
    if (s < id) ++thread;
  }
  return {c->package, c->l3 >= 0 ? c->l3 : c->die, c->core >= 0 ? c->core : id, thread, id};
}

}  // namespace

Result<PinMode> parse_pin_mode(const std::string& text) {
  if (text == "none") return PinMode::kNone;
  if (text == "compact") return PinMode::kCompact;
  if (text == "scatter") return PinMode::kScatter;
  if (text == "list") return PinMode::kList;
  return make_error(ErrorKind::input,
                    "pin mode '" + text + "' is not one of none|compact|scatter|list");
}

const char* to_string(PinMode mode) {
  switch (mode) {
    case PinMode::kNone:
      return "none";
    case PinMode::kCompact:
      return "compact";
    case PinMode::kScatter:
      return "scatter";
    case PinMode::kList:
      return "list";
  }
  return "?";
}

std::vector<int> compact_order(const CpuList& allowed, const HostTopology* topo) {
  std::vector<CpuKey> keys;
  for (int id : allowed) keys.push_back(key_of(id, topo));
  std::sort(keys.begin(), keys.end(), [](const CpuKey& a, const CpuKey& b) {
    return std::tie(a.package, a.l3, a.core, a.thread, a.id) <
           std::tie(b.package, b.l3, b.core, b.thread, b.id);
  });
  std::vector<int> out;
  for (const auto& k : keys) out.push_back(k.id);
  return out;
}

std::vector<int> scatter_order(const CpuList& allowed, const HostTopology* topo) {
  // Groups = L3 domains (or dies), each ordered first threads of all cores, then second threads.
  std::map<std::pair<int, int>, std::vector<CpuKey>> groups;  // (package, l3) -> CPUs
  for (int id : allowed) {
    CpuKey k = key_of(id, topo);
    groups[{k.package, topo ? k.l3 : 0}].push_back(k);
  }
  // Interleave packages: the i-th group of every package, then the (i+1)-th.
  std::map<int, std::vector<std::vector<CpuKey>*>> by_package;
  for (auto& [key, members] : groups) {
    std::sort(members.begin(), members.end(), [](const CpuKey& a, const CpuKey& b) {
      return std::tie(a.thread, a.core, a.id) < std::tie(b.thread, b.core, b.id);
    });
    by_package[key.first].push_back(&members);
  }
  std::vector<std::vector<CpuKey>*> group_order;
  for (std::size_t i = 0;; ++i) {
    bool any = false;
    for (auto& [pkg, list] : by_package) {
      if (i < list.size()) {
        group_order.push_back(list[i]);
        any = true;
      }
    }
    if (!any) break;
  }
  std::vector<int> out;
  for (std::size_t round = 0; out.size() < allowed.size(); ++round) {
    for (auto* g : group_order) {
      if (round < g->size()) out.push_back((*g)[round].id);
    }
  }
  return out;
}

Result<std::vector<int>> select_cpus(PinMode mode, int threads, const CpuList& allowed,
                                     const HostTopology* topo) {
  if (threads < 1) return make_error(ErrorKind::input, "select_cpus: thread count must be >= 1");
  if (mode == PinMode::kNone) return std::vector<int>(static_cast<std::size_t>(threads), -1);
  if (allowed.empty()) return make_error(ErrorKind::does_not_fit, "select_cpus: no CPU to pin to");
  std::vector<int> order;
  switch (mode) {
    case PinMode::kCompact:
      order = compact_order(allowed, topo);
      break;
    case PinMode::kScatter:
      order = scatter_order(allowed, topo);
      break;
    default:
      order = allowed.ids();
      break;
  }
  std::vector<int> out;
  for (int i = 0; i < threads; ++i)
    out.push_back(order[static_cast<std::size_t>(i) % order.size()]);
  return out;
}

CpuList allowed_cpus() { return agent::os::allowed_cpus(); }

Result<CpuList> resolve_cpus(const CpuList& requested) {
  CpuList allowed = allowed_cpus();
  if (requested.empty()) return allowed;
  if (!requested.is_subset_of(allowed)) {
    return make_error(ErrorKind::does_not_fit,
                      "CPUs " + requested.minus(allowed).to_string() +
                          " are not available (allowed: " + allowed.to_string() + ")");
  }
  return requested;
}

Result<void> pin_current_thread(const CpuList& cpus) { return agent::os::pin_current_thread(cpus); }

Result<void> pin_current_thread(int cpu) {
  if (cpu < 0) return {};
  return pin_current_thread(CpuList{cpu});
}

}  // namespace topolab::bench
