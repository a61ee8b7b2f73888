#pragma once
// libvirt capabilities XML (virConnectGetCapabilities or `virsh capabilities`) into the
// topology model: <host><topology><cells><cell id><memory unit><pages><cpus><cpu id socket_id
// die_id core_id siblings/>, <host><cache><bank level='3' cpus size unit/>, <host><cpu>
// <vendor>/<model>. libvirt lists offline CPUs without socket_id; they come out offline.
// Capabilities carry no isolated CPUs and no free hugepage counts.
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "host/host_topology.hpp"

namespace topolab {

// origin names the input in errors; HostTopology::source becomes "caps:" + origin, or origin
// itself when it starts with "libvirt:" (e.g. "libvirt:qemu:///system").
Result<HostTopology> parse_capabilities_xml(std::string_view xml, const std::string& origin);

}  // namespace topolab
