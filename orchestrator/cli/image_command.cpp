// `topolab image [-o DIR] [--kernel PATH] [--agent PATH] [--json]`: builds (or reuses) the
// built-in guest image and prints where it is.
// `topolab image --windows [-o DIR] [--agent EXE] [--json]`: writes the CD image that installs
// the Windows guest agent (orchestrator/guest/image/windows_iso.hpp).
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/json_text.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/guest/image/guest_image.hpp"
#include "orchestrator/guest/image/windows_iso.hpp"

namespace topolab::cli {
namespace {

class ImageCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* cmd = app.add_subcommand(
        "image", "Build the built-in guest image (kernel + initramfs with the agent as /init)");
    cmd->add_option("-o,--output", output_, "Output folder (default /var/cache/topolab/image)");
    cmd->add_option("--kernel", kernel_, "Kernel (default: newest /boot/vmlinuz-*)");
    cmd->add_option(
        "--agent", agent_,
        "Static agent binary (default: the installed or built topolab-agent, see `topolab paths`)");
    cmd->add_option("--modules-dir", modules_dir_,
                    "Folder with modules.dep (default /lib/modules/<kernel version>)");
    cmd->add_flag("--json", json_, "Print the result as JSON");
    cmd->add_flag("--windows", windows_,
                  "Write the Windows agent's CD image (topolab-agent.exe, install.cmd, README) "
                  "instead; --agent then names the .exe");
    return cmd;
  }

  int run() override {
    if (windows_) return run_windows();
    ImageOptions opts;
    opts.output_dir = output_;
    opts.kernel = kernel_;
    opts.agent_binary = agent_;
    opts.modules_dir = modules_dir_;
    auto img = build_guest_image(opts);
    if (!img) return fail("image", img.error());
    if (json_) {
      nlohmann::json j = {{"kernel", img->kernel.string()},
                          {"initrd", img->initrd.string()},
                          {"cmdline", img->cmdline},
                          {"agent_port_name", img->agent_port_name},
                          {"kernel_version", img->kernel_version},
                          {"modules", img->modules},
                          {"initrd_bytes", img->initrd_bytes},
                          {"content_hash", img->content_hash},
                          {"rebuilt", img->rebuilt},
                          {"boot", img->boot_protocol},
                          {"pvh_fallback", img->pvh_fallback},
                          {"pruned", img->pruned}};
      std::cout << json_document(j);
      return to_int(ExitCode::ok);
    }
    std::cout << (img->rebuilt ? "built" : "up to date") << ": " << img->initrd.string() << " ("
              << img->initrd_bytes << " bytes)\n"
              << "kernel:  " << img->kernel.string() << " (" << img->kernel_version << ")\n"
              << "cmdline: " << img->cmdline << "\n"
              << "modules:";
    for (const auto& m : img->modules) std::cout << " " << m;
    std::cout << "\n";
    return to_int(ExitCode::ok);
  }

 private:
  int run_windows() {
    if (!kernel_.empty() || !modules_dir_.empty()) {
      return fail("image", "--kernel and --modules-dir have no meaning with --windows",
                  ExitCode::failed);
    }
    image::WindowsIsoOptions opts;
    opts.output_dir = output_.empty() ? "/var/cache/topolab/windows" : output_;
    opts.agent_exe = agent_;
    auto iso = image::build_windows_iso(opts);
    if (!iso) return fail("image --windows", iso.error());
    if (json_) {
      std::cout << json_document(nlohmann::json{{"iso", iso->iso.string()},
                                                {"files", iso->files},
                                                {"bytes", iso->bytes},
                                                {"agent_bytes", iso->agent_bytes}});
      return to_int(ExitCode::ok);
    }
    std::cout << "written: " << iso->iso.string() << " (" << iso->bytes << " bytes)\nfiles:";
    for (const auto& f : iso->files) std::cout << " " << f;
    std::cout << "\nattach it as a CD-ROM and run install.cmd as Administrator\n";
    return to_int(ExitCode::ok);
  }

  std::string output_, kernel_, agent_, modules_dir_;
  bool json_ = false, windows_ = false;
};

}  // namespace

std::unique_ptr<Command> make_image_command() { return std::make_unique<ImageCommand>(); }

}  // namespace topolab::cli
