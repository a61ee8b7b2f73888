// The coverage study of issue 27: how often the interval topolab prints covers the true change,
// measured by seeded simulation, for data of three shapes and n = 2, 3, 4, 5, 10, 20 per side.
// The cell's values are the baseline's distribution times 1.10 (a true change of +10 %). The
// test fails when the Hodges-Lehmann ratio interval's coverage falls below 93 % at any n where
// an interval is printed (n >= kMinRunsPerSide), and prints the table docs/reports.md quotes,
// beside the percentile bootstrap that topolab printed before (not asserted at 95 %: it fails).
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "orchestrator/base/statistics/bootstrap.hpp"
#include "orchestrator/base/statistics/random.hpp"
#include "orchestrator/base/statistics/shift_interval.hpp"
#include "orchestrator/base/statistics/verdict.hpp"

namespace topolab::statistics {
namespace {

constexpr double kTrueChangePct = 10.0;
constexpr int kTrials = 1000;          // binomial SE at 95 %: 0.7 points
constexpr int kBootstrapTrials = 200;  // the old method, shown for comparison only
constexpr int kBootstrapResamples = 1000;

struct Shape {
  const char* name;
  std::function<double(SplitMix64&)> draw;  // positive values around 100
};

std::vector<Shape> shapes() {
  return {
      {"normal", [](SplitMix64& r) { return 100 + 5 * r.normal(); }},
      {"lognormal", [](SplitMix64& r) { return 100 * std::exp(0.3 * r.normal()); }},
      // Two modes (a run that lands on the other NUMA node, a frequency step): half at 90,
      // half at 110.
      {"bimodal",
       [](SplitMix64& r) { return (r.uniform() < 0.5 ? 90.0 : 110.0) + 1.5 * r.normal(); }},
  };
}

std::vector<double> sample(const Shape& s, SplitMix64& r, int n, double factor) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(s.draw(r) * factor);
  return v;
}

bool covers(const Interval& i) { return i.low <= kTrueChangePct && kTrueChangePct <= i.high; }

struct Coverage {
  int covered = 0, printed = 0, trials = 0;
  double share() const { return printed ? static_cast<double>(covered) / printed : 0; }
};

Coverage ratio_coverage(const Shape& s, int n, std::uint64_t seed) {
  SplitMix64 r{seed};
  Coverage c;
  for (int t = 0; t < kTrials; ++t, ++c.trials) {
    const auto base = sample(s, r, n, 1.0);
    const auto cell = sample(s, r, n, 1.0 + kTrueChangePct / 100);
    const auto ci = ratio_interval(cell, base, kConfidence);
    if (!ci) continue;
    ++c.printed;
    c.covered += covers(ci->pct) ? 1 : 0;
  }
  return c;
}

Coverage bootstrap_coverage(const Shape& s, int n, std::uint64_t seed) {
  SplitMix64 r{seed};
  Coverage c;
  for (int t = 0; t < kBootstrapTrials; ++t, ++c.trials) {
    const auto base = sample(s, r, n, 1.0);
    const auto cell = sample(s, r, n, 1.0 + kTrueChangePct / 100);
    ++c.printed;
    c.covered += covers(bootstrap_penalty_ci(cell, base, kConfidence, kBootstrapResamples,
                                             seed + static_cast<std::uint64_t>(t)))
                     ? 1
                     : 0;
  }
  return c;
}

TEST(Coverage, HodgesLehmannRatioIntervalHoldsNominal95AtEveryPrintedN) {
  std::printf("%-10s %3s  %-22s  %-18s\n", "shape", "n", "Hodges-Lehmann (log)", "bootstrap (old)");
  std::uint64_t seed = 2027;
  for (const auto& s : shapes()) {
    for (int n : {2, 3, 4, 5, 10, 20}) {
      const Coverage hl = ratio_coverage(s, n, ++seed);
      const Coverage bs = bootstrap_coverage(s, n, ++seed);
      const bool printed = n >= kMinRunsPerSide;
      char hl_text[48];
      if (hl.printed == 0)
        std::snprintf(hl_text, sizeof hl_text, "no 95%% interval");
      else
        std::snprintf(hl_text, sizeof hl_text, "%.1f%%%s", 100 * hl.share(),
                      printed ? "" : " (not printed)");
      std::printf("%-10s %3d  %-22s  %.1f%%\n", s.name, n, hl_text, 100 * bs.share());
      if (n <= 3) {
        EXPECT_EQ(hl.printed, 0) << "no exact 95 % interval exists at " << n << " per side";
      }
      if (!printed) continue;
      EXPECT_EQ(hl.printed, hl.trials) << s.name << " n=" << n;
      EXPECT_GE(hl.share(), 0.93) << s.name << " n=" << n << ": coverage below 93 %";
    }
  }
}

// Why the bootstrap was replaced: with 2 runs per side (what the main job wrote) it covers the
// true change far less often than the 93 % asked of a printed interval (measured 65-69 %).
TEST(Coverage, PercentileBootstrapUndercoversAtTwoRuns) {
  for (const auto& s : shapes()) EXPECT_LT(bootstrap_coverage(s, 2, 99).share(), 0.80) << s.name;
}

// A/A by simulation: 20 cells x 10 runs from one distribution, Holm over the 20: at least 95 %
// of the verdicts are not_significant in every one of 50 seeded reports.
TEST(Coverage, SameDistributionGivesNotSignificantAfterHolm) {
  SplitMix64 r{7};
  int not_significant = 0, total = 0;
  const auto all = shapes();  // an element of the temporary shapes() would dangle
  for (int report = 0; report < 50; ++report) {
    const auto& s = all[static_cast<std::size_t>(report % 3)];
    const auto base = sample(s, r, 10, 1.0);
    std::vector<Difference> ds;
    for (int cell = 0; cell < 20; ++cell)
      ds.push_back(measure_difference(sample(s, r, 10, 1.0), base, true));
    std::vector<Difference*> ptrs;
    for (auto& d : ds) ptrs.push_back(&d);
    decide_verdicts(ptrs, 0.05, true);
    for (const auto& d : ds) {
      ++total;
      not_significant += d.verdict == Verdict::kNotSignificant ? 1 : 0;
    }
  }
  EXPECT_GE(static_cast<double>(not_significant) / total, 0.95) << not_significant << "/" << total;
}

}  // namespace
}  // namespace topolab::statistics
