#pragma once
// Time stamps in UTC (run ids, backups, store rows, probe caches). Header-only: the TSan tree
// lists its library sources one by one.
#include <time.h>

#include <ctime>
#include <string>

namespace topolab {

inline constexpr const char* kIso8601Utc = "%Y-%m-%dT%H:%M:%SZ";

// The current time in UTC, formatted by strftime `format` (at most 63 characters).
inline std::string utc_now(const char* format = kIso8601Utc) {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::size_t n = std::strftime(buf, sizeof buf, format, &tm);
  return std::string(buf, n);
}

}  // namespace topolab
