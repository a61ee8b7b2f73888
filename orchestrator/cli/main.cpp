#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <string>

#include "common/exit_code.hpp"
#include "common/interrupt_gate.hpp"
#include "common/result.hpp"
#include "common/terminal_text.hpp"
#include "orchestrator/base/logging/log.hpp"
#include "orchestrator/cli/command.hpp"

namespace topolab::cli {

void print_error(std::string_view command, std::string_view message) {
  interrupt::hold_if_interrupted();  // an interrupt's consequence is not the command's error
  std::string line = "topolab";
  if (!command.empty()) line += " " + std::string(command);
  // The one place every refusal reaches the terminal: escaped and bounded in size.
  line += ": " + terminal_safe(bounded_text(message)) + "\n";
  std::fputs(line.c_str(), stderr);
}

int fail(std::string_view command, const Error& e) {
  // An internal error says so: the user should report it, not fix their input.
  print_error(command, e.is(ErrorKind::internal) ? "internal error: " + e.message : e.message);
  logging::debug("error kind {}", to_string(e.kind));
  return to_int(exit_code_for(e));
}

int fail(std::string_view command, std::string_view message, ExitCode code) {
  print_error(command, message);
  return to_int(code);
}

namespace {

// Options whose empty value means something (an empty kernel command line).
bool empty_allowed(const CLI::Option& opt) { return opt.get_name() == "--cmdline"; }

// An explicitly empty value ("--store ''", "--base ''", "--guest-cpus ''") used to mean "not
// given" and silently fell back to a default (redteam): one check for every named option.
std::string empty_option_error(const CLI::App& sub) {
  for (const CLI::Option* opt : sub.get_options()) {
    if (!opt->nonpositional() || opt->get_type_size() == 0 || empty_allowed(*opt)) continue;
    for (const auto& value : opt->results())
      if (value.empty())
        return "option " + opt->get_name() +
               ": empty value (expected a value, or leave the option out)";
  }
  return "";
}

// --log-level, -v, -q: on the app, and accepted after any subcommand (fallthrough).
struct LogOptions {
  std::string level;
  int verbose = 0;
  bool quiet = false;
  bool internal_error_selftest = false;

  void add(CLI::App& app) {
    auto* level_opt =
        app.add_option("--log-level", level, "stderr log level: trace|debug|info|warn|error|off")
            ->check(CLI::IsMember({"trace", "debug", "info", "warn", "warning", "error", "off"}));
    auto* v = app.add_flag("-v,--verbose", verbose, "more detail on stderr (debug; -vv: trace)");
    auto* q = app.add_flag("-q,--quiet", quiet,
                           "only warnings and errors on stderr (run: no progress either)");
    v->excludes(q);
    level_opt->excludes(v)->excludes(q);
    // Hidden (empty group): makes main meet an unchecked Result, to test that a bug exits 70.
    app.add_flag("--internal-error-selftest", internal_error_selftest)->group("");
  }
  logging::Level chosen() const {
    if (!level.empty()) return *logging::parse_level(level);
    if (quiet) return logging::Level::warn;
    if (verbose >= 2) return logging::Level::trace;
    if (verbose == 1) return logging::Level::debug;
    return logging::Level::info;
  }
};

std::vector<std::unique_ptr<Command>> all_commands() {
  std::vector<std::unique_ptr<Command>> commands;
  commands.push_back(make_host_command());
  commands.push_back(make_plan_command());
  commands.push_back(make_xml_command());
  commands.push_back(make_apply_command());
  commands.push_back(make_image_command());
  commands.push_back(make_boot_command());
  commands.push_back(make_run_command());
  commands.push_back(make_report_command());
  commands.push_back(make_merge_command());
  commands.push_back(make_slurm_command());
  commands.push_back(make_doctor_command());
  commands.push_back(make_hook_command());
  commands.push_back(make_paths_command());
  return commands;
}

// Runs the parsed subcommand. A FatalError is an unchecked Result and any other exception an
// unexpected one: both are bugs (exit 70), never a user's error.
int dispatch(const std::vector<std::pair<CLI::App*, Command*>>& subs, bool selftest) {
  try {
    if (selftest) {
      Result<int> unchecked =
          make_error(ErrorKind::internal, "self-test: a Result read without checking it");
      return *unchecked;
    }
    for (auto& [sub, cmd] : subs) {
      if (!sub->parsed()) continue;
      if (auto err = empty_option_error(*sub); !err.empty()) {
        return fail(sub->get_name(), err, ExitCode::failed);
      }
      return cmd->run();
    }
  } catch (const topolab::FatalError& e) {
    print_error("", std::string("internal error: ") + e.what());
  } catch (const std::exception& e) {
    print_error("", std::string("internal error: ") + e.what());
  }
  return to_int(ExitCode::internal);
}

}  // namespace

}  // namespace topolab::cli

int main(int argc, char** argv) {
  using namespace topolab::cli;
  namespace logging = topolab::logging;
  // A closed socket must come back as a failed write, not kill the run: libvirt's client
  // writes to libvirtd's socket, which a libvirtd restart closes (found by the fault tests:
  // the run died of SIGPIPE and left its domain running).
  std::signal(SIGPIPE, SIG_IGN);
  const auto start = std::chrono::steady_clock::now();
  CLI::App app{"topolab: VM CPU-topology experiments", "topolab"};
  app.set_version_flag("--version", TOPOLAB_VERSION);
  app.require_subcommand(1);
  LogOptions log_options;
  log_options.add(app);
  // CLI11 echoes a refused value in full (a 1 MB --accel value printed 1 MB): its messages go
  // through the same escape and bound as ours.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return topolab::terminal_safe(topolab::bounded_text(e.what())) +
           "\nRun with --help for more information.\n";
  });

  auto commands = all_commands();
  std::vector<std::pair<CLI::App*, Command*>> subs;
  for (auto& c : commands) {
    CLI::App* sub = c->setup(app);
    sub->fallthrough();  // -v, -q, --log-level after the subcommand reach the app
    subs.emplace_back(sub, c.get());
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  logging::set_console_level(log_options.chosen());
  int code = dispatch(subs, log_options.internal_error_selftest);
  logging::debug("exit {} after {} ms", code,
                 std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - start)
                     .count());
  topolab::interrupt::hold_if_interrupted();
  return code;
}
