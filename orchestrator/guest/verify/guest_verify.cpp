#include "orchestrator/guest/verify/guest_verify.hpp"

#include "orchestrator/planning/domain/intended_topology.hpp"

namespace topolab {

GuestVerdict verify_guest(const AnnouncedTopology& announced, const HostTopology& seen) {
  GuestVerdict v;
  const CpuModelChoice& model = announced.cpu_model;
  v.cpu_model = model.mode == "custom" ? model.model : model.mode;
  v.cpu_model_reason = model.reason;
  v.intended = intended_guest_topology(announced);
  v.seen = seen;
  v.mismatches = compare_topologies(v.intended, v.seen);
  return v;
}

nlohmann::json mismatches_to_json(const std::vector<TopologyMismatch>& mismatches) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : mismatches) {
    out.push_back({{"level", m.level}, {"intended", m.intended}, {"seen", m.seen}});
  }
  return out;
}

}  // namespace topolab
