#pragma once
// The one table of guest OS settings (issue 25): every `os.*` experiment factor, compiled into
// the host and both agents. A row says which OS has the setting, what values it takes, how the
// agent applies, reads back and restores it, and how close the read-back must be to count as
// applied. Adding a setting is adding a row here (and, for a Windows row, its Win32 call in
// guest-agent/settings_windows.cpp; a Linux row is a file and needs nothing else).
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "protocol/guest_os.hpp"

namespace topolab::protocol {

// number: finite double in [min, max]; integer: whole number in [min, max]; choice: a string of
// `choices`.
enum class SettingType { kNumber, kInteger, kChoice };

// How the Windows agent reaches a Windows row (the Linux agent only needs `linux_file`).
enum class WindowsCall { kNone, kTimerResolution, kPowerScheme, kCoreParkingMinCores };

struct SettingRow {
  std::string_view name;  // the factor key: "os.smt"
  GuestOs os;
  SettingType type;
  double min = 0, max = 0;                    // kNumber / kInteger
  std::span<const std::string_view> choices;  // kChoice
  double tolerance = 0;                       // |seen - requested| allowed (numbers only)
  // Linux: the file written and read back (under the agent's own mounts of /proc, /sys and
  // /sys/kernel/debug). Windows: which call.
  std::string_view linux_file;
  WindowsCall windows_call = WindowsCall::kNone;
  // Prose for docs and error messages.
  std::string_view apply, read_back, restore;
};

std::span<const SettingRow> setting_rows();
const SettingRow* find_setting(std::string_view name);
// The names of one OS's rows, comma-separated (for "expected one of ..." messages).
std::string setting_names(GuestOs);
// "0.5..15.625", "on | off", "0..1": the row's values as a reader writes them.
std::string setting_domain(const SettingRow&);

// A requested value checked against its row: type, finite, range, choice. The error says what
// was expected ("os.smt: expected on | off, got 'maybe'").
Result<nlohmann::json> check_setting_value(const SettingRow&, const nlohmann::json& value);
// Whether a read-back value counts as the requested one (per-row tolerance for numbers).
bool setting_matches(const SettingRow&, const nlohmann::json& requested,
                     const nlohmann::json& seen);

// ---- wire shapes ----------------------------------------------------------------------------
inline constexpr std::size_t kMaxSettings = 64;  // settings in one hello or configure

// hello.settings: what this agent can change on this guest, with the current value, or why not.
struct SettingState {
  std::optional<nlohmann::json> value;  // current value (set when available)
  std::string error;                    // why this guest cannot have it (value empty)
};
using SettingStates = std::map<std::string, SettingState>;

nlohmann::json settings_to_json(const SettingStates&);
// Validates a hello's or configured reply's "settings" object: names of known rows, values of
// the row's type (range not enforced: a read-back may be anything the OS reports), bounded
// error strings. `where` prefixes errors.
Result<SettingStates> parse_setting_states(const nlohmann::json& settings,
                                           const std::string& where);
// configure.settings: every name a known row, every value valid for it.
Result<std::map<std::string, nlohmann::json>> parse_setting_request(const nlohmann::json& settings,
                                                                    const std::string& where);

}  // namespace topolab::protocol
