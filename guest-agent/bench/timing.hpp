#pragma once
// Clock and thread helpers shared by the benchmarks.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "common/result.hpp"

namespace topolab::bench {

// steady_clock: CLOCK_MONOTONIC on Linux, QueryPerformanceCounter on Windows (mingw).
inline std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

inline double seconds_between(std::uint64_t start_ns, std::uint64_t end_ns) {
  return static_cast<double>(end_ns - start_ns) * 1e-9;
}

// A reusable barrier that spins briefly, then yields: threads leave it close together (timing
// starts), and it still progresses when there are more threads than CPUs (TCG guests).
class SpinBarrier {
 public:
  explicit SpinBarrier(int count) : count_(count) {}
  void arrive_and_wait() {
    int gen = generation_.load(std::memory_order_acquire);
    if (waiting_.fetch_add(1, std::memory_order_acq_rel) + 1 == count_) {
      waiting_.store(0, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_acq_rel);
      return;
    }
    for (unsigned spins = 0; generation_.load(std::memory_order_acquire) == gen; ++spins) {
      if (spins > 2000) std::this_thread::yield();
    }
  }

 private:
  const int count_;
  std::atomic<int> waiting_{0};
  std::atomic<int> generation_{0};
};

// Runs body(index) on cpus.size() threads, thread i pinned to cpus[i] (-1: not pinned).
// Returns the first pinning or body error.
Result<void> run_threads(const std::vector<int>& cpus,
                         const std::function<Result<void>(int index)>& body);

}  // namespace topolab::bench
