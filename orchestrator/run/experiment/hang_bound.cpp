#include "orchestrator/run/experiment/hang_bound.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace topolab::experiment {

RunBound run_bound(std::optional<double> slowest_ms, std::chrono::seconds timeout) {
  const std::chrono::milliseconds limit = timeout;
  if (!slowest_ms || !std::isfinite(*slowest_ms) || *slowest_ms < 0) return {limit, false};
  const double scaled = std::min(kSlowerThanHung * *slowest_ms, 1e15);  // no overflow
  const auto hang = std::max(
      kMinHangBound, std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(scaled))));
  if (hang >= limit) return {limit, false};
  return {hang, true};
}

bool waited_out(double used_ms, std::chrono::milliseconds bound) {
  return used_ms >= kWaitedOutShare * static_cast<double>(bound.count());
}

}  // namespace topolab::experiment
