#include "guest-agent/bench/telemetry.hpp"

#include <chrono>

namespace topolab::bench {

namespace {

// Index of a CPU's L3 group / package in the guest topology, -1 when unknown.
int tally_group(const HostTopology* topo, int cpu, bool package) {
  const CpuInfo* c = topo ? topo->cpu(cpu) : nullptr;
  if (c == nullptr) return -1;
  return package ? c->package : c->l3;
}

bool topology_has_l3(const HostTopology* topo) { return topo && !topo->l3_domains.empty(); }

}  // namespace

void MigrationTally::tick(const std::map<std::int64_t, int>& cpus) {
  if (samples_ >= protocol::kMaxTelemetrySamples) return;
  ++samples_;
  for (const auto& [tid, cpu] : cpus) {
    if (cpu < 0) continue;
    auto it = last_.find(tid);
    if (it != last_.end() && it->second != cpu) {
      ++changes_;
      const int from = it->second;
      if (tally_group(topo_, from, false) != tally_group(topo_, cpu, false)) ++cross_l3_;
      if (tally_group(topo_, from, true) != tally_group(topo_, cpu, true)) ++cross_package_;
    }
    last_[tid] = cpu;
  }
}

void MigrationTally::fill(protocol::RunTelemetry& t) const {
  t.samples = samples_;
  t.migrations = changes_;
  if (topology_has_l3(topo_)) {
    t.migrations_cross_l3 = cross_l3_;
  } else {
    t.omitted["migrations_cross_l3"] = "the guest topology names no L3 groups";
  }
  if (topo_ && !topo_->packages.empty()) {
    t.migrations_cross_package = cross_package_;
  } else {
    t.omitted["migrations_cross_package"] = "the guest topology names no packages";
  }
}

TelemetryProbe::TelemetryProbe(const HostTopology* topo, bool sample, bool board)
    : tally_(topo), start_times_(agent::os::process_cpu_times()) {
  caller_ = agent::os::current_thread_id();
  auto threads = agent::os::thread_cpus(protocol::kMaxSampledThreads);
  if (!sample) {
    sample_error_ = "sampling turned off (bench only)";
  } else if (!threads || board) {
    // The threads post their own CPUs (Windows); another open board (a run inside a run
    // cannot happen) leaves the fields omitted with the OS's reason.
    if (!board_.emplace().open()) {
      board_.reset();
      sample_error_ = threads ? "another run's CPU board is open" : threads.error().message;
    }
  } else {
    for (const auto& t : *threads)
      if (t.tid != caller_) before_.insert(t.tid);
  }
  auto counter = agent::os::start_migration_counter();
  if (counter) {
    counter_ = *counter;
  } else {
    counter_error_ = counter.error().message;
  }
  if (sample_error_.empty()) sampler_ = std::thread([this] { sample_loop(); });
}

TelemetryProbe::~TelemetryProbe() {
  stop_sampler();
  if (counter_) (void)agent::os::stop_migration_counter(*counter_);
}

void TelemetryProbe::sample_loop() {
  sampler_tid_ = agent::os::current_thread_id();
  std::unique_lock lock(mutex_);
  const auto period = std::chrono::milliseconds(protocol::kTelemetryIntervalMs);
  while (!wake_.wait_for(lock, period, [this] { return stop_; })) {
    if (board_) {
      tally_.tick(board_->read());
      continue;
    }
    auto threads = agent::os::thread_cpus(protocol::kMaxSampledThreads);
    if (!threads) continue;
    std::map<std::int64_t, int> bench;
    for (const auto& t : *threads)
      if (t.tid != sampler_tid_ && !before_.count(t.tid)) bench[t.tid] = t.cpu;
    tally_.tick(bench);
  }
}

void TelemetryProbe::stop_sampler() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (sampler_.joinable()) sampler_.join();
}

protocol::RunTelemetry TelemetryProbe::finish() {
  stop_sampler();
  protocol::RunTelemetry t;
  auto end = agent::os::process_cpu_times();
  if (start_times_ && end) {
    t.cpu_user_s = std::max(0.0, end->user_s - start_times_->user_s);
    t.cpu_sys_s = std::max(0.0, end->sys_s - start_times_->sys_s);
    if (end->voluntary_switches && start_times_->voluntary_switches)
      t.ctx_switches_voluntary = *end->voluntary_switches - *start_times_->voluntary_switches;
    if (end->involuntary_switches && start_times_->involuntary_switches)
      t.ctx_switches_involuntary = *end->involuntary_switches - *start_times_->involuntary_switches;
  } else {
    const std::string why = !start_times_ ? start_times_.error().message : end.error().message;
    t.omitted["cpu_user_s"] = t.omitted["cpu_sys_s"] = why;
  }
  if (const std::string why = agent::os::ctx_switches_why(); !why.empty())
    t.omitted["ctx_switches_voluntary"] = t.omitted["ctx_switches_involuntary"] = why;
  if (board_ && !board_->any_posted())
    sample_error_ =
        "no thread of this benchmark posted its CPU (Windows counts migrations of "
        "the threads that post theirs: bench/cpu_board.hpp)";
  board_.reset();  // closed: the benchmark's threads are joined
  if (sample_error_.empty()) {
    tally_.fill(t);
  } else {
    for (const char* f : {"migrations", "migrations_cross_l3", "migrations_cross_package"})
      t.omitted[f] = sample_error_;
  }
  if (counter_) {
    auto n = agent::os::stop_migration_counter(*counter_);
    counter_.reset();
    if (n)
      t.kernel_migrations = *n;
    else
      t.omitted["kernel_migrations"] = n.error().message;
  } else {
    t.omitted["kernel_migrations"] = counter_error_;
  }
  return t;
}

}  // namespace topolab::bench
