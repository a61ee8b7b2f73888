#pragma once
// Telemetry of one benchmark run (issue 26, protocol/run_telemetry.hpp): CPU times and context
// switches of the agent process around the run, the kernel's migration count, and a sampler
// thread that reads every benchmark thread's current CPU each kTelemetryIntervalMs and counts
// the changes, across guest L3 groups and packages too. Benchmark threads are the calling thread
// and the threads that appear after start(); the agent's own threads from before are not.
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "guest-agent/bench/cpu_board.hpp"
#include "guest-agent/telemetry_os.hpp"
#include "host/host_topology.hpp"
#include "protocol/run_telemetry.hpp"

namespace topolab::bench {

// Sampler counts; kept apart from the thread so tests can feed it ticks.
class MigrationTally {
 public:
  explicit MigrationTally(const HostTopology* topo) : topo_(topo) {}
  // One tick: the CPU of each benchmark thread now.
  void tick(const std::map<std::int64_t, int>& cpus);
  void fill(protocol::RunTelemetry& t) const;

 private:
  const HostTopology* topo_;
  std::map<std::int64_t, int> last_;
  std::uint64_t samples_ = 0, changes_ = 0, cross_l3_ = 0, cross_package_ = 0;
};

class TelemetryProbe {
 public:
  // `sample` false: no migration sampling (the overhead bench's baseline). `board` true: the
  // threads post their CPUs on a CpuBoard even where thread_cpus works (tests of the Windows
  // way on Linux); it is the way anyhow where thread_cpus fails.
  explicit TelemetryProbe(const HostTopology* topo, bool sample = true, bool board = false);
  ~TelemetryProbe();
  TelemetryProbe(const TelemetryProbe&) = delete;
  TelemetryProbe& operator=(const TelemetryProbe&) = delete;
  // Ends sampling and returns the run's telemetry (call once).
  protocol::RunTelemetry finish();

 private:
  void sample_loop();
  void stop_sampler();

  MigrationTally tally_;
  std::set<std::int64_t> before_;  // threads of the agent before the run (not the caller)
  std::int64_t caller_ = 0;
  std::int64_t sampler_tid_ = 0;
  std::string sample_error_;
  std::optional<CpuBoard> board_;  // open where the threads post their own CPUs
  std::optional<std::int64_t> counter_;
  std::string counter_error_;
  Result<agent::os::ProcessCpuTimes> start_times_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread sampler_;
};

}  // namespace topolab::bench
