#pragma once
// The machine a boot ran on (issue 30): a store merged from Slurm tasks (or copied between
// groups) must say per cell which node and which job produced it; the libvirt URI alone is
// "qemu:///system" on every node. Read from uname and Slurm's environment at the boundary:
// untrusted text, kept only when it has the shape of a host name or a job id.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace topolab::experiment {

// A lookup of an environment variable (std::getenv in the product; a map in tests).
using EnvLookup = std::function<std::optional<std::string>(const char*)>;

// {"hostname": H} and, inside a Slurm job, "slurm": {"job_id", "array_job_id",
// "array_task_id", "node"}; a value of the wrong shape is left out, never cut to fit.
nlohmann::json machine_context(const std::string& hostname, const EnvLookup& env);
// The same for this process: uname's node name and the real environment.
nlohmann::json this_machine_context();

}  // namespace topolab::experiment
