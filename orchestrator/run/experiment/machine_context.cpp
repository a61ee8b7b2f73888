#include "orchestrator/run/experiment/machine_context.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <cstdlib>

namespace topolab::experiment {
namespace {

// RFC 1123 labels (letters, digits, '-', '.') plus '_' that Slurm node names allow.
bool is_host_name(const std::string& s) {
  if (s.empty() || s.size() > 253) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_';
  });
}

// Slurm's job and task ids are decimal integers; 20 digits bound a 64-bit value.
bool is_job_id(const std::string& s) {
  return !s.empty() && s.size() <= 20 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

void add_if(nlohmann::json& out, const char* key, const std::optional<std::string>& v,
            bool (*shape)(const std::string&)) {
  if (v && shape(*v)) out[key] = *v;
}

}  // namespace

nlohmann::json machine_context(const std::string& hostname, const EnvLookup& env) {
  nlohmann::json out = nlohmann::json::object();
  if (is_host_name(hostname)) out["hostname"] = hostname;
  if (!env("SLURM_JOB_ID")) return out;
  nlohmann::json slurm = nlohmann::json::object();
  add_if(slurm, "job_id", env("SLURM_JOB_ID"), is_job_id);
  add_if(slurm, "array_job_id", env("SLURM_ARRAY_JOB_ID"), is_job_id);
  add_if(slurm, "array_task_id", env("SLURM_ARRAY_TASK_ID"), is_job_id);
  add_if(slurm, "node", env("SLURMD_NODENAME"), is_host_name);
  if (!slurm.empty()) out["slurm"] = slurm;
  return out;
}

nlohmann::json this_machine_context() {
  utsname u{};
  const std::string host = uname(&u) == 0 ? std::string(u.nodename) : std::string();
  return machine_context(host, [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  });
}

}  // namespace topolab::experiment
