#include "orchestrator/libvirt/hostsource/host_source.hpp"

#include "common/file_io.hpp"
#include "host/sysfs_reader.hpp"
#include "orchestrator/libvirt/hostsource/capabilities_parser.hpp"
#include "orchestrator/libvirt/virt/connection_uri.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab {
namespace {

constexpr const char* kDefaultUri = "qemu:///system";

// This machine's libvirtd through its local socket (virt/connection_uri.hpp decides): its
// /sys and /proc describe the host. Not for the test driver, whose host is made up.
bool is_local_uri(const std::string& uri) {
  auto parsed = virt::parse_connection_uri(uri);
  return parsed && !parsed->remote && parsed->driver == "qemu";
}

// Capabilities say nothing about isolcpus or free hugepages and give a libvirt model name, not
// the brand string: for this machine, /sys and /proc know.
void add_local_details(HostTopology& topo) {
  auto local = read_sysfs_topology("/");
  if (!local) return;
  topo.isolated = local->isolated;
  if (!local->model.empty()) topo.model = local->model;
  if (!local->vendor.empty()) topo.vendor = local->vendor;
  for (auto& node : topo.numa_nodes) {
    for (const auto& mine : local->numa_nodes) {
      if (mine.id == node.id && !mine.hugepages.empty()) node.hugepages = mine.hugepages;
    }
  }
}

Result<HostTopology> from_libvirt(const std::string& uri) {
  TL_ASSIGN(auto conn, virt::open_connection(uri));
  TL_ASSIGN(auto xml, virt::get_capabilities(conn.get()));
  TL_ASSIGN(auto topo, parse_capabilities_xml(xml, "libvirt:" + uri));
  if (is_local_uri(uri)) add_local_details(topo);
  return topo;
}

}  // namespace

Result<HostTopology> load_host_topology(const TopologySource& src) {
  int given = !src.connect.empty() + !src.sysfs.empty() + !src.caps.empty();
  if (given > 1) {
    return make_error(ErrorKind::input,
                      "choose one topology source: --connect, --sysfs or --caps (got " +
                          std::to_string(given) + ")");
  }
  if (!src.sysfs.empty()) return read_sysfs_topology(src.sysfs);
  if (!src.caps.empty()) {
    // Real ones: < 1 MiB for 8192 CPUs.
    TL_ASSIGN(const auto xml, read_file(src.caps, 16u << 20));
    return parse_capabilities_xml(xml, src.caps);
  }
  return from_libvirt(src.connect.empty() ? kDefaultUri : src.connect);
}

}  // namespace topolab
