#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <vector>

namespace topolab::bench {

struct Summary {
  std::size_t n = 0;
  double min = 0, median = 0, mean = 0, max = 0;
  double cv = 0;  // sample standard deviation / mean; 0 with fewer than two samples
};

Summary summarize(std::vector<double> samples);
double median_of(std::vector<double> samples);  // 0 for none
// n and, when n > 0, min/median/mean/max/cv; with n == 0 the statistics are null.
nlohmann::json summary_to_json(const Summary& s);

}  // namespace topolab::bench
