#pragma once
// `topolab boot` as a library call: boot a guest for a layout, compare what it sees with what
// the layout intends (for the CPU model actually chosen), shut it down (unless kept).
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "host/host_topology.hpp"
#include "orchestrator/guest/session/guest_session.hpp"
#include "orchestrator/guest/verify/topology_compare.hpp"

namespace topolab {

struct BootVerification {
  HostTopology intended, seen;
  std::vector<TopologyMismatch> mismatches;
  nlohmann::json timings;  // GuestSession::timings() plus total_ms
  std::string domain_name, run_id;
  std::filesystem::path run_dir;
  bool kvm = false;
  std::string accel_reason, cpu_model, cpu_model_reason;
  std::vector<std::string> qemu_warnings;
  std::string shutdown_error;  // empty when the guest stopped cleanly
  // Levels verified against the CPU model's expectation, not the layout's (announce_topology).
  std::vector<AdjustedLevel> adjusted_levels;
  bool match() const { return mismatches.empty(); }
};

// Boots, verifies, shuts down (keeps the domain when req.keep). An error means no verdict
// (the guest did not boot or never said hello); a mismatch is a successful verification.
Result<BootVerification> boot_and_verify(const BootRequest& req);

// {"intended":{topology_to_json},"seen":{...},"match":bool,"mismatches":[{"level","intended",
//  "seen"}],"timings":{...},"domain","run_id","run_dir","accel":{"kvm","reason"},"cpu_model",
//  "adjusted_levels":[{"level","why"}]}
nlohmann::json to_json(const BootVerification&);

}  // namespace topolab
