#include "orchestrator/model/layout/layout.hpp"

#include <algorithm>
#include <cctype>

#include "common/file_io.hpp"
#include "orchestrator/model/layout/layout_fields.hpp"
#include "orchestrator/model/layout/layout_text.hpp"

namespace topolab {
namespace {

using layout_text::lower;
using layout_text::trim;

}  // namespace

int Layout::vcpu_count() const { return l3_groups * cores_per_group * threads_per_core; }

bool Layout::node_has_memory(int node) const {
  return std::find(memoryless_nodes.begin(), memoryless_nodes.end(), node) ==
         memoryless_nodes.end();
}

std::string to_string(Exposure e) {
  switch (e) {
    case Exposure::kFlat:
      return "flat";
    case Exposure::kSockets:
      return "sockets";
    case Exposure::kDies:
      return "dies";
    case Exposure::kNuma:
      return "numa";
  }
  return "?";
}

Result<Exposure> parse_exposure(std::string_view text) {
  auto t = lower(trim(text));
  if (t == "flat") return Exposure::kFlat;
  if (t == "sockets") return Exposure::kSockets;
  if (t == "dies") return Exposure::kDies;
  if (t == "numa") return Exposure::kNuma;
  return make_error(ErrorKind::input,
                    "expected one of flat, sockets, dies, numa, got '" + std::string(text) + "'");
}

std::string to_string(PlacementPolicy p) {
  switch (p) {
    case PlacementPolicy::kL3Aligned:
      return "l3-aligned";
    case PlacementPolicy::kCompact:
      return "compact";
    case PlacementPolicy::kScatter:
      return "scatter";
    case PlacementPolicy::kUnpinned:
      return "unpinned";
    case PlacementPolicy::kExplicit:
      return "explicit";
  }
  return "?";
}

Result<PlacementPolicy> parse_policy(std::string_view text) {
  auto t = lower(trim(text));
  std::replace(t.begin(), t.end(), '_', '-');
  if (t == "l3-aligned") return PlacementPolicy::kL3Aligned;
  if (t == "compact") return PlacementPolicy::kCompact;
  if (t == "scatter") return PlacementPolicy::kScatter;
  if (t == "unpinned") return PlacementPolicy::kUnpinned;
  if (t == "explicit") return PlacementPolicy::kExplicit;
  return make_error(ErrorKind::input,
                    "expected one of l3-aligned, compact, scatter, unpinned, explicit, got '" +
                        std::string(text) + "'");
}

Result<std::uint64_t> parse_hugepage_size(std::string_view text) {
  auto t = lower(trim(text));
  if (t.empty() || t == "none" || t == "no" || t == "off") return std::uint64_t{0};
  if (t == "1g" || t == "1gib" || t == "1048576k") return std::uint64_t{1048576};
  if (t == "2m" || t == "2mib" || t == "2048k") return std::uint64_t{2048};
  return make_error(ErrorKind::input,
                    "expected a hugepage size \"1G\" or \"2M\", got '" + std::string(text) + "'");
}

std::string hugepage_size_to_string(std::uint64_t kib) {
  if (kib == 0) return "none";
  if (kib == 1048576) return "1G";
  if (kib == 2048) return "2M";
  return std::to_string(kib) + "K";
}

Result<std::string> parse_pci_address(std::string_view text) {
  std::string t = lower(trim(text));
  if (std::count(t.begin(), t.end(), ':') == 1) t = "0000:" + t;
  // dddd:bb:ss.f
  auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
  bool ok = t.size() == 12 && t[4] == ':' && t[7] == ':' && t[10] == '.';
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u}) ok = ok && hex(t[i]);
  ok = ok && t[11] >= '0' && t[11] <= '7';
  if (ok) {
    int slot = std::stoi(t.substr(8, 2), nullptr, 16);
    ok = slot <= 0x1f;
  }
  if (!ok) {
    return make_error(ErrorKind::input,
                      "expected a PCI address like \"0000:01:00.0\" (domain:bus:slot.function), "
                      "got '" +
                          std::string(text) + "'");
  }
  return t;
}

