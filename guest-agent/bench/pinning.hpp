#pragma once
// Which CPU each benchmark thread runs on, and pinning the calling thread there.
#include <string>
#include <vector>

#include "common/cpu_list.hpp"
#include "common/result.hpp"
#include "host/host_topology.hpp"

namespace topolab::bench {

enum class PinMode { kNone, kCompact, kScatter, kList };

Result<PinMode> parse_pin_mode(const std::string& text);  // none|compact|scatter|list
const char* to_string(PinMode mode);

// CPU order used by compact: package, then L3 group, then core, SMT siblings next to each other.
// Without a topology: ascending ids.
std::vector<int> compact_order(const CpuList& allowed, const HostTopology* topo);
// CPU order used by scatter: one CPU per L3 group (alternating packages) in turn, first threads
// of cores before their SMT siblings. Without a topology: ascending ids.
std::vector<int> scatter_order(const CpuList& allowed, const HostTopology* topo);

// One CPU per thread (-1 = not pinned, mode none). list uses `allowed` in the given order;
// more threads than CPUs wrap around (threads then share CPUs).
Result<std::vector<int>> select_cpus(PinMode mode, int threads, const CpuList& allowed,
                                     const HostTopology* topo);

// CPUs this process may run on (os::allowed_cpus).
CpuList allowed_cpus();
// `requested` if non-empty (must be a subset of the allowed CPUs), else all allowed CPUs.
Result<CpuList> resolve_cpus(const CpuList& requested);

Result<void> pin_current_thread(int cpu);  // no-op for cpu < 0
Result<void> pin_current_thread(const CpuList& cpus);

}  // namespace topolab::bench
