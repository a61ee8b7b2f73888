#pragma once
// Where benchmark threads post their own CPU (issue 26). Windows tells a thread only its own
// CPU (GetCurrentProcessorNumberEx), never another thread's, so where the sampler cannot read
// the benchmark threads' CPUs (os::thread_cpus fails) the TelemetryProbe opens a board: each
// thread run_threads starts takes a seat on it, posts its CPU when it starts and ends, and the
// benchmarks' inner loops post it every few thousand iterations (note_current_cpu). The sampler
// reads the board each tick, so a migration is seen when the moved thread posts again: a count
// bounded below by the posting rate, as the /proc sampling is bounded by its tick.
#include <array>
#include <atomic>
#include <cstdint>
#include <map>

#include "protocol/run_telemetry.hpp"

namespace topolab::bench {

class CpuBoard {
 public:
  // Opens the board: seats taken from now on post to it. One board is open at a time (a run's
  // probe); a second one is refused by open() returning false.
  CpuBoard() = default;
  ~CpuBoard();
  CpuBoard(const CpuBoard&) = delete;
  CpuBoard& operator=(const CpuBoard&) = delete;
  bool open();

  // The last CPU each seated thread posted, keyed by a number unique to that thread (slots are
  // reused by later threads; the key is not).
  std::map<std::int64_t, int> read() const;
  // Whether any thread posted at all (a benchmark that starts no seated thread posts nothing).
  bool any_posted() const { return posted_.load(std::memory_order_relaxed); }

 private:
  friend class CpuBoardSeat;
  friend void note_current_cpu();
  static constexpr std::size_t kSlots = protocol::kMaxSampledThreads;
  // Packed (seat key << 20) | (cpu + 1); 0 while empty. One word, so a tick never reads the key
  // of one thread with the CPU of another.
  std::array<std::atomic<std::uint64_t>, kSlots> slots_{};
  std::atomic<std::uint64_t> next_key_{1};
  std::atomic<std::uint64_t> next_slot_{0};
  std::atomic<bool> posted_{false};
  bool open_ = false;
};

// The calling thread's seat on the open board while it lives (nothing when no board is open).
// The board must outlive the seat: run_threads joins its threads before the probe finishes.
class CpuBoardSeat {
 public:
  CpuBoardSeat();
  ~CpuBoardSeat();
  CpuBoardSeat(const CpuBoardSeat&) = delete;
  CpuBoardSeat& operator=(const CpuBoardSeat&) = delete;
};

// Posts the calling thread's CPU to its seat; a thread-local test and nothing else when the
// thread has no seat (every Linux run: there the sampler reads /proc).
void note_current_cpu();

}  // namespace topolab::bench
