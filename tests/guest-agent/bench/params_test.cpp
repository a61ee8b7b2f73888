#include "guest-agent/bench/params.hpp"

#include <gtest/gtest.h>

namespace topolab::bench {
namespace {

using nlohmann::json;

std::vector<ParamSpec> specs() {
  return {
      {"iterations", ParamType::kInt, 100, 1, 1000, {}, 64, ""},
      {"mode", ParamType::kString, "cas", 0, 0, {"cas", "rw"}, 64, ""},
      {"sizes_kib", ParamType::kIntList, json::array({16, 64}), 4, 1024, {}, 3, ""},
      {"cpus", ParamType::kCpuList, "", 0, 0, {}, 64, ""},
      {"flag", ParamType::kBool, false, 0, 0, {}, 64, ""},
  };
}

TEST(Params, DefaultsFilledIn) {
  auto p = validate_params(json::object(), specs(), "t");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->integer("iterations"), 100);
  EXPECT_EQ(p->string("mode"), "cas");
  EXPECT_EQ(p->integers("sizes_kib"), (std::vector<std::int64_t>{16, 64}));
  EXPECT_TRUE(p->cpus("cpus").empty());
  EXPECT_FALSE(p->boolean("flag"));
}

TEST(Params, NullMeansNoParameters) { EXPECT_TRUE(validate_params(json(), specs(), "t")); }

TEST(Params, UnknownParameterIsNamed) {
  auto p = validate_params(json{{"iteratons", 5}}, specs(), "c2c-latency");
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("unknown parameter 'iteratons'"), std::string::npos);
  EXPECT_NE(p.error().message.find("c2c-latency"), std::string::npos);
}

TEST(Params, WrongTypeRejected) {
  auto p = validate_params(json{{"iterations", "many"}}, specs(), "t");
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("'iterations' must be an integer"), std::string::npos);
  EXPECT_FALSE(validate_params(json{{"iterations", 2.5}}, specs(), "t"));
  EXPECT_FALSE(validate_params(json{{"flag", 1}}, specs(), "t"));
  EXPECT_FALSE(validate_params(json{{"mode", 3}}, specs(), "t"));
  EXPECT_FALSE(validate_params(json::array({1}), specs(), "t"));
}

TEST(Params, BoundsEnforced) {
  EXPECT_FALSE(validate_params(json{{"iterations", 0}}, specs(), "t"));
  auto p = validate_params(json{{"iterations", 1000000000000LL}}, specs(), "t");
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("outside [1, 1000]"), std::string::npos);
  EXPECT_FALSE(validate_params(json{{"iterations", 18446744073709551615ULL}}, specs(), "t"));
  EXPECT_FALSE(validate_params(json{{"sizes_kib", {16, 2048}}}, specs(), "t"));
  EXPECT_FALSE(validate_params(json{{"sizes_kib", {16, 32, 64, 128}}}, specs(), "t"));
  EXPECT_FALSE(validate_params(json{{"sizes_kib", json::array()}}, specs(), "t"));
  EXPECT_FALSE(validate_params(json{{"mode", "xyz"}}, specs(), "t"));
}

TEST(Params, CpuListsNormalised) {
  auto a = validate_params(json{{"cpus", "3,0-1"}}, specs(), "t");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->json()["cpus"], "0-1,3");
  auto b = validate_params(json{{"cpus", {2, 0}}}, specs(), "t");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->cpus("cpus"), (CpuList{0, 2}));
  auto c = validate_params(json{{"cpus", 5}}, specs(), "t");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->json()["cpus"], "5");
  EXPECT_FALSE(validate_params(json{{"cpus", "0-x"}}, specs(), "t"));
  EXPECT_FALSE(validate_params(json{{"cpus", {-1}}}, specs(), "t"));
  EXPECT_FALSE(validate_params(json{{"cpus", "0-100000"}}, specs(), "t"));
}

TEST(Params, SingleIntegerAcceptedAsList) {
  auto p = validate_params(json{{"sizes_kib", 64}}, specs(), "t");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->integers("sizes_kib"), (std::vector<std::int64_t>{64}));
}

TEST(Params, CliValuesParseAsJsonWhenJson) {
  EXPECT_EQ(parse_cli_value("42"), json(42));
  EXPECT_EQ(parse_cli_value("[16,64]"), json::array({16, 64}));
  EXPECT_EQ(parse_cli_value("true"), json(true));
  EXPECT_EQ(parse_cli_value("0-3"), json("0-3"));
  EXPECT_EQ(parse_cli_value("cas"), json("cas"));
  EXPECT_EQ(parse_cli_value("{\"a\":1}"), json("{\"a\":1}"));
}

}  // namespace
}  // namespace topolab::bench
