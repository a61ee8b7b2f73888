// Hugepages: does the layout's memory fit in free pages of its size on the guest's nodes?
#include "orchestrator/doctor/checks.hpp"

namespace topolab::doctor {
namespace {

std::string size_name(std::uint64_t kib) {
  if (kib % (1024 * 1024) == 0) return std::to_string(kib / 1024 / 1024) + "G";
  if (kib % 1024 == 0) return std::to_string(kib / 1024) + "M";
  return std::to_string(kib) + "K";
}

std::uint64_t number(const std::optional<std::string>& v) {
  if (!v) return 0;
  try {
    return std::stoull(*v);
  } catch (const std::exception&) {
    return 0;
  }
}

std::vector<NodePool> read_pools(const SysRoot& root, std::uint64_t kib, const CpuList& guest) {
  const std::string pool = "/hugepages/hugepages-" + std::to_string(kib) + "kB/";
  std::vector<NodePool> pools;
  for (const auto& entry : root.list("/sys/devices/system/node")) {
    if (entry.rfind("node", 0) != 0 || entry.size() < 5 || !std::isdigit(entry[4])) continue;
    const std::string dir = "/sys/devices/system/node/" + entry;
    if (!root.exists(dir + pool)) continue;
    NodePool p;
    p.node = std::stoi(entry.substr(4));
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
  return pools;
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
  return hugepage_verdict(read_pools(root, req->hugepage_kib, req->guest_cpus), *req);
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
  std::string fix = "echo " + std::to_string(have_total + needed - local_free) + " > " + pool_path +
                    "  # persistent: hugepages=" + std::to_string(needed) +
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
