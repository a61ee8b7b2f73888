// `topolab boot LAYOUT [source options] [layout overrides] [--accel auto|kvm|tcg]
//   [--image DIR | --kernel PATH] [--keep] [--json]`: boots the layout's guest, prints the
// intended topology beside the one the guest sees, exits 0 only when they match (3 on a
// mismatch, 1 on errors).
#include <iostream>
#include <optional>

#include "common/json_text.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/guest_source_options.hpp"
#include "orchestrator/cli/placed_layout.hpp"
#include "orchestrator/cli/topology_source_options.hpp"
#include "orchestrator/cli/watchdog_options.hpp"
#include "orchestrator/guest/image/guest_image.hpp"
#include "orchestrator/guest/remote/storage_pool.hpp"
#include "orchestrator/guest/session/boot_host.hpp"
#include "orchestrator/guest/verify/boot_verify.hpp"
#include "orchestrator/libvirt/guestsource/disk_guest.hpp"
#include "orchestrator/libvirt/virt/accelerator.hpp"
#include "orchestrator/libvirt/virt/boot_watchdog.hpp"
#include "orchestrator/libvirt/virt/run_identity.hpp"
#include "orchestrator/run/experiment/boot_request.hpp"

namespace topolab::cli {
namespace {

class BootCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* cmd = app.add_subcommand(
        "boot", "boot a layout's guest and verify the topology it sees (exit 0 only on match)");
    add_layout_options(cmd, args_);
    add_topology_source_options(cmd, source_);
    cmd->add_option("--accel", accel_, "auto (probe KVM, cached) | kvm | tcg")
        ->check(CLI::IsMember(virt::accel_mode_names()))
        ->default_str("auto");
    auto* image = cmd->add_option("--image", image_.output_dir,
                                  "guest image folder (built there if missing or stale)")
                      ->type_name("DIR");
    auto* kernel = cmd->add_option("--kernel", image_.kernel,
                                   "build the built-in image with this kernel (default: newest "
                                   "/boot/vmlinuz-*)")
                       ->type_name("PATH");
    image->excludes(kernel);
    hello_opt_ = cmd->add_option("--hello-timeout", hello_timeout_ms_,
                                 "milliseconds to wait for the agent's hello after start "
                                 "(default 180000; 600000 with --disk/--domain)")
                     ->default_val(180000)
                     ->check(CLI::Range(100, 3600000));
    add_guest_source_options(cmd, guest_);
    cmd->add_option("--run-id", run_id_, "run id (default: a new one)");
    cmd->add_option("--pool", pool_.name,
                    "remote -c only: libvirt storage pool the kernel and initramfs are uploaded "
                    "into (default topolab)")
        ->type_name("NAME");
    cmd->add_option("--pool-path", pool_.path,
                    "remote -c only: its directory on that host when the pool is created "
                    "(default /var/lib/libvirt/topolab)")
        ->type_name("PATH");
    add_watchdog_options(cmd, boot_retries_, watchdog_ms_);
    cmd->add_flag("--keep", keep_, "leave the guest running and defined");
    cmd->add_flag("--json", json_, "print {intended, seen, match, mismatches, timings} as JSON");
    return cmd;
  }

