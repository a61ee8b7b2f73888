#pragma once
// Where the host topology comes from: libvirt (default, works for remote hosts), a sysfs tree,
// or a saved capabilities XML file. Shared by host/plan/xml/apply/boot/run/doctor.
#include <string>

#include "common/result.hpp"
#include "host/host_topology.hpp"

namespace topolab {

struct TopologySource {
  std::string connect;  // libvirt URI; empty (with sysfs and caps empty): qemu:///system
  std::string sysfs;    // root of a sysfs tree ("/" = this machine)
  std::string caps;     // capabilities XML file
};

// Exactly one of connect/sysfs/caps may be set; several give an error. For a local libvirt
// URI the isolated CPUs and CPU brand string, which capabilities lack, come from this
// machine's /sys and /proc.
Result<HostTopology> load_host_topology(const TopologySource&);

}  // namespace topolab
