#include "guest-agent/bench/summary.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace topolab::bench {

double median_of(std::vector<double> samples) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  std::size_t mid = samples.size() / 2;
  return samples.size() % 2 == 1 ? samples[mid] : (samples[mid - 1] + samples[mid]) / 2;
}

Summary summarize(std::vector<double> samples) {
  Summary s;
  s.n = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.median = median_of(samples);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.n);
  if (s.n > 1 && s.mean != 0) {
    double sq = 0;
    for (double v : samples) sq += (v - s.mean) * (v - s.mean);
    s.cv = std::sqrt(sq / static_cast<double>(s.n - 1)) / std::fabs(s.mean);
  }
  return s;
}

nlohmann::json summary_to_json(const Summary& s) {
  nlohmann::json j{{"n", s.n}};
  if (s.n == 0) {
    for (const char* k : {"min", "median", "mean", "max", "cv"}) j[k] = nullptr;
    return j;
  }
  j["min"] = s.min;
  j["median"] = s.median;
  j["mean"] = s.mean;
  j["max"] = s.max;
  j["cv"] = s.cv;
  return j;
}

}  // namespace topolab::bench
