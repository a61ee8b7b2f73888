// Size limits of an experiment (kMaxCells, kMaxRuns): checked at parse time, before
// expand_cells walks the full factorial product.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "orchestrator/run/experiment/experiment.hpp"
#include "orchestrator/run/experiment/matrix.hpp"

namespace topolab::experiment {
namespace {

using ::testing::HasSubstr;

// The first factors are real sqrt parameters (the file is checked against the agent's table
// once its size passes); beyond five, param.f5... only appear in matrices refused for size.
std::string factor_name(int f) {
  static const char* const kReal[] = {"param.sqrt.threads", "param.sqrt.cpus", "param.sqrt.n",
                                      "param.sqrt.repeats", "param.threads"};
  return f < 5 ? kReal[f] : "param.f" + std::to_string(f);
}

// `count` factors, each with `levels` integer levels 1..levels; [factors] is on line 4.
std::string experiment_text(int count, int levels, int benchmarks = 1, int repetitions = 1) {
  std::string t =
      "name = \"big\"\nbackend = \"host\"\nrepetitions = " + std::to_string(repetitions) +
      "\n[factors]\n";
  for (int f = 0; f < count; ++f) {
    t += "\"" + factor_name(f) + "\" = [";
    for (int l = 0; l < levels; ++l) t += (l ? ", " : "") + std::to_string(l + 1);
    t += "]\n";
  }
  for (int b = 0; b < benchmarks; ++b) t += "[[benchmark]]\nname = \"sqrt\"\n";
  return t;
}

Result<Experiment> parse(const std::string& text) {
  return parse_experiment(text, "big.toml", "/base");
}

TEST(ExperimentLimits, AMatrixAtTheLimitIsAccepted) {
  auto e = parse(experiment_text(5, 10));  // 10^5 = kMaxCells
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(full_factorial_cells(*e), kMaxCells);
}

TEST(ExperimentLimits, OneCellMoreIsRefusedWithTheProduct) {
  auto text = experiment_text(5, 10);
  text.replace(text.find("\"param.threads\" = [1,"), 21, "\"param.threads\" = [11, 1,");
  auto e = parse(text);  // 10^4 x 11
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message,
            "big.toml:4: [factors]: the matrix has 110000 cells (10 × 10 × 10 × 10 × 11), more "
            "than the limit 100000; remove factors or levels, or split the experiment");
}

TEST(ExperimentLimits, AnOverflowingProductSaturatesInsteadOfWrapping) {
  // 64 factors x 2 levels = 2^64: wraps to 0 in 64-bit arithmetic, which would pass a check.
  auto e = parse(experiment_text(64, 2));
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(
      e.error().message,
      HasSubstr("big.toml:4: [factors]: the matrix has more than " +
                std::to_string(std::numeric_limits<std::uint64_t>::max()) + " cells (2 × 2"));
  EXPECT_THAT(e.error().message, HasSubstr("× ... (64 factors)"));
  // 20 factors x 10 levels = 10^20 > 2^64.
  auto e20 = parse(experiment_text(20, 10));
  ASSERT_FALSE(e20.ok());
  EXPECT_THAT(e20.error().message, HasSubstr("more than 18446744073709551615 cells"));
}

TEST(ExperimentLimits, TooManyRunsAreRefused) {
  // 10^4 cells x 11 benchmarks x 10 repetitions = 1.1 million runs.
  auto e = parse(experiment_text(4, 10, 11, 10));
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message,
            "big.toml:4: [factors]: the experiment has up to 1100000 runs (10000 cells × 11 "
            "benchmarks × 10 repetitions), more than the limit 1000000; remove levels, "
            "benchmarks or repetitions, or split the experiment");
  auto ok = parse(experiment_text(4, 10, 10, 10));  // exactly 10^6
  ASSERT_TRUE(ok.ok()) << ok.error().message;
}

TEST(ExperimentLimits, AdaptiveRepetitionsCountAtTheirMaximum) {
  auto text = experiment_text(4, 10, 2, 1) + "[adaptive]\nmax_repetitions = 51\n";
  auto e = parse(text);  // 10^4 x 2 x 51 = 1.02 million
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, HasSubstr("× 51 adaptive.max_repetitions)"));
}

TEST(ExperimentLimits, NoFactorsIsOneCell) {
  auto e = parse("name = \"x\"\nbackend = \"host\"\n[[benchmark]]\nname = \"sqrt\"\n");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(full_factorial_cells(*e), 1u);
  EXPECT_EQ(expand_cells(*e).size(), 1u);
}

TEST(ExperimentLimits, EveryCellItsOwnConfiguration) {
  // 10^4 cells, each its own guest configuration (grouping is now indexed by key; it was a
  // linear search per cell, quadratic at kMaxCells).
  std::string text = "name = \"wide\"\nbackend = \"host\"\n[factors]\n";
  for (const char* key : {"cmdline.a", "cmdline.b", "cmdline.c", "cmdline.d"}) {
    text += std::string("\"") + key + "\" = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n";
  }
  text += "[[benchmark]]\nname = \"sqrt\"\n";
  auto e = parse(text);
  ASSERT_TRUE(e.ok()) << e.error().message;
  auto cells = expand_cells(*e);
  ASSERT_EQ(cells.size(), 10000u);
  auto configs = group_by_configuration(*e, cells);
  ASSERT_EQ(configs.size(), 10000u);
  EXPECT_EQ(configs.back().cells, std::vector<int>{9999});
  EXPECT_EQ(configs[1234].label(), "cmdline.a=1 cmdline.b=2 cmdline.c=3 cmdline.d=4");
}

}  // namespace
}  // namespace topolab::experiment
