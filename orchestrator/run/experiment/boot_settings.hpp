#pragma once
// The experiment file's [boot] table (issue 17): the boot watchdog's settings for every cell
// of the run, next to the command line's --boot-retries / --boot-watchdog (which win):
//   [boot]
//   retries = 1         # boots of a hung guest retried, 0..5 (default 1)
//   watchdog_ms = 0     # console silence before hello that counts as a hang:
//                       # 0 derived from vCPUs and accelerator, -1 off, or 1000..3600000
#include <toml++/toml.h>

#include <optional>
#include <string>

#include "common/result.hpp"

namespace topolab::experiment {

inline constexpr int kMaxBootRetries = 5;
// -1 (off), 0 (derived) or 1000..3600000 ms: one rule for the file and the command line.
constexpr bool valid_watchdog_ms(long long ms) {
  return ms == -1 || ms == 0 || (ms >= 1000 && ms <= 3600000);
}

struct BootSettings {
  std::optional<int> retries;
  std::optional<int> watchdog_ms;
};

// Parses the [boot] table; errors name origin:line and the key.
Result<BootSettings> parse_boot_settings(const toml::node& table, const std::string& origin);

}  // namespace topolab::experiment
