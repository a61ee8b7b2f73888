#pragma once
// How long one benchmark run may take before its guest counts as hung (pure). Runs of the same
// work (one configuration, benchmark and parameters: the repetitions of a cell, and the cells
// of os.* or replicate factors) repeat one measurement, so a run 20 times slower than any
// before it (and over a minute) is a guest that stopped: it is found then instead of after
// timeout_s (600 s by default). The first run of a work has only timeout_s.
#include <chrono>
#include <optional>

namespace topolab::experiment {

inline constexpr double kSlowerThanHung = 20;
inline constexpr std::chrono::milliseconds kMinHangBound{60'000};

struct RunBound {
  std::chrono::milliseconds wait;
  bool hang_bound = false;  // shorter than timeout_s: the cell's earlier runs set it
};

// `slowest_ms`: the slowest earlier run of the same work (none: the first run).
RunBound run_bound(std::optional<double> slowest_ms, std::chrono::seconds timeout);

// A failed step (a run, a configure) that used this share of its bound or more waited it out:
// the guest stopped answering (the boot's one reboot), not a step that failed by itself.
inline constexpr double kWaitedOutShare = 0.9;
bool waited_out(double used_ms, std::chrono::milliseconds bound);

}  // namespace topolab::experiment
