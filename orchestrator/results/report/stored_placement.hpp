#pragma once
// The placement a boot stored (store::BootRecord::plan, written by plan::guest_plan_to_json in
// placement's plan_to_json form), as the report's pictures draw it: the report reads what the
// guest was booted with and never plans again (issue 28), so it depends on neither placement/
// nor layout/. A store is input: the reader checks every field's type and bounds (CPU ids as
// CpuList parses them, at most kMaxCpuIds vCPUs) and refuses with the field it stopped at.
#include <nlohmann/json.hpp>
#include <vector>

#include "common/cpu_list.hpp"
#include "common/result.hpp"

namespace topolab::report {

struct StoredVcpu {
  int vcpu = 0;
  CpuList host_cpus;  // one CPU when pinned; the whole float set when unpinned
  int group = 0, core = 0, thread = 0;
};

struct StoredPlacement {
  std::vector<StoredVcpu> vcpus;
  bool pinned = true;
  CpuList emulator_cpus;
};

Result<StoredPlacement> placement_from_stored(const nlohmann::json& stored);

}  // namespace topolab::report
