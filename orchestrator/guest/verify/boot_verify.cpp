#include "orchestrator/guest/verify/boot_verify.hpp"

#include <chrono>

#include "host/topology_json.hpp"
#include "orchestrator/guest/verify/guest_verify.hpp"

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
  v.adjusted_levels = s.announced().adjusted_levels;
  // Verified against the topology the session announced (and wrote the XML from).
  auto verdict = verify_guest(s.announced(), s.seen_topology());
  v.cpu_model = std::move(verdict.cpu_model);
  v.cpu_model_reason = std::move(verdict.cpu_model_reason);
  v.intended = std::move(verdict.intended);
  v.seen = std::move(verdict.seen);
  v.mismatches = std::move(verdict.mismatches);
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
  nlohmann::json j = {{"intended", topology_to_json(v.intended)},
                      {"seen", topology_to_json(v.seen)},
                      {"match", v.match()},
                      {"mismatches", mismatches_to_json(v.mismatches)},
                      {"timings", v.timings},
                      {"domain", v.domain_name},
                      {"run_id", v.run_id},
                      {"run_dir", v.run_dir.string()},
                      {"accel", {{"kvm", v.kvm}, {"reason", v.accel_reason}}},
                      {"cpu_model", {{"model", v.cpu_model}, {"reason", v.cpu_model_reason}}}};
  j["qemu_warnings"] = v.qemu_warnings;
  j["adjusted_levels"] = adjusted_levels_to_json(v.adjusted_levels);
  if (!v.shutdown_error.empty()) j["shutdown_error"] = v.shutdown_error;
  return j;
}

}  // namespace topolab
