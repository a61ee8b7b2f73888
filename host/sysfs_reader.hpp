#pragma once
// Reads a Linux sysfs tree (ROOT/sys/devices/system/{cpu,node}, ROOT/proc/cpuinfo) into the
// topology model. ROOT "/" is the live machine; captures from other machines work the same.
// Quirks handled: legacy names (thread_siblings*, core_siblings*), hex masks without *_list,
// missing die_id, core_id repeating per die, offline CPUs without topology/, package ids out
// of CPU order, sparse NUMA node numbers, missing cache directories, no L3, *_list files that
// still name offline CPUs. See docs/host-topology.md.
#include <filesystem>

#include "common/result.hpp"
#include "host/host_topology.hpp"

namespace topolab {

// Errors name the path and the offending text: a missing root, no cpuN directories, a garbled
// or unreadable attribute.
Result<HostTopology> read_sysfs_topology(const std::filesystem::path& root);

}  // namespace topolab
