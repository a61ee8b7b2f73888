#pragma once
// topolab's log (through spdlog, which stays behind this header): lines for the user on stderr
// at the level chosen by --log-level/-v/-q, and every line down to debug in the run folder's
// topolab.log while a RunLog is open (a boot's libvirt calls, timings, agent exchanges).
// The one error line a failed command prints is not a log line: cli::fail prints it.
#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace topolab::logging {

enum class Level { trace, debug, info, warn, error, off };

// "trace", "debug", "info", "warn" (or "warning"), "error", "off"; nullopt otherwise.
std::optional<Level> parse_level(std::string_view name);

// Sets the stderr level (default info). Safe to call again (tests).
void set_console_level(Level level);
Level console_level();

// Whether a line of `level` goes anywhere (stderr or an open run log): callers skip building
// expensive text otherwise.
bool enabled(Level level);
void write(Level level, std::string_view message);

template <typename... Args>
void log(Level level, fmt::format_string<Args...> format, Args&&... args) {
  if (enabled(level)) write(level, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void trace(fmt::format_string<Args...> f, Args&&... a) {
  log(Level::trace, f, std::forward<Args>(a)...);
}
template <typename... Args>
void debug(fmt::format_string<Args...> f, Args&&... a) {
  log(Level::debug, f, std::forward<Args>(a)...);
}
template <typename... Args>
void info(fmt::format_string<Args...> f, Args&&... a) {
  log(Level::info, f, std::forward<Args>(a)...);
}
template <typename... Args>
void warn(fmt::format_string<Args...> f, Args&&... a) {
  log(Level::warn, f, std::forward<Args>(a)...);
}

// A line for the run log only (e.g. a progress line already drawn on stderr).
void to_run_log(std::string_view message);

// RUN_DIR/topolab.log receives every line at debug and above while this object lives. Created
// 0600 through open_private_append (a planted symlink there is refused, never followed); a
// second boot into the same folder (a watchdog retry) appends. Nested logs stack: the newest
// receives the lines until it closes.
class RunLog {
 public:
  static constexpr const char* kFileName = "topolab.log";
  static Result<RunLog> open(const std::filesystem::path& run_dir);
  RunLog() = default;
  RunLog(RunLog&& other) noexcept : id_(std::exchange(other.id_, 0)) {}
  RunLog& operator=(RunLog&& other) noexcept;
  RunLog(const RunLog&) = delete;
  RunLog& operator=(const RunLog&) = delete;
  ~RunLog();

 private:
  explicit RunLog(std::uint64_t id) : id_(id) {}
  std::uint64_t id_ = 0;  // 0: nothing open
};

}  // namespace topolab::logging
