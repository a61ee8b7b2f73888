// Hugepages: does the layout's memory fit in free pages of its size on the guest's nodes?
#include <charconv>

#include "orchestrator/hostprep/doctor/checks.hpp"

namespace topolab::doctor {
namespace {

std::string size_name(std::uint64_t kib) {
  if (kib % (1024 * 1024) == 0) return std::to_string(kib / 1024 / 1024) + "G";
  if (kib % 1024 == 0) return std::to_string(kib / 1024) + "M";
  return std::to_string(kib) + "K";
}

// A page count; missing or not a plain decimal (stoull read "-1" as 2^64-1): 0.
std::uint64_t number(const std::optional<std::string>& v) {
  std::uint64_t n = 0;
  if (!v || v->empty()) return 0;
  auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  return ec == std::errc() && end == v->data() + v->size() ? n : 0;
}

// Linux numbers NUMA nodes below MAX_NUMNODES (at most 1 << CONFIG_NODES_SHIFT = 1024).
constexpr int kMaxNodeIds = 1024;

// "node12" -> 12; none for other names and for ids beyond kMaxNodeIds (never stoi: it threw
// out_of_range on node99999999999 and aborted the doctor).
std::optional<int> node_id(const std::string& entry) {
  if (entry.size() < 5 || entry.size() > 12 || entry.rfind("node", 0) != 0) return std::nullopt;
  int id = -1;
  auto [end, ec] = std::from_chars(entry.data() + 4, entry.data() + entry.size(), id);
  if (ec != std::errc() || end != entry.data() + entry.size() || id < 0 || id >= kMaxNodeIds) {
    return std::nullopt;
  }
  return id;
}

struct Pools {
  std::vector<NodePool> pools;
  std::vector<std::string> ignored;  // node folders whose name is no valid node id
};

Pools read_pools(const SysRoot& root, std::uint64_t kib, const CpuList& guest) {
  const std::string pool = "/hugepages/hugepages-" + std::to_string(kib) + "kB/";
  Pools found;
  auto& pools = found.pools;
  for (const auto& entry : root.list("/sys/devices/system/node")) {
    if (entry.rfind("node", 0) != 0) continue;
    const std::string dir = "/sys/devices/system/node/" + entry;
    if (!root.exists(dir + pool)) continue;
    const auto id = node_id(entry);
    if (!id) {
      found.ignored.push_back(entry.substr(0, 40));
      continue;
    }
    NodePool p;
    p.node = *id;
    p.total = number(root.attr_or_none(dir + pool + "nr_hugepages"));
    p.free = number(root.attr_or_none(dir + pool + "free_hugepages"));
    auto cpus = root.cpu_list(dir + "/cpulist");
    p.guest_node = guest.empty() || (cpus && cpus->intersects(guest));
    pools.push_back(p);
  }
  if (pools.empty() && root.exists("/sys/kernel/mm" + pool)) {
    NodePool p;
    p.total = number(root.attr_or_none("/sys/kernel/mm" + pool + "nr_hugepages"));
    p.free = number(root.attr_or_none("/sys/kernel/mm" + pool + "free_hugepages"));
    pools.push_back(p);
  }
  return found;
}

}  // namespace

CheckResult check_hugepages(const SysRoot& root, const GuestRequirements* req) {
  if (!req) {
    std::string pools;
    for (const auto& dir : root.list("/sys/kernel/mm/hugepages")) {
      auto free = root.attr_or_none("/sys/kernel/mm/hugepages/" + dir + "/free_hugepages");
      pools += (pools.empty() ? "" : ", ") + dir + " free " + free.value_or("?");
    }
    return ok("hugepages", pools.empty() ? "no hugepage pools" : pools + " (no layout)");
  }
  if (req->hugepage_kib == 0) {
    return skip("hugepages", "layout uses no hugepages ([memory] hugepages not set)");
  }
  auto found = read_pools(root, req->hugepage_kib, req->guest_cpus);
  auto result = hugepage_verdict(found.pools, *req);
  if (!found.ignored.empty()) {
    std::string names;
    for (const auto& n : found.ignored) names += (names.empty() ? "" : ", ") + n;
    result.reason +=
        " (ignored " + names + ": not a node id below " + std::to_string(kMaxNodeIds) + ")";
  }
  return result;
}

CheckResult hugepage_verdict(const std::vector<NodePool>& pools, const GuestRequirements& guest) {
  const GuestRequirements* req = &guest;
  const std::uint64_t kib = req->hugepage_kib;
  const std::uint64_t needed = (req->memory_mib * 1024 + kib - 1) / kib;
  const std::string sz = size_name(kib);
  if (pools.empty()) {
    return fail("hugepages",
                "no " + sz +
                    " hugepage pool on this host (kernel or CPU lacks "
                    "that size)",
                "add hugepagesz=" + sz + " hugepages=" + std::to_string(needed) +
                    " to GRUB_CMDLINE_LINUX, update-grub, reboot; or use 2M pages");
  }
  std::uint64_t local_free = 0, other_free = 0;
  std::string detail;
  int first_node = -1;
  for (const auto& p : pools) {
    (p.guest_node ? local_free : other_free) += p.free;
    if (p.guest_node && first_node < 0) first_node = p.node;
    detail += (detail.empty() ? "" : ", ") +
              (p.node < 0 ? std::string("host") : "node" + std::to_string(p.node)) + " " +
              std::to_string(p.free) + "/" + std::to_string(p.total) + " free";
  }
  const std::string want = std::to_string(req->memory_mib) + " MiB needs " +
                           std::to_string(needed) + " x " + sz + " pages";
  if (local_free >= needed) {
    return ok("hugepages", want + ": " + detail + (req->hugepages_locked ? ", locked" : ""));
  }
  std::string pool_path =
      first_node >= 0
          ? "/sys/devices/system/node/node" + std::to_string(first_node) + "/hugepages/hugepages-" +
                std::to_string(kib) + "kB/nr_hugepages"
          : "/sys/kernel/mm/hugepages/hugepages-" + std::to_string(kib) + "kB/nr_hugepages";
  std::uint64_t have_total = 0;
  for (const auto& p : pools) have_total += p.guest_node ? p.total : 0;
  // `hugepages=N` alone reserves pages of the default size (2M on x86): other sizes need
  // hugepagesz= before it.
  const std::string boot_param =
      (kib == 2048 ? "" : "hugepagesz=" + sz + " ") + "hugepages=" + std::to_string(needed);
  std::string fix = "echo " + std::to_string(have_total + needed - local_free) + " > " + pool_path +
                    "  # persistent: " + boot_param +
                    " on the kernel cmdline (1G pages need it at boot)";
  if (local_free + other_free >= needed) {
    return warn("hugepages",
                want + " on the guest's nodes, only " + std::to_string(local_free) +
                    " free there (" + detail + "): memory would be remote",
                fix);
  }
  return fail("hugepages",
              want + ", only " + std::to_string(local_free + other_free) + " free (" + detail +
                  "): the guest will not start",
              fix);
}

}  // namespace topolab::doctor
