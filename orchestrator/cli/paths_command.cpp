// `topolab paths [--json]`: where this topolab takes its templates and guest agents from, and
// why (environment, installed, build-tree, prefix): the answer to "which templates did it use?"
// and what the packaging test checks.
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/json_text.hpp"
#include "common/terminal_text.hpp"
#include "orchestrator/base/install/install_paths.hpp"
#include "orchestrator/cli/command.hpp"

namespace topolab::cli {
namespace {

class PathsCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* cmd = app.add_subcommand(
        "paths", "Show where templates, examples, docs and the guest agents are taken from");
    cmd->add_flag("--json", json_, "print JSON instead of lines");
    return cmd;
  }

  int run() override {
    const auto in = current_path_inputs();
    const auto p = resolve_install_paths(in);
    std::error_code ec;
    const bool win = std::filesystem::exists(p.windows_agent, ec);
    nlohmann::json j = {{"executable", in.exe.string()},
                        {"templates", p.templates.string()},
                        {"templates_origin", std::string(to_string(p.templates_origin))},
                        {"agent", p.agent.string()},
                        {"agent_origin", std::string(to_string(p.agent_origin))},
                        {"windows_agent", win ? p.windows_agent.string() : ""},
                        {"examples", p.examples.string()},
                        {"docs", p.docs.string()},
                        {"build_marker", p.build_marker.string()}};
    if (json_) {
      std::cout << json_document(j);
      return to_int(ExitCode::ok);
    }
    // The paths come from the environment and the file system: an escape sequence in
    // TOPOLAB_TEMPLATES_DIR must reach the terminal as text, like every outside string.
    for (const auto& [k, v] : j.items())
      std::cout << k << ": " << terminal_safe(v.get<std::string>()) << "\n";
    return to_int(ExitCode::ok);
  }

 private:
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_paths_command() { return std::make_unique<PathsCommand>(); }

}  // namespace topolab::cli
