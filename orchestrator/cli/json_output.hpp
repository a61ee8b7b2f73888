#pragma once
// The text of every `--json` printer. Its strings come from files, paths and guests (a sysfs
// tree's cpuinfo, a folder or store name, a base template): bytes that are not UTF-8 become
// U+FFFD instead of nlohmann's exception, which ended `host`, `plan`, `xml`, `doctor`, `paths`
// and `run` (after the whole run) with exit 70 (redteam wave 4). The output is always JSON.
#include <nlohmann/json.hpp>
#include <string>

namespace topolab::cli {

inline std::string json_text(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace topolab::cli
