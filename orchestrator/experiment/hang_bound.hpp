#pragma once
// How long one benchmark run may take before its guest counts as hung (pure). The runs of one
// cell repeat one configuration, so a run 20 times slower than any before it (and over a minute)
// is a guest that stopped: it is found then instead of after timeout_s (600 s by default).
#include <chrono>
#include <optional>

namespace topolab::experiment {

inline constexpr double kSlowerThanHung = 20;
inline constexpr std::chrono::milliseconds kMinHangBound{60'000};

struct RunBound {
  std::chrono::milliseconds wait;
  bool hang_bound = false;  // shorter than timeout_s: the cell's earlier runs set it
};

// `slowest_ms`: the slowest earlier run of the same cell and benchmark (none: the first run).
RunBound run_bound(std::optional<double> slowest_ms, std::chrono::seconds timeout);

}  // namespace topolab::experiment
