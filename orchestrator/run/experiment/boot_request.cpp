#include "orchestrator/run/experiment/boot_request.hpp"

namespace topolab::experiment {

BootRequest make_boot_request(const plan::GuestPlan& plan, const virt::AccelDecision& accel,
                              const BootChoices& choices) {
  BootRequest req;
  req.connect_uri = choices.connect_uri;
  req.plan = plan;
  req.accel = accel;
  req.image = choices.image;
  req.run_id = choices.run_id;
  req.pool = choices.pool;
  req.keep = choices.keep;
  req.boot_retries = choices.boot_retries;
  req.watchdog = choices.watchdog;
  req.hello_timeout = choices.hello_timeout.value_or(kBuiltinHelloTimeout);
  if (choices.disk) {
    req.base_template = choices.disk->base_template->path();
    req.template_domain = choices.disk->template_domain;
    req.hello_timeout =
        choices.hello_timeout.value_or(std::chrono::milliseconds(guestsource::kDiskHelloTimeoutMs));
    req.shutdown_timeout = std::chrono::milliseconds(guestsource::kDiskShutdownTimeoutMs);
    // The watchdog stays on: the session arms an own disk's at its kernel's first line.
  }
  return req;
}

}  // namespace topolab::experiment
