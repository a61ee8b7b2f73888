// Placeholder until the 'image' subcommand is implemented; it refuses to run.
#include <cstdio>

#include "orchestrator/cli/command.hpp"

namespace topolab::cli {
namespace {

class ImageCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    return app.add_subcommand("image", "(not implemented yet)");
  }
  int run() override {
    std::fprintf(stderr, "topolab image: not implemented yet\n");
    return 2;
  }
};

}  // namespace

std::unique_ptr<Command> make_image_command() { return std::make_unique<ImageCommand>(); }

}  // namespace topolab::cli
