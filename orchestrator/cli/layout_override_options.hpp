#pragma once
// Layout loading plus the override options plan/xml/apply share (--expose, --policy, ...,
// and --set KEY=VALUE for any layout field).
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/layout/layout.hpp"

namespace topolab::cli {

struct LayoutArgs {
  std::string layout;                                          // file or preset name
  std::vector<std::pair<std::string, std::string>> overrides;  // key, value in option order
  std::vector<std::string> sets;
};

inline void add_layout_options(CLI::App* cmd, LayoutArgs& args) {
  cmd->add_option("layout", args.layout, "layout file or preset name (templates/topologies)")
      ->required();
  struct Opt {
    const char* flag;
    const char* key;
    const char* help;
  };
  static const Opt opts[] = {
      {"--expose", "expose.as", "override: flat | sockets | dies | numa"},
      {"--policy", "placement.policy",
       "override: l3-aligned | compact | scatter | unpinned | explicit"},
      {"--host-cpus", "placement.host_cpus", "override: host CPUs the guest may use (list)"},
      {"--housekeeping-cpus", "placement.housekeeping_cpus",
       "override: CPUs for emulator and I/O threads (list)"},
      {"--groups", "guest.l3_groups", "override: number of L3 groups"},
      {"--cores", "guest.cores_per_group", "override: cores per group"},
      {"--threads", "guest.threads_per_core", "override: threads per core"},
      {"--memory", "guest.memory_mib", "override: guest memory in MiB"},
  };
  for (const auto& o : opts) {
    std::string key = o.key;
    cmd->add_option_function<std::string>(
           o.flag, [&args, key](const std::string& v) { args.overrides.emplace_back(key, v); },
           o.help)
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
