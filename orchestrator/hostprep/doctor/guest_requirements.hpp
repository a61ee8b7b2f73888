#pragma once
// What the doctor needs to know about the guest a layout describes: the host CPUs it runs on,
// its memory and hugepages, the PCI devices it takes and what it tells the guest OS. Built from
// a Layout (layout_requirements.hpp) or by hand in tests; every field may be left unknown.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/cpu_list.hpp"
#include "orchestrator/hostprep/hostdev/hostdev_validator.hpp"
#include "orchestrator/model/layout/guest_edition.hpp"

namespace topolab::doctor {

struct GuestRequirements {
  std::string name;           // layout name, for messages
  CpuList guest_cpus;         // host CPUs that run vCPUs; empty: unknown
  CpuList housekeeping_cpus;  // host CPUs meant for the host; empty: all others
  std::uint64_t memory_mib = 0;
  std::uint64_t hugepage_kib = 0;  // 0: no hugepages
  bool hugepages_locked = false;
  int threads_per_core = 1;
  int sockets = 1;  // sockets the guest is told about
  int vcpus = 0;
  std::vector<hostdev::HostdevRequest> hostdevs;
  std::optional<GuestEdition> guest_os;  // nullopt: unknown
  std::string placement_error;  // why guest_cpus is unknown (the layout does not fit the host)
};

}  // namespace topolab::doctor
