#pragma once
// The one verification of a booted guest, used by `topolab boot` (boot_verify) and by every
// experiment configuration (experiment/guest_backend): what the guest was told (the
// AnnouncedTopology its domain XML was written from) against what it reports.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "host/host_topology.hpp"
#include "orchestrator/guest/verify/topology_compare.hpp"
#include "orchestrator/planning/placement/announced_topology.hpp"

namespace topolab {

struct GuestVerdict {
  HostTopology intended, seen;
  std::vector<TopologyMismatch> mismatches;
  std::string cpu_model, cpu_model_reason;  // the model the guest was given and why
  bool match() const { return mismatches.empty(); }
};

GuestVerdict verify_guest(const AnnouncedTopology& announced, const HostTopology& seen);

// [{"level","intended","seen"}], the form boot JSON and the experiment store keep.
nlohmann::json mismatches_to_json(const std::vector<TopologyMismatch>&);

}  // namespace topolab
