#include "orchestrator/verify/boot_verify.hpp"

#include <chrono>

#include "host/topology_json.hpp"
#include "orchestrator/domain/cpu_model.hpp"
#include "orchestrator/domain/intended_topology.hpp"

namespace topolab {

Result<BootVerification> boot_and_verify(const BootRequest& req) {
  auto t0 = std::chrono::steady_clock::now();
  auto session = GuestSession::boot(req);
  if (!session) return session.error();
  auto& s = **session;
  BootVerification v;
  v.kvm = s.uses_kvm();
  v.accel_reason = s.accel().reason;
  v.domain_name = s.domain_name();
  v.run_id = s.run_id();
  v.run_dir = s.run_dir();
  v.qemu_warnings = s.qemu_warnings();
  // The intended view depends on the model family the writer picked (AMD-style models put the
  // L3 per die/socket/node, Intel-style ones ignore a NUMA split).
  auto model =
      choose_cpu_model(req.layout, v.kvm ? Accelerator::kKvm : Accelerator::kTcg, req.host_vendor);
  v.cpu_model = model.mode == "custom" ? model.model : model.mode;
  v.cpu_model_reason = model.reason;
  v.intended = intended_guest_topology(req.layout, req.plan, model.style);
  v.seen = s.seen_topology();
  v.mismatches = compare_topologies(v.intended, v.seen);
  if (!req.keep) {
    if (auto r = s.shutdown(); !r) v.shutdown_error = r.error().message;
  }
  v.timings = s.timings();
  v.timings["total_ms"] =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  return v;
}

nlohmann::json to_json(const BootVerification& v) {
  nlohmann::json mism = nlohmann::json::array();
  for (const auto& m : v.mismatches) {
    mism.push_back({{"level", m.level}, {"intended", m.intended}, {"seen", m.seen}});
  }
  nlohmann::json j = {{"intended", topology_to_json(v.intended)},
                      {"seen", topology_to_json(v.seen)},
                      {"match", v.match()},
                      {"mismatches", mism},
                      {"timings", v.timings},
                      {"domain", v.domain_name},
                      {"run_id", v.run_id},
                      {"run_dir", v.run_dir.string()},
                      {"accel", {{"kvm", v.kvm}, {"reason", v.accel_reason}}},
                      {"cpu_model", {{"model", v.cpu_model}, {"reason", v.cpu_model_reason}}}};
  j["qemu_warnings"] = v.qemu_warnings;
  if (!v.shutdown_error.empty()) j["shutdown_error"] = v.shutdown_error;
  return j;
}

}  // namespace topolab
