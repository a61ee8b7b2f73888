#include <gtest/gtest.h>

#include <algorithm>

#include "guest-agent/bench/benchmark.hpp"

namespace topolab::bench {
namespace {

using nlohmann::json;

TEST(Registry, UnknownBenchmarkIsError) {
  auto r = run_benchmark("no-such-bench", json::object(), BenchContext{});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("unknown benchmark 'no-such-bench'"), std::string::npos);
}

TEST(Registry, UnknownParameterIsError) {
  auto r = run_benchmark("sqrt", json{{"bogus", 1}}, BenchContext{});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("'bogus'"), std::string::npos);
}

TEST(Registry, NamesIncludeSqrtAndTopology) {
  auto names = benchmark_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "sqrt"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "topology"), names.end());
}

TEST(Registry, TopologyFromContextIsReported) {
  HostTopology t;
  CpuInfo c;
  c.id = 0;
  c.core = 0;
  c.package = 0;
  c.siblings = CpuList{0};
  t.cpus.push_back(c);
  t.model = "hand-made";
  auto r = run_benchmark("topology", json::object(), BenchContext{&t});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*r)["details"]["topology"]["model"], "hand-made");
  EXPECT_EQ((*r)["details"]["topology"]["cpus"].size(), 1u);
  EXPECT_EQ((*r)["summary"]["n"], 0);
}

TEST(Registry, TopologyFromLocalSysfsWithoutContext) {
  auto r = run_benchmark("topology", json::object(), BenchContext{});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_GE((*r)["details"]["topology"]["cpus"].size(), 1u);
}

TEST(Registry, CliRunsAndRejects) {
  std::vector<std::string> ok_args{"run", "sqrt", "--param", "n=1000", "--json"};
  std::vector<char*> ok;
  for (auto& a : ok_args) ok.push_back(a.data());
  testing::internal::CaptureStdout();
  EXPECT_EQ(run_benchmark_cli(static_cast<int>(ok.size()), ok.data()), 0);
  auto out = json::parse(testing::internal::GetCapturedStdout());
  EXPECT_EQ(out["params"]["n"], 1000);

  std::vector<std::string> bad_args{"run", "sqrt", "--param", "n=abc"};
  std::vector<char*> bad;
  for (auto& a : bad_args) bad.push_back(a.data());
  testing::internal::CaptureStderr();
  EXPECT_NE(run_benchmark_cli(static_cast<int>(bad.size()), bad.data()), 0);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("'n' must be an integer"),
            std::string::npos);

  std::vector<std::string> true_args{"run", "true"};
  std::vector<char*> t;
  for (auto& a : true_args) t.push_back(a.data());
  EXPECT_EQ(run_benchmark_cli(2, t.data()), 0);
}

}  // namespace
}  // namespace topolab::bench
