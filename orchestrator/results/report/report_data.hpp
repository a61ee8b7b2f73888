#pragma once
// What every reporter prints: one row per (cell, benchmark) with statistics over the
// repetitions, the penalty against the baseline level, and core-to-core latency matrices.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/base/statistics/descriptive.hpp"
#include "orchestrator/base/statistics/noise.hpp"
#include "orchestrator/base/statistics/verdict.hpp"
#include "orchestrator/results/report/context.hpp"
#include "orchestrator/results/report/svg_data.hpp"
#include "protocol/host_telemetry.hpp"
#include "protocol/run_telemetry.hpp"

namespace topolab::store {
class ResultStore;
}

namespace topolab::report {

using statistics::Interval;

struct ReportRow {
  std::string cell;  // label "expose=flat policy=unpinned"
  // The host of the cell in a store of several hosts (issue 16); "" when the store has one
  // host, which the context then names once (connect_uri) instead of a column in every row.
  std::string host;
  nlohmann::json factors;
  std::string benchmark;
  int benchmark_index = 0;
  std::string unit;
  bool lower_is_better = true;
  std::string status;     // done | running | pending | failed | does-not-fit
  bool mismatch = false;  // guest-seen topology differed from the intended one
  std::string error;
  std::vector<double> values;  // one per repetition (each run's summary median)
  double n = 0, median = 0, min = 0, max = 0, mean = 0, cv = 0;
  bool is_baseline = false;
  std::optional<double> penalty;  // % against the baseline row, when there is one
  // Against the baseline row (issue 27): interval, p and verdict; unset without a baseline row.
  std::optional<statistics::Difference> difference;
  statistics::NoiseInput noise_input;  // gathered from the runs by load_report
  std::vector<std::string> noise;      // statistics::noise_reasons; empty: not noisy
  bool stopped_at_cap = false;         // [adaptive] reached max_repetitions with its target unmet
  std::vector<protocol::RunTelemetry> telemetry;        // of the runs that carry it (issue 26)
  std::vector<protocol::HostTelemetry> host_telemetry;  // where the vCPUs ran, per run (item 2)
  statistics::Verdict verdict() const;
};

// How verdicts are decided (topolab report --alpha, --no-correction).
struct VerdictOptions {
  double alpha = 0.05;
  bool correct = true;  // Holm over the report's tested differences
};

struct LatencyMatrix {
  std::string cell;  // row_ref of its cell
  std::vector<int> cpus;
  std::vector<std::vector<double>> ns;  // ns[i][j], NaN where not measured
  nlohmann::json topology;              // guest-seen topology (topology_to_json shape)
  nlohmann::json placement;             // a run's environment.placement: the vCPUs' host CPUs
  nlohmann::json host_topology;         // the experiment's host (one-host stores; null otherwise)
  // The host backend: the benchmark ran on the host, its CPU ids are host CPUs and `topology`
  // is the host's, so both views are the host's (no placement is stored or needed).
  bool cpus_are_host_cpus = false;
};

// A stored run whose result fails validation (a store written by an older or hostile build):
// left out of the statistics and listed with its id and the reason.
struct InvalidRun {
  std::int64_t run_id = 0;
  std::string cell;
  std::string benchmark;
  std::string reason;  // "guest result: field 'unit': expected a string, got number 5"
};

struct ReportData {
  std::string experiment;
  std::string baseline;  // "expose=flat", empty when none
  std::vector<ReportRow> rows;
  std::vector<LatencyMatrix> matrices;
  std::vector<InvalidRun> invalid_runs;
  // Store-level problems that change what the report can say (no baseline, so no penalties):
  // said in every format that has room for text and on stderr, never silently (redteam).
  std::vector<std::string> warnings;
  // The hosts of a store of several hosts, in the store's order; empty with one host.
  std::vector<std::string> hosts;
  // Where the numbers came from (issue 18). Always set by load_report ("unknown" parts for
  // older stores); unset in hand-built data, which then prints no context.
  std::optional<ReportContext> context;
  // Per guest configuration: placement on the host and guest-seen topology (HTML pictures).
  PictureData pictures;
  VerdictOptions verdicts;
  int tested = 0;  // differences with a p-value: what the correction is over
};

// "verdicts: Holm-corrected over 4 differences, alpha 0.05; intervals 95 % Hodges-Lehmann ..."
// (the header of every format).
std::string verdict_method(const ReportData& data);

// How a row's cell is named where cells of every host meet (context, matrices, charts,
// comparisons): "expose=flat @ qemu+ssh://box/system", or the label alone with one host.
inline std::string row_ref(const std::string& cell, const std::string& host) {
  return host.empty() ? cell : cell + " @ " + host;
}
inline std::string row_ref(const ReportRow& r) { return row_ref(r.cell, r.host); }

// Fills stats and penalties of rows whose `values` are set. Baseline rows: same benchmark
// index, factors equal except the baseline keys set to their baseline levels, same host
// (issue 16: a baseline is compared within its host, never across machines).
// Then the verdicts, corrected over all rows together (decide_verdicts).
void compute_statistics(ReportData& data, const nlohmann::json& baseline_levels,
                        const VerdictOptions& options = {});

// Reads one experiment (the only one, or `name`) from a store. Every stored result is re-read
// through protocol::validate_result; nothing here throws on a stored value of the wrong type.
Result<ReportData> load_report(store::ResultStore& store, const std::string& name,
                               const VerdictOptions& options = {});

// Whether a stored CPU-list text may be expanded: every number in it a CPU id in range and the
// text within protocol::kMaxTextBytes (checked on the text first: "0-4000000000" must not become
// a 16 GB vector).
bool cpu_list_text_in_range(const std::string& text);

// A c2c-latency result's matrix: details.matrix_ns (or details.matrix) rows over details.cpus,
// or details.pairs. nullopt when absent or larger than protocol::kMaxC2cCpus CPUs (checked
// before the n x n matrix is allocated).
std::optional<LatencyMatrix> latency_matrix_from_result(const nlohmann::json& result);

}  // namespace topolab::report
