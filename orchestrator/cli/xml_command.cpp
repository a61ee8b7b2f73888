// Placeholder until the 'xml' subcommand is implemented; it refuses to run.
#include <cstdio>

#include "orchestrator/cli/command.hpp"

namespace topolab::cli {
namespace {

class XmlCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    return app.add_subcommand("xml", "(not implemented yet)");
  }
  int run() override {
    std::fprintf(stderr, "topolab xml: not implemented yet\n");
    return 2;
  }
};

}  // namespace

std::unique_ptr<Command> make_xml_command() { return std::make_unique<XmlCommand>(); }

}  // namespace topolab::cli