  int run() override {
    // Checked before anything is read or contacted (it is used only for a remote -c).
    if (auto p = remote::pool_spec_problem(pool_); !p.empty()) {
      return fail("boot", make_error(ErrorKind::input, p));
    }
    // The image first (the KVM probe boots it), then the host's accelerator, then the plan
    // announced for it (placed_layout.hpp).
    GuestImage image;
    session::BootHost boot_host;
    auto decide = [&]() -> Result<Accelerator> {
      TL_ASSIGN_CTX(image, build_guest_image(image_), "guest image");
      TL_ASSIGN(boot_host, session::decide_boot_host(
                               {source_.connect, *virt::parse_accel_mode(accel_), image, pool_}));
      return boot_host.accel.accel;
    };
    auto plan = load_boot_plan(args_, source_, decide);
    if (!plan) return fail("boot", plan.error());
    const Layout& layout = plan->layout;

    experiment::BootChoices choices;
    choices.connect_uri = source_.connect;
    choices.image = image;
    choices.run_id = run_id_;
    choices.pool = pool_;
    // Not given: the guest kind's bound (180 s built-in, 600 s own guest; boot_request.hpp).
    if (hello_opt_->count() > 0)
      choices.hello_timeout = std::chrono::milliseconds(hello_timeout_ms_);
    choices.keep = keep_;
    choices.boot_retries = boot_retries_;
    choices.watchdog = std::chrono::milliseconds(watchdog_ms_);
    // Own disk (issue 14): declared before the session runs, so its overlay outlives the domain.
    std::optional<guestsource::PreparedDisk> disk;
    if (auto source = to_guest_source(guest_); !source.builtin()) {
      if (keep_)
        return fail("boot", make_error(ErrorKind::input,
                                       "--keep with --disk/--domain: the throw-away overlays "
                                       "would outlive it"));
      if (choices.run_id.empty()) choices.run_id = virt::make_run_id();
      auto prepared = guestsource::prepare_guest(source_.connect, source, choices.run_id);
      if (!prepared) return fail("boot", prepared.error());
      disk.emplace(std::move(prepared).value());
      choices.disk = &*disk;
    }
    const auto req = experiment::make_boot_request(*plan, boot_host.accel, choices);
    auto v = boot_and_verify(req);
    if (!v) return fail("boot", v.error());
    // The host's decision, made before planning: its time and probes are this boot's.
    v->timings["accel_ms"] = boot_host.decided_in.count();
    if (boot_host.accel.probes > 0) v->timings["accel_probes"] = boot_host.accel.probes;

    if (json_) {
      auto j = to_json(*v);
      if (disk) j["guest_source"] = disk->identity();
      std::cout << json_document(j);
    } else {
      print_text(layout, *v);
    }
    if (!v->shutdown_error.empty()) {
      print_error("boot", "warning: " + v->shutdown_error);
    }
    return to_int(v->match() ? ExitCode::ok : ExitCode::mismatch);
  }

 private:
  static void print_text(const Layout& layout, const BootVerification& v) {
    std::cout << "layout " << layout.name << " (expose " << to_string(layout.expose)
              << ") booted as " << v.domain_name << "\n"
              << "accelerator: " << (v.kvm ? "KVM" : "TCG") << " - " << v.accel_reason << "\n"
              << "cpu model: " << v.cpu_model << " - " << v.cpu_model_reason << "\n"
              << "run folder: " << v.run_dir.string() << "\n\n";
    print_topology_comparison(std::cout, v.intended, v.seen);
    // A level whose "intended" is the CPU model's view, not the layout's, is said to be one.
    for (const auto& a : v.adjusted_levels) {
      std::cout << "adjusted: " << a.level << " verified against the model's expectation (" << a.why
                << ")\n";
    }
    const auto& t = v.timings;
    std::cout << "\ntimings: define " << t.value("define_ms", 0) << " ms, start "
              << t.value("start_ms", 0) << " ms, hello " << t.value("hello_ms", 0)
              << " ms after start (guest uptime " << t.value("guest_uptime_at_hello_ms", 0)
              << " ms), total " << t.value("total_ms", 0) << " ms\n";
    // Which shutdown step ended the guest (agent, acpi, destroy): own guests wait for each.
    if (t.contains("shutdown_by")) {
      std::cout << "shutdown: " << t.value("shutdown_ms", 0) << " ms, ended by "
                << t.value("shutdown_by", "") << "\n";
    }
    if (t.value("boot_attempts", 1) > 1) {
      std::cout << "boot attempts: " << t.value("boot_attempts", 1)
                << " (earlier ones hung; their consoles are console.attempt-N.log in the run "
                   "folder)\n";
    }
    if (v.match()) {
      std::cout << "result: MATCH - the guest sees the intended topology\n";
      return;
    }
    std::cout << "result: MISMATCH\n";
    for (const auto& m : v.mismatches) {
      std::cout << "  " << m.level << ": intended " << m.intended << ", guest sees " << m.seen
                << "\n";
    }
    // QEMU's warnings often say why (e.g. a required CPU feature it dropped under TCG).
    for (const auto& w : v.qemu_warnings) std::cout << "  qemu warning: " << w << "\n";
  }

  LayoutArgs args_;
  TopologySource source_;
  ImageOptions image_;
  remote::PoolSpec pool_;
  std::string accel_ = "auto";
  std::string run_id_;
  int hello_timeout_ms_ = 180000;
  int boot_retries_ = virt::kDefaultBootRetries;
  int watchdog_ms_ = 0;
  bool keep_ = false;
  bool json_ = false;
  GuestSourceArgs guest_;
  CLI::Option* hello_opt_ = nullptr;
};

}  // namespace

std::unique_ptr<Command> make_boot_command() { return std::make_unique<BootCommand>(); }

}  // namespace topolab::cli
