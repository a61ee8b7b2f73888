#include "orchestrator/run/experiment/backend_factory.hpp"

#include "orchestrator/run/experiment/guest_backend.hpp"
#include "orchestrator/run/experiment/host_backend.hpp"

namespace topolab::experiment {

Result<std::unique_ptr<Backend>> make_backend(BackendKind kind, const BackendOptions& options) {
  if (kind == BackendKind::kHost)
    return std::unique_ptr<Backend>(
        new HostBackend(options.agent_binary, options.allow_host_settings));
  return std::unique_ptr<Backend>(new GuestBackend(options));
}

}  // namespace topolab::experiment
