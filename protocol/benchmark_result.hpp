#pragma once
// The one typed boundary for a guest's benchmark result (issue 12, class 1). A result arrives as
// JSON from an untrusted guest (or from a stored row a hostile or older build wrote); nothing
// reads it by string key with an assumed type. validate_result() checks the whole schema once
// (types, finite numbers, string and array sizes, nesting depth, the CPU ids a c2c result names)
// and returns a BenchmarkResult; everything downstream (runner, store, report) uses that.
// Here in protocol/ because the schema is part of the wire protocol and both sides compile it:
// the agent's own output is checked against it in tests, the host validates at receipt
// (AgentClient::run) and again when a report reads the store.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/cpu_list.hpp"
#include "common/result.hpp"
#include "protocol/host_telemetry.hpp"
#include "protocol/run_telemetry.hpp"

namespace topolab::protocol {

// Limits of a result (docs/reliability.md, "Limits"). A real result is far below each.
inline constexpr std::size_t kMaxNameBytes = 64;        // benchmark, metric
inline constexpr std::size_t kMaxUnitBytes = 32;        // unit
inline constexpr std::size_t kMaxTextBytes = 4096;      // any other string, object keys included
inline constexpr std::size_t kMaxSamples = 100000;      // samples[]
inline constexpr std::size_t kMaxArrayItems = 100000;   // any array
inline constexpr std::size_t kMaxObjectMembers = 4096;  // any object
inline constexpr int kMaxResultDepth = 16;              // nesting below the result object
// A CPU id named in a result: the one CPU-id bound of topolab (common/cpu_list.hpp).
inline constexpr std::int64_t kMaxCpuId = kMaxCpuIds - 1;
// CPUs of one core-to-core result (distinct ids in details.pairs, rows of a matrix): the report
// builds an n x n matrix, so n is bounded before any allocation (1024^2 doubles = 8 MiB).
inline constexpr std::size_t kMaxC2cCpus = 1024;

// summary: n and, when n > 0, the statistics (null/absent when there are no samples).
struct ResultSummary {
  std::uint64_t n = 0;
  std::optional<double> min, median, mean, max, cv;
};

struct BenchmarkResult {
  std::string benchmark;
  nlohmann::json params = nlohmann::json::object();  // effective parameters (bounded, finite)
  std::string metric;
  std::string unit;
  bool lower_is_better = true;
  std::vector<double> samples;
  ResultSummary summary;
  nlohmann::json environment = nlohmann::json::object();
  nlohmann::json details;  // object or null; c2c pairs/matrices checked as described above
  // How the run was scheduled (issue 26); absent from older agents and stores.
  std::optional<RunTelemetry> telemetry;
  // Where the vCPU threads ran on the host (issue 26 item 2): the host's own measurement, set
  // by the experiment after receipt (a guest reply carrying it is refused); absent from older
  // stores.
  std::optional<HostTelemetry> host_telemetry;
};

// The single validator. Errors read "guest result: field 'unit': expected a string, got
// number 5". Unknown top-level fields are dropped (not stored).
Result<BenchmarkResult> validate_result(const nlohmann::json& result);
// The stored/printed form; validate_result(result_to_json(r)) succeeds for any validated r.
nlohmann::json result_to_json(const BenchmarkResult& r);
// The one number per repetition the report uses: summary.median (NaN when absent).
double result_value(const BenchmarkResult& r);

// Generic bounds on guest JSON that has no fixed schema (params, environment, details, a hello's
// topology): depth, string/key sizes, array/object sizes, finite numbers. `where` names the
// field in the error ("field 'details.pairs[3].ns': ..."); the caller adds whose field it is.
Result<void> check_bounded_json(const nlohmann::json& value, const std::string& where);

}  // namespace topolab::protocol
