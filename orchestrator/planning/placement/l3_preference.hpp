#pragma once
// Unequal L3 domains (X3D chips: one CCD with 96 MiB, one with 32 MiB): l3-aligned takes the
// larger ones first, and says what housekeeping_cpus or host_cpus cost it. Also the warning for
// housekeeping CPUs that split a core's SMT threads.
#include <map>
#include <string>
#include <vector>

#include "orchestrator/planning/placement/host_cores.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"

namespace topolab::placement {

// "96 MiB", "1536 KiB", "unknown size".
std::string l3_size_text(std::uint64_t kib);

// `fitting` reordered largest L3 first (stable: equal sizes keep host order). Adds a note to
// `notes` when the host's L3 sizes differ.
std::vector<int> prefer_larger_l3(const HostTopology&, std::vector<int> fitting,
                                  std::vector<std::string>& notes);

// A note for every L3 domain larger than the smallest one the plan took that would hold a group
// on the whole host but not within the allowed CPUs: what was given up and how to get it back.
void note_larger_l3_given_up(const Layout&, const HostTopology&,
                             const std::map<int, std::vector<const HostCore*>>& usable_by_l3,
                             const std::vector<int>& chosen, std::vector<std::string>& notes);

// A warning when housekeeping_cpus hold one thread of a core whose other thread they leave
// out: a guest core of threads_per_core > 1 cannot use that core.
void warn_split_smt_pairs(const Layout&, const HostTopology&, std::vector<std::string>& warnings);

}  // namespace topolab::placement
