#pragma once
// Layout loading plus the override options plan/xml/apply share (--expose, --policy, ...,
// and --set KEY=VALUE for any layout field).
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/layout/layout_fields.hpp"

namespace topolab::cli {

struct LayoutArgs {
  std::string layout;                                          // file or preset name
  std::vector<std::pair<std::string, std::string>> overrides;  // key, value in option order
  std::vector<std::string> sets;
};

inline void add_layout_options(CLI::App* cmd, LayoutArgs& args) {
  cmd->add_option("layout", args.layout, "layout file or preset name (templates/topologies)")
      ->required();
  // The override options come from the layout field table: a row with a flag is an option.
  for (const auto& f : layout_fields()) {
    if (f.cli_flag.empty()) continue;
    std::string key(f.key);
    cmd->add_option_function<std::string>(
           std::string(f.cli_flag),
           [&args, key](const std::string& v) { args.overrides.emplace_back(key, v); },
           std::string(f.cli_help))
        ->type_name("VALUE");
  }
  cmd->add_option("--set", args.sets, "override any layout field: KEY=VALUE (e.g. cpu.model=X)")
      ->type_name("KEY=VALUE");
}

inline Result<Layout> load_layout_with_overrides(const LayoutArgs& args) {
  TL_ASSIGN(auto layout, load_layout_or_preset(args.layout));
  auto fields = args.overrides;
  for (const auto& s : args.sets) {
    auto eq = s.find('=');
    if (eq == std::string::npos) {
      return make_error("--set '" + s + "': expected KEY=VALUE");
    }
    fields.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  for (const auto& [k, v] : fields) TL_TRY_CTX(set_layout_field(layout, k, v), "override");
  TL_TRY_CTX(validate_layout(layout), args.layout + " (with overrides)");
  return layout;
}

}  // namespace topolab::cli
