// Placeholder until the 'doctor' subcommand is implemented; it refuses to run.
#include <cstdio>

#include "orchestrator/cli/command.hpp"

namespace topolab::cli {
namespace {

class DoctorCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    return app.add_subcommand("doctor", "(not implemented yet)");
  }
  int run() override {
    std::fprintf(stderr, "topolab doctor: not implemented yet\n");
    return 2;
  }
};

}  // namespace

std::unique_ptr<Command> make_doctor_command() { return std::make_unique<DoctorCommand>(); }

}  // namespace topolab::cli
