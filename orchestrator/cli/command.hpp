#pragma once
// One class per subcommand (rr style). main() registers them all with CLI11, parses, and runs
// the chosen one. Commands are thin: they parse options and call the libraries.
#include <CLI/CLI.hpp>
#include <memory>
#include <string_view>
#include <vector>

#include "common/exit_code.hpp"
#include "common/result.hpp"

namespace topolab::cli {

class Command {
 public:
  virtual ~Command() = default;
  // Adds the subcommand and its options to the app; returns the subcommand.
  virtual CLI::App* setup(CLI::App& app) = 0;
  // Runs after a successful parse; returns the process exit code.
  virtual int run() = 0;
};

// The one printer of error texts to stderr ("topolab CMD: MESSAGE"): messages carry guest and
// file text, so control characters and invalid UTF-8 are made visible (terminal_safe).
void print_error(std::string_view command, std::string_view message);

// The one way a command fails: prints the error (print_error) and returns its exit code
// (exit_code_for: 70 for an internal error, 1 otherwise; docs/reliability.md "Exit codes").
int fail(std::string_view command, const Error& e);
// The same for a message of our own with a given code (usage errors: 2).
int fail(std::string_view command, std::string_view message, ExitCode code);

std::unique_ptr<Command> make_host_command();
std::unique_ptr<Command> make_plan_command();
std::unique_ptr<Command> make_xml_command();
std::unique_ptr<Command> make_apply_command();
std::unique_ptr<Command> make_image_command();
std::unique_ptr<Command> make_boot_command();
std::unique_ptr<Command> make_run_command();
std::unique_ptr<Command> make_report_command();
std::unique_ptr<Command> make_doctor_command();
std::unique_ptr<Command> make_hook_command();
std::unique_ptr<Command> make_paths_command();
std::unique_ptr<Command> make_merge_command();
std::unique_ptr<Command> make_slurm_command();

}  // namespace topolab::cli
