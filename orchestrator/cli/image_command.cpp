// `topolab image [-o DIR] [--kernel PATH] [--agent PATH] [--json]`: builds (or reuses) the
// built-in guest image and prints where it is.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "orchestrator/cli/command.hpp"
#include "orchestrator/image/guest_image.hpp"

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
    return cmd;
  }

  int run() override {
    ImageOptions opts;
    opts.output_dir = output_;
    opts.kernel = kernel_;
    opts.agent_binary = agent_;
    opts.modules_dir = modules_dir_;
    auto img = build_guest_image(opts);
    if (!img) {
      print_error("image", img.error().message);
      return 1;
    }
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
      std::cout << j.dump(2) << "\n";
      return 0;
    }
    std::cout << (img->rebuilt ? "built" : "up to date") << ": " << img->initrd.string() << " ("
              << img->initrd_bytes << " bytes)\n"
              << "kernel:  " << img->kernel.string() << " (" << img->kernel_version << ")\n"
              << "cmdline: " << img->cmdline << "\n"
              << "modules:";
    for (const auto& m : img->modules) std::cout << " " << m;
    std::cout << "\n";
    return 0;
  }

 private:
  std::string output_, kernel_, agent_, modules_dir_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_image_command() { return std::make_unique<ImageCommand>(); }

}  // namespace topolab::cli
