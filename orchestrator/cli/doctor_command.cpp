// `topolab doctor`: is this host ready for the layout's guest? Thin: options -> run_doctor.
#include <cstdio>
#include <iostream>

#include "common/json_text.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/hostprep/doctor/doctor.hpp"
#include "orchestrator/hostprep/doctor/layout_requirements.hpp"

namespace topolab::cli {
namespace {

class DoctorCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* cmd = app.add_subcommand("doctor",
                                   "Check host readiness (KVM, IOMMU, isolation, "
                                   "hugepages, governor, IRQs) for a layout");
    cmd->add_option("--connect,-c", connect_, "libvirt URI (default qemu:///system)");
    cmd->add_option("--layout", layout_,
                    "layout file or preset name whose guest the host should be ready for");
    cmd->add_option("--root", root_, "filesystem root to read /sys, /proc, /etc from (tests)")
        ->capture_default_str();
    cmd->add_option("--guest-cpus", guest_cpus_, "host CPUs of the guest (overrides the layout)");
    cmd->add_option("--guest-os", guest_os_,
                    "guest OS edition: windows-home, windows-pro, windows-workstation, "
                    "windows-server, linux (socket limits)");
    cmd->add_flag("--no-libvirt", no_libvirt_, "skip the libvirt check");
    cmd->add_flag("--json", json_, "print JSON");
    return cmd;
  }

  int run() override {
    if (auto root = doctor::check_root_folder(root_); !root) {
      return fail("doctor", root.error().message, ExitCode::usage);
    }
    doctor::DoctorOptions options;
    options.root = root_;
    options.connect_uri = connect_;
    options.check_libvirt = !no_libvirt_;
    if (!layout_.empty() || !guest_cpus_.empty() || !guest_os_.empty()) {
      doctor::RequirementsRequest req{layout_, root_, connect_, guest_cpus_, guest_os_};
      auto guest = doctor::load_guest_requirements(req);
      // Bad guest requirements have their own code (2): 1 means a check failed.
      if (!guest) return fail("doctor", guest.error().message, ExitCode::usage);
      options.guest = *guest;
    }
    auto results = doctor::run_doctor(options);
    if (json_) {
      nlohmann::json out = {{"root", root_},
                            {"status", doctor::to_string(doctor::worst_status(results))},
                            {"checks", doctor::to_json(results)}};
      if (options.guest) out["layout"] = options.guest->name;
      std::cout << json_document(out);
    } else {
      doctor::print_check_table(std::cout, results);
    }
    return to_int(doctor::any_failed(results) ? ExitCode::failed : ExitCode::ok);
  }

 private:
  std::string connect_, layout_, root_ = "/", guest_cpus_, guest_os_;
  bool json_ = false, no_libvirt_ = false;
};

}  // namespace

std::unique_ptr<Command> make_doctor_command() { return std::make_unique<DoctorCommand>(); }

}  // namespace topolab::cli
