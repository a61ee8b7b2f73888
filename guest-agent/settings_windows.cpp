// Windows side of settings.hpp: the timer resolution (ntdll), the power plan and the processor
// core-parking minimum (powrprof). Both DLLs are reached with GetProcAddress, so a system (or
// wine) without a call reports it per setting instead of failing to load the agent, and a call
// that returns an error is reported with its code: "not supported on this system: CALL
// returned CODE".
#include <windows.h>

#include <cstdio>
#include <string>

#include "guest-agent/settings.hpp"
#include "guest-agent/windows_support.hpp"

namespace topolab::agent::os {
namespace {

namespace proto = protocol;
using nlohmann::json;

using NtQueryTimerResolutionFn = LONG(WINAPI*)(PULONG, PULONG, PULONG);
using NtSetTimerResolutionFn = LONG(WINAPI*)(ULONG, BOOLEAN, PULONG);
using PowerGetActiveSchemeFn = DWORD(WINAPI*)(HKEY, GUID**);
using PowerSetActiveSchemeFn = DWORD(WINAPI*)(HKEY, const GUID*);
using PowerReadValueIndexFn = DWORD(WINAPI*)(HKEY, const GUID*, const GUID*, const GUID*, LPDWORD);
using PowerWriteValueIndexFn = DWORD(WINAPI*)(HKEY, const GUID*, const GUID*, const GUID*, DWORD);

template <typename Fn>
Fn entry(const wchar_t* dll, const char* name) {
  HMODULE m = GetModuleHandleW(dll);
  if (!m) m = LoadLibraryW(dll);
  return m ? reinterpret_cast<Fn>(reinterpret_cast<void*>(GetProcAddress(m, name))) : nullptr;
}

Error unsupported(const char* call, unsigned long code) {
  char hex[16];
  std::snprintf(hex, sizeof(hex), "0x%08lX", code);
  return make_error(ErrorKind::io, std::string("not supported on this system: ") + call +
                                       " returned " + (code > 0xFFFF ? hex : std::to_string(code)));
}
Error missing(const char* call) {
  return make_error(ErrorKind::not_found,
                    std::string("not supported on this system: ") + call + " not found");
}

// Plan names and their GUIDs (winnt.h GUID_MIN_POWER_SAVINGS etc.).
struct Plan {
  const char* name;
  GUID guid;
};
const Plan kPlans[] = {
    {"balanced", {0x381b4222, 0xf694, 0x41f0, {0x96, 0x85, 0xff, 0x5b, 0xb2, 0x60, 0xdf, 0x2e}}},
    {"high_performance",
     {0x8c5e7fda, 0xe8bf, 0x4a96, {0x9a, 0x85, 0xa6, 0xe2, 0x3a, 0x8c, 0x63, 0x5c}}},
    {"power_saver", {0xa1841308, 0x3541, 0x4fab, {0xbc, 0x81, 0xf7, 0x15, 0x56, 0xf2, 0x0b, 0x4a}}},
};
const GUID kProcessorSubgroup = {
    0x54533251, 0x82be, 0x4824, {0x96, 0xc1, 0x47, 0xb6, 0x0b, 0x74, 0x0d, 0x00}};
const GUID kCoreParkingMinCores = {
    0x0cc5b647, 0xc1df, 0x4637, {0x89, 0x1a, 0xde, 0xc3, 0x5c, 0x31, 0x85, 0x83}};

std::string guid_text(const GUID& g) {
  char s[40];
  std::snprintf(s, sizeof(s), "%08lx-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                static_cast<unsigned long>(g.Data1), g.Data2, g.Data3, g.Data4[0], g.Data4[1],
                g.Data4[2], g.Data4[3], g.Data4[4], g.Data4[5], g.Data4[6], g.Data4[7]);
  return s;
}

Result<GUID> active_scheme() {
  auto get = entry<PowerGetActiveSchemeFn>(L"powrprof.dll", "PowerGetActiveScheme");
  if (!get) return missing("PowerGetActiveScheme");
  GUID* scheme = nullptr;
  DWORD rc = get(nullptr, &scheme);
  if (rc != ERROR_SUCCESS || !scheme) return unsupported("PowerGetActiveScheme", rc);
  GUID out = *scheme;
  LocalFree(scheme);
  return out;
}

Result<void> set_scheme(const GUID& g) {
  auto set = entry<PowerSetActiveSchemeFn>(L"powrprof.dll", "PowerSetActiveScheme");
  if (!set) return missing("PowerSetActiveScheme");
  DWORD rc = set(nullptr, &g);
  if (rc != ERROR_SUCCESS) return unsupported("PowerSetActiveScheme", rc);
  return {};
}

Result<json> read_timer() {
  auto query = entry<NtQueryTimerResolutionFn>(L"ntdll.dll", "NtQueryTimerResolution");
  if (!query) return missing("NtQueryTimerResolution");
  ULONG min = 0, max = 0, cur = 0;  // 100 ns units; "min" is the coarsest
  LONG st = query(&min, &max, &cur);
  if (st != 0) return unsupported("NtQueryTimerResolution", static_cast<unsigned long>(st));
  return json(cur / 10000.0);
}

Result<void> set_timer(double ms, bool hold) {
  auto set = entry<NtSetTimerResolutionFn>(L"ntdll.dll", "NtSetTimerResolution");
  if (!set) return missing("NtSetTimerResolution");
  ULONG cur = 0;
  LONG st = set(static_cast<ULONG>(ms * 10000.0 + 0.5), hold ? TRUE : FALSE, &cur);
  if (st != 0) return unsupported("NtSetTimerResolution", static_cast<unsigned long>(st));
  return {};
}

Result<json> read_plan() {
  TL_ASSIGN(GUID g, active_scheme());
  for (const auto& p : kPlans)
    if (IsEqualGUID(g, p.guid)) return json(p.name);
  return json("other " + guid_text(g));  // a custom plan: shown, never matching a request
}

Result<json> read_min_cores() {
  TL_ASSIGN(GUID scheme, active_scheme());
  auto ac = entry<PowerReadValueIndexFn>(L"powrprof.dll", "PowerReadACValueIndex");
  auto dc = entry<PowerReadValueIndexFn>(L"powrprof.dll", "PowerReadDCValueIndex");
  if (!ac || !dc) return missing("PowerReadACValueIndex");
  DWORD a = 0, d = 0;
  if (DWORD rc = ac(nullptr, &scheme, &kProcessorSubgroup, &kCoreParkingMinCores, &a))
    return unsupported("PowerReadACValueIndex", rc);
  if (DWORD rc = dc(nullptr, &scheme, &kProcessorSubgroup, &kCoreParkingMinCores, &d))
    return unsupported("PowerReadDCValueIndex", rc);
  // AC and DC are applied together; a difference means someone else changed one of them.
  if (a != d)
    return make_error(ErrorKind::input,
                      "CPMINCORES differs: AC " + std::to_string(a) + ", DC " + std::to_string(d));
  return json(static_cast<std::int64_t>(a));
}

Result<void> write_min_cores(DWORD pct) {
  TL_ASSIGN(GUID scheme, active_scheme());
  auto ac = entry<PowerWriteValueIndexFn>(L"powrprof.dll", "PowerWriteACValueIndex");
  auto dc = entry<PowerWriteValueIndexFn>(L"powrprof.dll", "PowerWriteDCValueIndex");
  if (!ac || !dc) return missing("PowerWriteACValueIndex");
  if (DWORD rc = ac(nullptr, &scheme, &kProcessorSubgroup, &kCoreParkingMinCores, pct))
    return unsupported("PowerWriteACValueIndex", rc);
  if (DWORD rc = dc(nullptr, &scheme, &kProcessorSubgroup, &kCoreParkingMinCores, pct))
    return unsupported("PowerWriteDCValueIndex", rc);
  return set_scheme(scheme);  // re-activating the scheme makes the new index take effect
}

}  // namespace

GuestOs this_os() { return GuestOs::kWindows; }

void set_settings_root(const std::string&) {}

Result<json> read_setting(const proto::SettingRow& row) {
  switch (row.windows_call) {
    case proto::WindowsCall::kTimerResolution:
      return read_timer();
    case proto::WindowsCall::kPowerScheme:
      return read_plan();
    case proto::WindowsCall::kCoreParkingMinCores:
      return read_min_cores();
    case proto::WindowsCall::kNone:
      break;
  }
  return make_error(ErrorKind::internal, std::string(row.name) + ": no Windows call");
}

Result<void> write_setting(const proto::SettingRow& row, const json& value) {
  switch (row.windows_call) {
    case proto::WindowsCall::kTimerResolution:
      return set_timer(value.get<double>(), true);
    case proto::WindowsCall::kPowerScheme:
      for (const auto& p : kPlans)
        if (value == p.name) return set_scheme(p.guid);
      return make_error(ErrorKind::input, std::string(row.name) + ": unknown plan " + value.dump());
    case proto::WindowsCall::kCoreParkingMinCores:
      return write_min_cores(static_cast<DWORD>(value.get<std::int64_t>()));
    case proto::WindowsCall::kNone:
      break;
  }
  return make_error(ErrorKind::internal, std::string(row.name) + ": no Windows call");
}

Result<void> restore_setting(const proto::SettingRow& row, const json& original) {
  // The timer resolution is the finest any process asks for: releasing ours restores it.
  if (row.windows_call == proto::WindowsCall::kTimerResolution) return set_timer(0, false);
  if (row.windows_call == proto::WindowsCall::kPowerScheme && original.is_string() &&
      original.get<std::string>().rfind("other ", 0) == 0) {
    return make_error(ErrorKind::input, "the original plan " + original.get<std::string>() +
                                            " is not one topolab names; left as it is now");
  }
  return write_setting(row, original);
}

}  // namespace topolab::agent::os
