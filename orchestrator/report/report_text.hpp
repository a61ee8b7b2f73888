#pragma once
// Text helpers the reporters of this folder share: one copy, since a unity batch compiles
// several reporters in one unit (issue 31).
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "common/terminal_text.hpp"

namespace topolab::report {

// Every text cell of a console table goes through terminal_safe (class 8).
inline std::string tt(const std::string& s) { return terminal_safe(s); }

inline nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nullptr;
}

}  // namespace topolab::report
