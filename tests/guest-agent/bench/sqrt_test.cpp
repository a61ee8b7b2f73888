#include <gtest/gtest.h>

#include "guest-agent/bench/benchmark.hpp"
#include "guest-agent/bench/sqrt_bench.hpp"

namespace topolab::bench {
namespace {

using nlohmann::json;

TEST(Sqrt, ReferenceSumByHand) {
  // floor(sqrt(k)) for k = 1..10: 1 1 1 2 2 2 2 2 3 3
  EXPECT_EQ(isqrt_sum_reference(10), 19u);
  EXPECT_EQ(isqrt_sum_reference(1), 1u);
  EXPECT_EQ(isqrt_sum_reference(0), 0u);
}

TEST(Sqrt, NewtonRangeMatchesClosedFormWithoutFailures) {
  SqrtWork w = sqrt_range(1, 300000);
  EXPECT_EQ(w.failures, 0u);
  EXPECT_EQ(w.checksum, isqrt_sum_reference(300000));
  EXPECT_DOUBLE_EQ(newton_sqrt(144), 12);
}

TEST(Sqrt, NewtonFloorExactAroundEverySquareUpToTheBound) {
  // Perfect squares and their neighbours are where a floating-point root can land one ulp low.
  for (std::uint64_t m = 1; m <= 63246; ++m) {
    for (std::uint64_t k : {m * m - 1, m * m, m * m + 1}) {
      if (k == 0) continue;
      auto s = static_cast<std::uint64_t>(newton_sqrt(static_cast<double>(k)));
      ASSERT_TRUE(s * s <= k && (s + 1) * (s + 1) > k) << "k=" << k << " s=" << s;
    }
  }
}

TEST(Sqrt, ChecksumExactAndEqualAcrossThreadCounts) {
  std::uint64_t expected = isqrt_sum_reference(200000);
  for (int threads : {1, 2, 3}) {
    auto r = run_benchmark("sqrt", json{{"n", 200000}, {"threads", threads}, {"repeats", 2}},
                           BenchContext{});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ((*r)["details"]["checksum"].get<std::uint64_t>(), expected);
    EXPECT_EQ((*r)["samples"].size(), 2u);
    EXPECT_EQ((*r)["environment"]["threads"], threads);
    EXPECT_GT((*r)["summary"]["min"].get<double>(), 0);
    EXPECT_LT((*r)["summary"]["max"].get<double>(), 10);
  }
}

TEST(Sqrt, ResultShape) {
  auto r = run_benchmark("sqrt", json{{"n", 1000}, {"pin", "compact"}}, BenchContext{});
  ASSERT_TRUE(r) << r.error().message;
  for (const char* k : {"benchmark", "params", "metric", "unit", "lower_is_better", "samples",
                        "summary", "environment", "details"}) {
    EXPECT_TRUE(r->contains(k)) << k;
  }
  EXPECT_EQ((*r)["params"]["n"], 1000);
  EXPECT_EQ((*r)["params"]["repeats"], 3);
  EXPECT_EQ((*r)["unit"], "s");
  EXPECT_TRUE((*r)["environment"].contains("steal_before"));
  EXPECT_FALSE((*r)["environment"]["cpus"].get<std::string>().empty());
}

}  // namespace
}  // namespace topolab::bench
