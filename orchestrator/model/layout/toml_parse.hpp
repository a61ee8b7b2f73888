#pragma once
// toml::parse behind the depth gate (toml_depth.hpp): the only way topolab parses TOML.
// Errors: "ORIGIN:LINE:COLUMN: TOML syntax error: ..." or the depth refusal.
#include <toml++/toml.h>

#include <string>
#include <string_view>

#include "common/result.hpp"

namespace topolab {

Result<toml::table> parse_toml(std::string_view text, const std::string& origin);

}  // namespace topolab