namespace {

Error node_error(const std::string& key, const std::string& what) {
  return make_error(ErrorKind::input, key + ": " + what);
}

// The two-level fields against each other and the group count (each is range-checked by its
// row when set).
Result<void> validate_nodes(const Layout& l) {
  if (!l.two_level()) {
    if (!l.memoryless_nodes.empty() || !l.node_distances.empty())
      return node_error(
          !l.memoryless_nodes.empty() ? "guest.memoryless_nodes" : "guest.node_distances",
          "needs guest.numa_nodes (the guest has no node level)");
    return {};
  }
  const int n = l.numa_nodes;
  const std::string ns = std::to_string(n);
  if (n > kMaxNumaNodes) return node_error("guest.numa_nodes", "expected 1 to 64, got " + ns);
  if (l.l3_groups % n != 0)
    return node_error("guest.numa_nodes", ns + " nodes do not divide " +
                                              std::to_string(l.l3_groups) +
                                              " L3 groups (expected a divisor of l3_groups)");
  for (int m : l.memoryless_nodes)
    if (m >= n)
      return node_error("guest.memoryless_nodes", "node " + std::to_string(m) +
                                                      " out of range (expected 0 to " +
                                                      std::to_string(n - 1) + ")");
  if (static_cast<int>(l.memoryless_nodes.size()) >= n)
    return node_error("guest.memoryless_nodes",
                      "every node is memoryless (expected at least one node with memory)");
  if (l.node_distances.empty()) return {};
  if (static_cast<int>(l.node_distances.size()) != n)
    return node_error("guest.node_distances", "expected " + ns + " rows (one per node), got " +
                                                  std::to_string(l.node_distances.size()));
  for (std::size_t i = 0; i < l.node_distances.size(); ++i) {
    const auto size = l.node_distances[i].size();
    if (static_cast<int>(size) != n)
      return node_error("guest.node_distances[" + std::to_string(i) + "]",
                        "expected " + ns + " values, got " + std::to_string(size));
  }
  for (std::size_t i = 0; i < l.node_distances.size(); ++i) {
    const auto& row = l.node_distances[i];
    const std::string at = "guest.node_distances[" + std::to_string(i) + "]";
    if (row[i] != kLocalDistance)
      return node_error(at, "expected 10 on the diagonal, got " + std::to_string(row[i]));
    for (std::size_t j = 0; j < row.size(); ++j)
      if (row[j] != l.node_distances[j][i])
        return node_error(at, "not symmetric: [" + std::to_string(i) + "][" + std::to_string(j) +
                                  "] = " + std::to_string(row[j]) + " but [" + std::to_string(j) +
                                  "][" + std::to_string(i) +
                                  "] = " + std::to_string(l.node_distances[j][i]));
  }
  return {};
}

// The guest's size: group, core and thread counts, their product, memory and I/O threads.
Result<void> validate_sizes(const Layout& l) {
  TL_TRY(check_count(l.l3_groups, "guest.l3_groups", kMaxGroupsOrCores));
  TL_TRY(check_count(l.cores_per_group, "guest.cores_per_group", kMaxGroupsOrCores));
  TL_TRY(check_count(l.threads_per_core, "guest.threads_per_core", kMaxThreadsPerCore));
  if (static_cast<long long>(l.l3_groups) * l.cores_per_group * l.threads_per_core > 16384) {
    return make_error(ErrorKind::input,
                      "guest: " + std::to_string(l.l3_groups) + " groups x " +
                          std::to_string(l.cores_per_group) + " cores x " +
                          std::to_string(l.threads_per_core) +
                          " threads exceeds 16384 vCPUs (expected a smaller product)");
  }
  if (l.memory_mib < 1 || l.memory_mib > (std::uint64_t{1} << 32)) {
    return make_error(ErrorKind::input,
                      "guest.memory_mib: expected a size from 1 to 4294967296 MiB, got " +
                          std::to_string(l.memory_mib));
  }
  if (l.iothreads < 0 || l.iothreads > 64) {
    return make_error(ErrorKind::input,
                      "guest.iothreads: expected 0 to 64, got " + std::to_string(l.iothreads));
  }
  return {};
}

// The [placement] CPU sets against each other and, for policy explicit, the vCPU count.
Result<void> validate_placement(const Layout& l) {
  if (l.host_cpus && l.host_cpus->empty()) {
    return make_error(ErrorKind::input, "placement.host_cpus: expected a non-empty CPU list");
  }
  if (l.host_cpus && l.housekeeping_cpus && l.host_cpus->intersects(*l.housekeeping_cpus)) {
    return make_error(ErrorKind::input,
                      "placement: host_cpus " + l.host_cpus->to_string() +
                          " and housekeeping_cpus " + l.housekeeping_cpus->to_string() +
                          " overlap on " +
                          l.host_cpus->intersected(*l.housekeeping_cpus).to_string() +
                          " (expected disjoint CPU sets)");
  }
  if (l.policy != PlacementPolicy::kExplicit) return {};
  if (static_cast<int>(l.explicit_cpus.size()) != l.vcpu_count()) {
    return make_error(ErrorKind::input, "placement.explicit: expected one CPU list per vCPU (" +
                                            std::to_string(l.vcpu_count()) + "), got " +
                                            std::to_string(l.explicit_cpus.size()));
  }
  for (std::size_t i = 0; i < l.explicit_cpus.size(); ++i) {
    if (l.explicit_cpus[i].empty()) {
      return make_error(ErrorKind::input, "placement.explicit[" + std::to_string(i) +
                                              "]: expected a non-empty CPU list");
    }
  }
  return {};
}

// Hugepages must divide the memory; locked without hugepages is valid libvirt (<locked/>).
Result<void> validate_hugepages(const Layout& l) {
  if (l.hugepage_kib != 0 && l.memory_mib * 1024 % l.hugepage_kib != 0) {
    return make_error(ErrorKind::input, "guest.memory_mib: " + std::to_string(l.memory_mib) +
                                            " MiB is not a multiple of the hugepage size " +
                                            hugepage_size_to_string(l.hugepage_kib));
  }
  return {};
}

// Lists that must not name one thing twice: CPU features across disable/require, host devices.
Result<void> validate_no_doubles(const Layout& l) {
  // Both lists naming one feature: the require list won silently (issue 32).
  for (const auto& f : l.cpu_features_disable)
    if (std::find(l.cpu_features_require.begin(), l.cpu_features_require.end(), f) !=
        l.cpu_features_require.end())
      return make_error(ErrorKind::input, "cpu: feature '" + f +
                                              "' is in both features_disable and "
                                              "features_require (expected one of them)");
  for (std::size_t i = 0; i < l.hostdevs.size(); ++i) {
    for (std::size_t j = i + 1; j < l.hostdevs.size(); ++j) {
      if (l.hostdevs[i].pci_address == l.hostdevs[j].pci_address) {
        return make_error(ErrorKind::input,
                          "hostdev: " + l.hostdevs[i].pci_address + " listed twice");
      }
    }
  }
  return {};
}

}  // namespace

// In the order the checks always ran: the first problem found is the one reported.
Result<void> validate_layout(const Layout& l) {
  TL_TRY(validate_sizes(l));
  TL_TRY(validate_placement(l));
  TL_TRY(validate_hugepages(l));
  TL_TRY(validate_nodes(l));
  return validate_no_doubles(l);
}

Result<Layout> load_layout_file(const std::filesystem::path& path) {
  TL_ASSIGN(auto text, read_file(path, 1u << 20));
  TL_ASSIGN(auto layout, parse_layout(text, path.string()));
  layout.source_file = path;
  if (layout.name.empty()) layout.name = path.stem().string();
  return layout;
}

}  // namespace topolab
