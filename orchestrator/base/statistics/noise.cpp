#include "orchestrator/base/statistics/noise.hpp"

#include <cmath>
#include <cstdio>

namespace topolab::statistics {
namespace {

std::string pct(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * share);
  return buf;
}

}  // namespace

std::vector<std::string> noise_reasons(const NoiseInput& in) {
  std::vector<std::string> out;
  if (in.steal_known && in.run_seconds > 0) {
    const double share = in.steal_seconds / in.run_seconds;
    if (share > kMaxStealShare) out.push_back("steal " + pct(share) + " of run time");
  }
  if (std::isfinite(in.cv) && in.cv > in.cv_threshold)
    out.push_back("cv " + pct(in.cv) + " > " + pct(in.cv_threshold));
  if (in.emulated) out.push_back("tcg");
  return out;
}

std::string noise_text(const std::vector<std::string>& reasons) {
  std::string out;
  for (const auto& r : reasons) out += (out.empty() ? "" : "; ") + r;
  return out;
}

}  // namespace topolab::statistics
