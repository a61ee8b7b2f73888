#include <csignal>
#include <cstdio>
#include <exception>
#include <string>

#include "common/result.hpp"
#include "common/terminal_text.hpp"
#include "orchestrator/cli/command.hpp"

namespace topolab::cli {

void print_error(std::string_view command, std::string_view message) {
  std::string line = "topolab";
  if (!command.empty()) line += " " + std::string(command);
  line += ": " + terminal_safe(message) + "\n";
  std::fputs(line.c_str(), stderr);
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

}  // namespace

}  // namespace topolab::cli

int main(int argc, char** argv) {
  using namespace topolab::cli;
  // A closed socket must come back as a failed write, not kill the run: libvirt's client
  // writes to libvirtd's socket, which a libvirtd restart closes (found by the fault tests:
  // the run died of SIGPIPE and left its domain running).
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"topolab: VM CPU-topology experiments", "topolab"};
  app.set_version_flag("--version", TOPOLAB_VERSION);
  app.require_subcommand(1);

  std::vector<std::unique_ptr<Command>> commands;
  commands.push_back(make_host_command());
  commands.push_back(make_plan_command());
  commands.push_back(make_xml_command());
  commands.push_back(make_apply_command());
  commands.push_back(make_image_command());
  commands.push_back(make_boot_command());
  commands.push_back(make_run_command());
  commands.push_back(make_report_command());
  commands.push_back(make_doctor_command());
  commands.push_back(make_hook_command());
  commands.push_back(make_paths_command());

  std::vector<std::pair<CLI::App*, Command*>> subs;
  for (auto& c : commands) subs.emplace_back(c->setup(app), c.get());

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  for (auto& [sub, cmd] : subs) {
    if (!sub->parsed()) continue;
    if (auto err = empty_option_error(*sub); !err.empty()) {
      print_error(sub->get_name(), err);
      return 1;
    }
  }
  try {
    for (auto& [sub, cmd] : subs) {
      if (sub->parsed()) return cmd->run();
    }
  } catch (const topolab::FatalError& e) {
    print_error("", e.what());
    return 1;
  } catch (const std::exception& e) {
    print_error("", std::string("internal error: ") + e.what());
    return 70;
  }
  return 1;
}
