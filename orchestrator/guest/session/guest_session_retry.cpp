// GuestSession::boot with the boot watchdog's retries (issue 17): each attempt is a fresh
// session in the same run folder; a hung attempt is destroyed, its console, agent transcript
// and domain XML kept as *.attempt-N.*, and the layout booted again, up to
// BootRequest::boot_retries times; so is one whose kernel panicked before hello. Any other
// failure, or a hang on the last attempt, fails the
// boot with the console tail in the error.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/ci_retry_log.hpp"
#include "common/file_io.hpp"
#include "orchestrator/base/logging/log.hpp"
#include "orchestrator/guest/session/guest_session.hpp"
#include "orchestrator/libvirt/virt/boot_watchdog.hpp"
#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"
#include "orchestrator/libvirt/virt/vcpu_snapshot.hpp"

namespace topolab {
namespace {

// Renames run/NAME.EXT to run/NAME.attempt-N.EXT if present; returns the new file name.
std::string keep_as_attempt(const std::filesystem::path& dir, const std::string& stem,
                            const std::string& ext, int attempt) {
  const auto kept = stem + ".attempt-" + std::to_string(attempt) + ext;
  std::error_code ec;
  std::filesystem::rename(dir / (stem + ext), dir / kept, ec);
  return ec ? "" : kept;
}

}  // namespace

Result<std::unique_ptr<GuestSession>> GuestSession::boot(const BootRequest& req) {
  BootRequest next = req;
  nlohmann::json retries = nlohmann::json::array();
  // Steps done once per boot, by its first attempt (image placement):
  // a retry reuses their outcome, so the boot reports what they cost then, not the retry's ~0.
  nlohmann::json once = nlohmann::json::object();
  const int attempts = 1 + std::clamp(req.boot_retries, 0, 8);  // boot_attempt is one digit
  for (int attempt = 1;; ++attempt) {
    std::unique_ptr<GuestSession> s(new GuestSession());
    auto r = s->boot_steps(next);
    if (r) {
      s->record_boot_timings(attempt, once, std::move(retries));
      return s;
    }
    const std::string what = "boot " + (s->name_.empty() ? req.plan.layout.name : s->name_);
    // A dropped connection is named as such (not libvirt's bare "client socket is closed"),
    // and not retried; `s` removes its domain through a fresh connection (DomainRegistry).
    if (auto lost = virt::connection_lost(s->conn_.get(), r.error().message)) {
      return make_error(ErrorKind::libvirt, *lost).context(what);
    }
    auto retryable = s->retryable_failure(r.error());
    if (!retryable) return r.error().context(what);  // `s` destroys and undefines its domain
    Error hang = *retryable;
    if (attempt >= attempts) return s->out_of_attempts(hang, what, attempt, attempts, retries);
    logging::info("{}: attempt {} of {} {} ({}); booting it again", what, attempt, attempts,
                  s->hung() ? "hung" : "panicked", hang.message.substr(0, 200));
    // The guest's whole cmdline: a planted fault comes through the image or the layout (an
    // experiment's cmdline.* factor lands in kernel_cmdline_extra).
    note_retry_for_ci(
        "boot", what, attempt, hang.message,
        names_planted_fault(req.image.cmdline + " " + req.plan.layout.kernel_cmdline_extra));
    retries.push_back(s->discard_hung_attempt(attempt, hang.message));
    s->prepare_retry(next, req, attempt, once);
  }
}

// A booted attempt's boot-wide timings: its number, the first attempt's once-per-boot costs,
// the retries before it and the watchdog's view of this boot.
void GuestSession::record_boot_timings(int attempt, const nlohmann::json& once,
                                       nlohmann::json retries) {
  timings_["boot_attempts"] = attempt;
  for (const auto& [key, value] : once.items()) timings_[key] = value;
  timings_["boot_retries"] = std::move(retries);
  if (!watchdog_) return;
  // Stopped at hello: how close this boot came to the bound.
  timings_["console_first_output_ms"] = watchdog_->first_output_ms();
  timings_["console_max_silence_ms"] = watchdog_->max_silence_ms();
  // A stall report the guest recovered from (-1: none): how close it came to a false hang.
  timings_["console_stall_report_ms"] = watchdog_->stall_report_ms();
  if (timings_.contains("watchdog_armed_at")) {  // own disk: its silences count from here
    timings_["console_kernel_start_ms"] = watchdog_->armed_ms();
    timings_["console_login_prompt_ms"] = watchdog_->stood_down_ms();
  }
}

// The last attempt hung (or panicked) too: the error names every earlier attempt's console.
Error GuestSession::out_of_attempts(const Error& hang, const std::string& what, int attempt,
                                    int attempts, const nlohmann::json& retries) const {
  std::string earlier;
  for (const auto& e : retries) {
    earlier += (earlier.empty() ? " (" : "; ") + std::string("attempt ") +
               std::to_string(e["attempt"].get<int>()) + " hung too, console kept in " +
               (run_dir_ / e["console"].get<std::string>()).string();
  }
  return hang.context(what + ": attempt " + std::to_string(attempt) + " of " +
                      std::to_string(attempts) + (earlier.empty() ? "" : earlier + ")"));
}

// The next attempt's request, after this one was discarded.
void GuestSession::prepare_retry(BootRequest& next, const BootRequest& req, int attempt,
                                 nlohmann::json& once) const {
  next.run_id = run_id_;
  // The image is on the host already: the retry boots from what this attempt placed, and its
  // timings report what this boot sent (image_bytes_sent), not a second, empty upload. (The
  // accelerator was decided before planning: the retry boots the same plan.)
  if (placed_) next.placed = placed_;
  if (attempt == 1) {
    for (const char* key : {"image_ms", "image_bytes_sent"}) {
      if (timings_.contains(key)) once[key] = timings_[key];
    }
  }
  next.run_dir = run_dir_;  // domain.xml was moved aside: the same folder is reused
  // The guest may tell a retry apart (and a test fault hang only on the first attempt).
  next.image.cmdline = req.image.cmdline + " topolab.boot_attempt=" + std::to_string(attempt + 1);
}

void GuestSession::start_watchdog(const BootRequest& req) {
  if (req.watchdog.count() < 0) return;
  // Own disks: armed at the kernel's first console line, with a bound for a whole quiet boot
  // (boot_watchdog.hpp own_disk_watchdog_bound); an explicit bound is armed the same way.
  const bool own_disk = !req.base_template.empty();
  const int vcpus = req.plan.layout.vcpu_count();
  const auto bound = req.watchdog.count() > 0 ? req.watchdog
                     : own_disk               ? virt::own_disk_watchdog_bound(vcpus, uses_kvm())
                                              : virt::derived_watchdog_bound(vcpus, uses_kvm());
  timings_["watchdog_ms"] = bound.count();
  if (own_disk) timings_["watchdog_armed_at"] = "kernel start";
  virDomainPtr dom = domain_->get();
  // Every vCPU's registers first (which CPU hung: vcpus.log), then destroy: that closes the
  // agent channel, so a connect or hello wait ends at once.
  watchdog_ = std::make_unique<virt::BootWatchdog>(
      run_dir_ / "console.log", bound,
      [dom, vcpus = run_dir_ / "vcpus.log"] {
        if (auto r = virt::snapshot_vcpus(dom, vcpus); !r) {
          logging::warn("boot watchdog: {}", r.error().message);
        }
        (void)virt::destroy_domain(dom);
      },
      virt::BootWatchdog::Mode::kInotify,
      own_disk ? virt::BootWatchdog::Arming::kAtKernelStart : virt::BootWatchdog::Arming::kAtStart);
}

// A hung guest (the watchdog fired) or one whose kernel panicked before hello (its domain
// stopped: panic=-1 reboots and on_reboot destroys) is the guest's failure, not the layout's:
// booted again. Anything else fails the boot at once.
std::optional<Error> GuestSession::retryable_failure(const Error& failure) const {
  if (hung()) return hang_error();
  if (run_dir_.empty() || !domain_) return std::nullopt;
  auto panic = virt::console_panic_line(run_dir_ / "console.log");
  if (panic.empty()) return std::nullopt;
  return Error{"guest kernel panicked before hello (" + panic + "; " + failure.message +
                   "); console: " + virt::console_tail(run_dir_ / "console.log", 10),
               ErrorKind::guest};
}

Error GuestSession::hang_error() const {
  return Error{"guest hung: " + hang_reason() + " and no hello (boot watchdog fired " +
                   std::to_string(watchdog_->fired_after().count()) + " ms after start, console " +
                   std::to_string(watchdog_->console_bytes()) + " bytes); " + vcpu_summary() +
                   "console: " + virt::console_tail(run_dir_ / "console.log", 10),
               ErrorKind::guest};
}

// What the watchdog saw: the kernel's stall report (a stuck kernel keeps printing, so its
// console never goes silent) or a silent console.
std::string GuestSession::hang_reason() const {
  const auto bound = std::to_string(watchdog_->bound().count()) + " ms";
  if (const auto stall = watchdog_->stall_report_ms(); stall >= 0) {
    return "the kernel reported a stall " + std::to_string(stall) + " ms after start (" +
           virt::console_stall_line(run_dir_ / "console.log") + ") and did not recover within " +
           bound;
  }
  const auto armed = watchdog_->armed_ms();
  const std::string since = armed > 0 ? " since the kernel started (its first console line " +
                                            std::to_string(armed) + " ms after start)"
                                      : "";
  return "no console output for " + bound + since;
}

// "vCPUs at the hang: <summary>; " from vcpus.log's first line, or "" when none was taken.
std::string GuestSession::vcpu_summary() const {
  auto text = read_file(run_dir_ / "vcpus.log", 8u << 20);  // summary + QEMU text (<= 4 MiB)
  if (!text || text->empty()) return "";
  const auto line = text->substr(0, text->find('\n'));
  return "vCPUs at the hang: " + virt::printable_line(line) + "; ";
}

// Destroys and undefines this attempt's domain (the name is reused by the next attempt) and
// moves its files aside so the next attempt starts a clean folder.
nlohmann::json GuestSession::discard_hung_attempt(int attempt, const std::string& reason) {
  watchdog_.reset();
  agent_.reset();
  channel_bridge_.reset();
  if (transcript_.is_open()) transcript_.close();
  if (domain_) {
    if (auto r = domain_->remove(); !r) {
      logging::warn("{}", r.error().message);
    }
    domain_.reset();
  }
  close_streams();  // before console.log is moved aside
  nlohmann::json entry = {{"attempt", attempt},
                          {"reason", reason.substr(0, 2000)},
                          {"console", keep_as_attempt(run_dir_, "console", ".log", attempt)}};
  keep_as_attempt(run_dir_, "agent", ".log", attempt);
  keep_as_attempt(run_dir_, "domain", ".xml", attempt);
  keep_as_attempt(run_dir_, "vcpus", ".log", attempt);
  return entry;
}

}  // namespace topolab
