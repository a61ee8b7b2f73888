#include "protocol/guest_settings.hpp"

#include <array>
#include <cmath>

#include "protocol/benchmark_result.hpp"

namespace topolab::protocol {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 2> kOnOff = {"on", "off"};
constexpr std::array<std::string_view, 3> kPowerPlans = {"balanced", "high_performance",
                                                         "power_saver"};

// The table. Linux files are relative to the guest's root; the agent mounts debugfs for the
// scheduler rows when it is not mounted (docs/guest-agent.md "Guest settings").
constexpr std::array<SettingRow, 8> kRows = {{
    {"os.timer_resolution_ms",
     GuestOs::kWindows,
     SettingType::kNumber,
     0.5,
     15.625,
     {},
     // NtQueryTimerResolution counts 100 ns: the nearest step the kernel grants is 0.0001 ms
     // away at worst; Windows rounds 0.5 to 0.5 exactly on real hardware.
     0.01,
     "",
     WindowsCall::kTimerResolution,
     "NtSetTimerResolution(value, TRUE), held by the agent while the runs that ask for it execute",
     "NtQueryTimerResolution (current)",
     "NtSetTimerResolution(FALSE): the request released"},
    {"os.power_plan", GuestOs::kWindows, SettingType::kChoice, 0, 0, kPowerPlans, 0, "",
     WindowsCall::kPowerScheme, "PowerSetActiveScheme(GUID of the plan)",
     "PowerGetActiveScheme, mapped back to the plan's name",
     "PowerSetActiveScheme(the scheme active when the agent first changed it)"},
    {"os.core_parking_min_cores_pct",
     GuestOs::kWindows,
     SettingType::kInteger,
     0,
     100,
     {},
     0,
     "",
     WindowsCall::kCoreParkingMinCores,
     "PowerWriteACValueIndex/PowerWriteDCValueIndex(active scheme, processor, CPMINCORES), then "
     "PowerSetActiveScheme",
     "PowerReadACValueIndex (AC; DC must agree)",
     "the AC and DC values seen first are written back"},
    {"os.smt", GuestOs::kLinux, SettingType::kChoice, 0, 0, kOnOff, 0,
     "sys/devices/system/cpu/smt/control", WindowsCall::kNone,
     "write on|off to /sys/devices/system/cpu/smt/control (CPU hotplug of the siblings)",
     "read /sys/devices/system/cpu/smt/control", "the value read before the first change"},
    {"os.sched_autogroup",
     GuestOs::kLinux,
     SettingType::kInteger,
     0,
     1,
     {},
     0,
     "proc/sys/kernel/sched_autogroup_enabled",
     WindowsCall::kNone,
     "write to /proc/sys/kernel/sched_autogroup_enabled (kernel.sched_autogroup_enabled)",
     "read the same file",
     "the value read before the first change"},
    {"os.timer_migration",
     GuestOs::kLinux,
     SettingType::kInteger,
     0,
     1,
     {},
     0,
     "proc/sys/kernel/timer_migration",
     WindowsCall::kNone,
     "write to /proc/sys/kernel/timer_migration (kernel.timer_migration)",
     "read the same file",
     "the value read before the first change"},
    {"os.sched_migration_cost_ns",
     GuestOs::kLinux,
     SettingType::kInteger,
     0,
     1e9,
     {},
     0,
     "sys/kernel/debug/sched/migration_cost_ns",
     WindowsCall::kNone,
     "write to debugfs sched/migration_cost_ns (debugfs mounted by the agent when needed)",
     "read the same file",
     "the value read before the first change"},
    {"os.sched_nr_migrate",
     GuestOs::kLinux,
     SettingType::kInteger,
     1,
     1e6,
     {},
     0,
     "sys/kernel/debug/sched/nr_migrate",
     WindowsCall::kNone,
     "write to debugfs sched/nr_migrate (debugfs mounted by the agent when needed)",
     "read the same file",
     "the value read before the first change"},
}};

std::string number_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  json j = v;
  return j.dump();
}

std::string shown(const json& v) {
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (s.size() > 64) s = s.substr(0, 64) + "...";
  return s;
}

// A value of the wrong type, a string quoted: "0" is not shown as the number 0 (redteam
// 2026-12-02, E15).
std::string shown_typed(const json& v) { return v.is_string() ? "\"" + shown(v) + "\"" : shown(v); }

