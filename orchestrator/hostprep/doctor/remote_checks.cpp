// doctor -c URI through a remote connection (issue 16): the hugepage check from libvirt's own
// view of that host, since its /sys is not ours to read.
#include <libvirt/libvirt.h>

#include "orchestrator/hostprep/doctor/checks.hpp"
#include "orchestrator/libvirt/hostsource/host_source.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::doctor {
namespace {

// Free pages of `kib` on NUMA cell `cell` (virNodeGetFreePages).
Result<std::uint64_t> free_pages(virConnectPtr conn, std::uint64_t kib, int cell) {
  unsigned int pages[1] = {static_cast<unsigned int>(kib)};
  unsigned long long counts[1] = {0};
  if (auto e = virt::failed(virNodeGetFreePages(conn, 1, pages, cell, 1, counts, 0))) {
    return e->context("virNodeGetFreePages(" + std::to_string(kib) + " KiB, cell " +
                      std::to_string(cell) + ")");
  }
  return counts[0];
}

}  // namespace

CheckResult check_hugepages_remote(const std::string& uri, const GuestRequirements* req) {
  if (req && req->hugepage_kib == 0) {
    return skip("hugepages", "layout uses no hugepages ([memory] hugepages not set)");
  }
  auto topo = load_host_topology(TopologySource{uri, "", ""});
  if (!topo)
    return skip("hugepages", "remote (cannot read " + uri + ": " + topo.error().message + ")");
  auto conn = virt::open_connection(uri);
  if (!conn) return skip("hugepages", "remote (" + conn.error().message + ")");
  std::vector<NodePool> pools;
  std::string listed;
  for (const auto& node : topo->numa_nodes) {
    for (const auto& hp : node.hugepages) {
      if (req && hp.page_kib != req->hugepage_kib) continue;
      auto free = free_pages(conn->get(), hp.page_kib, node.id);
      if (!free) return skip("hugepages", "remote (" + free.error().message + ")");
      listed += (listed.empty() ? "" : ", ") + std::string("node") + std::to_string(node.id) +
                " hugepages-" + std::to_string(hp.page_kib) + "kB free " + std::to_string(*free) +
                "/" + std::to_string(hp.total);
      const bool guest_node =
          !req || req->guest_cpus.empty() || node.cpus.intersects(req->guest_cpus);
      pools.push_back(NodePool{node.id, hp.total, *free, guest_node});
    }
  }
  if (!req) {
    return ok("hugepages", (listed.empty() ? std::string("no hugepage pools") : listed) +
                               " (no layout; through libvirt)");
  }
  return hugepage_verdict(pools, *req);
}

}  // namespace topolab::doctor
