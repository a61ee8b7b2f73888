#pragma once
// How the benchmark of one run was scheduled (issue 26): the `telemetry` object of a guest
// result. The agent measures it around the benchmark (guest-agent/bench/telemetry.hpp); the host
// validates it at receipt with the rest of the result (validate_result) and stores it inside the
// result JSON, so a store row without it (older agent or store) reads as "not recorded".
// Every field is optional: an OS that cannot give one names it in `omitted` with the reason.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace topolab::protocol {

// Bounds of the telemetry object. A run is bounded by its timeout (hours, not months), the agent
// samples at most every kTelemetryIntervalMs and stops at kMaxTelemetrySamples ticks.
inline constexpr double kMaxTelemetrySeconds = 1e7;                    // CPU seconds of one run
inline constexpr std::uint64_t kMaxTelemetryCount = 1000000000000ULL;  // switches, migrations
inline constexpr std::uint64_t kMaxTelemetrySamples = 100000;          // sampling ticks of one run
inline constexpr std::uint64_t kMaxSampledThreads = 1024;              // threads seen by one tick
inline constexpr int kTelemetryIntervalMs = 10;        // the agent's sampling period
inline constexpr std::size_t kMaxOmittedBytes = 1024;  // one omission reason

struct RunTelemetry {
  std::optional<double> cpu_user_s, cpu_sys_s;
  std::optional<std::uint64_t> ctx_switches_involuntary, ctx_switches_voluntary;
  // Counted by sampling each benchmark thread's CPU (a change between two ticks = 1).
  std::optional<std::uint64_t> migrations, migrations_cross_l3, migrations_cross_package;
  // The kernel's own count (perf_event_open PERF_COUNT_SW_CPU_MIGRATIONS, Linux).
  std::optional<std::uint64_t> kernel_migrations;
  std::uint64_t samples = 0;                   // sampling ticks taken
  std::map<std::string, std::string> omitted;  // field -> why the OS does not give it
};

// The fields a cell's report summarises, in print order (the name is the JSON key).
struct TelemetryField {
  const char* name;
  bool seconds;  // CPU seconds (double); else a count
};
const std::vector<TelemetryField>& telemetry_fields();
// The value of `name` in t, nullopt when absent.
std::optional<double> telemetry_value(const RunTelemetry& t, const std::string& name);

// Errors read "field 'telemetry.migrations': expected an integer 0..1e12, got number -1".
// Unknown members are dropped; arrays and nesting are bounded before anything is read.
Result<RunTelemetry> parse_telemetry(const nlohmann::json& value);
nlohmann::json telemetry_to_json(const RunTelemetry& t);

}  // namespace topolab::protocol