// A value of the row's type (range not checked): what a read-back may be.
Result<json> typed_value(const SettingRow& row, const json& v) {
  const std::string expected = std::string(row.name) + ": expected " + setting_domain(row);
  switch (row.type) {
    case SettingType::kChoice:
      if (!v.is_string())
        return make_error(ErrorKind::input, expected + ", got " + shown(v) + " (not a string)");
      if (v.get_ref<const std::string&>().size() > kMaxNameBytes)
        return make_error(ErrorKind::input,
                          expected + ", got a string of " +
                              std::to_string(v.get_ref<const std::string&>().size()) + " bytes");
      return v;
    case SettingType::kInteger: {
      // 1 and 1.0 are one integer; beyond 2^53 a double is no longer exact.
      const bool whole_float = v.is_number_float() && std::isfinite(v.get<double>()) &&
                               v.get<double>() == std::floor(v.get<double>()) &&
                               std::fabs(v.get<double>()) < 9e15;
      const bool small_unsigned = !v.is_number_unsigned() || v.get<std::uint64_t>() < 9e15;
      if (!(v.is_number_integer() && small_unsigned) && !whole_float)
        return make_error(ErrorKind::input,
                          expected + ", got " + shown_typed(v) + " (not an integer)");
      return json(whole_float ? static_cast<std::int64_t>(v.get<double>()) : v.get<std::int64_t>());
    }
    case SettingType::kNumber:
      if (!v.is_number())
        return make_error(ErrorKind::input,
                          expected + ", got " + shown_typed(v) + " (not a number)");
      if (!std::isfinite(v.get<double>()))
        return make_error(ErrorKind::input, expected + ", got a non-finite number");
      return json(v.get<double>());
  }
  return make_error(ErrorKind::input, expected);
}

}  // namespace

std::span<const SettingRow> setting_rows() { return kRows; }

const SettingRow* find_setting(std::string_view name) {
  for (const auto& r : kRows)
    if (r.name == name) return &r;
  return nullptr;
}

std::string setting_names(GuestOs os) {
  std::string out;
  for (const auto& r : kRows)
    if (r.os == os) out += (out.empty() ? "" : ", ") + std::string(r.name);
  return out;
}

std::string setting_domain(const SettingRow& row) {
  if (row.type == SettingType::kChoice) {
    std::string out;
    for (auto c : row.choices) out += (out.empty() ? "" : " | ") + std::string(c);
    return out;
  }
  return std::string(row.type == SettingType::kInteger ? "an integer " : "a number ") +
         number_text(row.min) + ".." + number_text(row.max);
}

Result<json> check_setting_value(const SettingRow& row, const json& value) {
  TL_ASSIGN(json v, typed_value(row, value));
  const std::string expected = std::string(row.name) + ": expected " + setting_domain(row);
  if (row.type == SettingType::kChoice) {
    for (auto c : row.choices)
      if (v.get_ref<const std::string&>() == c) return v;
    return make_error(ErrorKind::input, expected + ", got '" + shown(v) + "'");
  }
  const double d = v.get<double>();
  if (d < row.min || d > row.max)
    return make_error(ErrorKind::input, expected + ", got " + shown(v));
  return v;
}

bool setting_matches(const SettingRow& row, const json& requested, const json& seen) {
  if (row.type == SettingType::kChoice) return requested == seen;
  if (!requested.is_number() || !seen.is_number()) return false;
  return std::fabs(requested.get<double>() - seen.get<double>()) <= row.tolerance;
}

json settings_to_json(const SettingStates& states) {
  json out = json::object();
  for (const auto& [name, s] : states) {
    if (s.value) {
      out[name] = {{"value", *s.value}};
    } else {
      out[name] = {{"error", s.error}};
    }
  }
  return out;
}

Result<SettingStates> parse_setting_states(const json& settings, const std::string& where) {
  if (!settings.is_object())
    return make_error(ErrorKind::input,
                      where + ": 'settings' must be an object, got " + settings.type_name());
  if (settings.size() > kMaxSettings)
    return make_error(ErrorKind::input, where + ": " + std::to_string(settings.size()) +
                                            " settings, more than " + std::to_string(kMaxSettings));
  SettingStates out;
  for (const auto& [name, entry] : settings.items()) {
    const SettingRow* row = find_setting(name);
    if (!row)
      return make_error(ErrorKind::input, where + ": unknown setting '" + shown(json(name)) + "'");
    const std::string at = where + ": settings." + name;
    if (!entry.is_object()) return make_error(ErrorKind::input, at + " must be an object");
    SettingState s;
    if (auto v = entry.find("value"); v != entry.end() && !v->is_null()) {
      auto typed = typed_value(*row, *v);
      if (!typed) return typed.error().context(at);
      s.value = *typed;
    } else if (auto e = entry.find("error"); e != entry.end() && e->is_string()) {
      s.error = e->get<std::string>();
      if (s.error.size() > kMaxTextBytes)
        return make_error(ErrorKind::input,
                          at + ".error: longer than " + std::to_string(kMaxTextBytes) + " bytes");
    } else {
      return make_error(ErrorKind::input, at + ": expected {\"value\": V} or {\"error\": \"...\"}");
    }
    out[name] = std::move(s);
  }
  return out;
}

Result<std::map<std::string, json>> parse_setting_request(const json& settings,
                                                          const std::string& where) {
  if (!settings.is_object())
    return make_error(ErrorKind::input,
                      where + ": 'settings' must be an object, got " + settings.type_name());
  if (settings.size() > kMaxSettings)
    return make_error(ErrorKind::input, where + ": " + std::to_string(settings.size()) +
                                            " settings, more than " + std::to_string(kMaxSettings));
  std::map<std::string, json> out;
  for (const auto& [name, value] : settings.items()) {
    const SettingRow* row = find_setting(name);
    if (!row)
      return make_error(ErrorKind::input, where + ": unknown setting '" + shown(json(name)) + "'");
    auto checked = check_setting_value(*row, value);
    if (!checked) return checked.error().context(where);
    out[name] = *checked;
  }
  return out;
}

}  // namespace topolab::protocol
