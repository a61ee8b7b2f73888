#pragma once
// Builds GuestRequirements from a layout file (and/or command-line overrides): the guest's
// host CPUs come from the layout's host_cpus, its explicit lists, or the placement plan on the
// host topology.
#include <string>

#include "orchestrator/hostprep/doctor/guest_requirements.hpp"

namespace topolab::doctor {

struct RequirementsRequest {
  std::string layout_file;  // file or preset name (templates/topologies); empty: no layout
  std::string root = "/";   // host topology for placement is read from ROOT/sys
  std::string connect_uri;
  std::string guest_cpus;  // CPU list; overrides the layout's
  std::string guest_os;    // overrides the layout's
};

Result<GuestRequirements> load_guest_requirements(const RequirementsRequest&);

}  // namespace topolab::doctor
