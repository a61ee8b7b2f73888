// The one validator of guest results (issue 12, class 1): every field's type, range and size,
// and the agent's real output passes it.
#include "protocol/benchmark_result.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "guest-agent/bench/benchmark.hpp"
#include "protocol/protocol.hpp"

namespace topolab::protocol {
namespace {

using nlohmann::json;

json good() {
  return json::parse(R"({"benchmark":"sqrt","params":{"n":1000},"metric":"time","unit":"s",
    "lower_is_better":true,"samples":[1.0,1.5],
    "summary":{"n":2,"min":1.0,"median":1.25,"mean":1.25,"max":1.5,"cv":0.2},
    "environment":{"cpus":"0-1","threads":1},"details":{"checksum_ok":true}})");
}

std::string error_of(const json& j) {
  auto r = validate_result(j);
  return r.ok() ? std::string("accepted") : r.error().message;
}

TEST(ValidateResult, AcceptsAWellFormedResultAndRoundTrips) {
  auto r = validate_result(good());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->unit, "s");
  EXPECT_DOUBLE_EQ(result_value(*r), 1.25);
  auto again = validate_result(result_to_json(*r));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(result_to_json(*again), result_to_json(*r));
}

TEST(ValidateResult, WrongTypesNameTheFieldAndWhatCame) {
  struct Case {
    const char* field;
    json value;
    const char* want;
  } cases[] = {
      {"unit", 5, "guest result: field 'unit': expected a string, got number 5"},
      {"benchmark", nullptr, "field 'benchmark': expected a string, got null"},
      {"metric", json::array(), "field 'metric': expected a string, got array"},
      {"lower_is_better", "yes", "field 'lower_is_better': expected true or false, got string"},
      {"samples", "1,2", "field 'samples': expected an array of numbers, got string"},
      {"summary", 1, "field 'summary': expected an object, got number"},
      {"params", "n=1", "field 'params': expected an object, got string"},
      {"environment", json::array(), "field 'environment': expected an object, got array"},
      {"details", 7, "field 'details': expected an object or null, got number"},
  };
  for (const auto& c : cases) {
    json j = good();
    j[c.field] = c.value;
    EXPECT_NE(error_of(j).find(c.want), std::string::npos) << c.field << ": " << error_of(j);
  }
  json missing = good();
  missing.erase("unit");
  EXPECT_EQ(error_of(missing), "guest result: field 'unit': expected a string, but it is missing");
  EXPECT_EQ(error_of(json::array()), "guest result: expected an object, got array");
}

TEST(ValidateResult, NumbersMustBeFiniteAndInRange) {
  const double inf = std::numeric_limits<double>::infinity();
  json j = good();
  j["samples"][1] = inf;
  EXPECT_NE(error_of(j).find("field 'samples[1]': expected a finite number"), std::string::npos);
  j = good();
  j["samples"][0] = "1.0";
  EXPECT_NE(error_of(j).find("field 'samples[0]': expected a finite number, got string"),
            std::string::npos);
  j = good();
  j["summary"]["median"] = std::nan("");
  EXPECT_NE(error_of(j).find("field 'summary.median': expected a finite number or null"),
            std::string::npos);
  j = good();
  j["summary"]["n"] = -1;
  EXPECT_NE(error_of(j).find("field 'summary.n': expected an integer 0..100000"),
            std::string::npos);
  j = good();
  j["details"]["deep"] = {{"x", -inf}};
  EXPECT_NE(error_of(j).find("field 'details.deep.x': expected a finite number"),
            std::string::npos);
  // 1e999 in a guest line never becomes infinity: the line is refused as JSON.
  EXPECT_FALSE(decode(R"({"type":"result","id":1,"result":{"v":1e999}})").ok());
}

TEST(ValidateResult, SizesAreBounded) {
  json j = good();
  j["unit"] = std::string(kMaxUnitBytes + 1, 'u');
  EXPECT_NE(error_of(j).find("field 'unit': 33 bytes, more than the limit of 32"),
            std::string::npos)
      << error_of(j);
  j = good();
  j["benchmark"] = std::string(kMaxNameBytes + 1, 'b');
  EXPECT_NE(error_of(j).find("field 'benchmark': 65 bytes"), std::string::npos);
  j = good();
  j["details"]["note"] = std::string(kMaxTextBytes + 1, 'x');
  EXPECT_NE(error_of(j).find("field 'details.note': string longer than 4096 bytes"),
            std::string::npos);
  j = good();
  j["samples"] = std::vector<double>(kMaxSamples + 1, 1.0);
  EXPECT_NE(error_of(j).find("field 'samples': 100001 samples, more than the limit of 100000"),
            std::string::npos);
  j = good();
  j["details"]["list"] = json::array();
  for (std::size_t i = 0; i <= kMaxArrayItems; ++i) j["details"]["list"].push_back(0);
  EXPECT_NE(error_of(j).find("field 'details.list': 100001 items"), std::string::npos);
  j = good();
  json deep = 1;
  for (int i = 0; i < kMaxResultDepth + 2; ++i) deep = json::array({deep});
  j["details"]["deep"] = deep;
  EXPECT_NE(error_of(j).find("nested deeper than 16 levels"), std::string::npos) << error_of(j);
  j = good();
  for (std::size_t i = 0; i <= kMaxObjectMembers; ++i)  // + cpus, threads: 4099
    j["environment"]["k" + std::to_string(i)] = 0;
  EXPECT_NE(error_of(j).find("field 'environment': 4099 members"), std::string::npos)
      << error_of(j);
}

TEST(ValidateResult, C2cCpuIdsAreBoundedBeforeAnyMatrix) {
  json j = good();
  j["details"]["pairs"] = json::array();
  for (int i = 0; i < 12000; ++i) j["details"]["pairs"].push_back({{"a", 0}, {"b", i}});
  EXPECT_NE(error_of(j).find("field 'details.pairs': names more than 1024 distinct CPUs"),
            std::string::npos)
      << error_of(j);
  j = good();
  j["details"]["pairs"] = {{{"a", 0}, {"b", 70000}, {"median_ns", 80}}};
  EXPECT_NE(error_of(j).find("field 'details.pairs[0].b': expected a CPU id (integer 0..8191)"),
            std::string::npos);
  j["details"]["pairs"] = {{{"a", 0}, {"b", 8192}, {"median_ns", 80}}};  // kMaxCpuIds itself
  EXPECT_NE(error_of(j).find("details.pairs[0].b"), std::string::npos);
  j["details"]["pairs"] = {{{"a", 0}, {"b", 8191}, {"median_ns", 80}}};
  EXPECT_EQ(error_of(j), "accepted");
  j["details"]["pairs"] = {{{"a", -1}, {"b", 1}}};
  EXPECT_NE(error_of(j).find("details.pairs[0].a"), std::string::npos);
  j["details"]["pairs"] = {{{"a", 0}, {"b", 1}, {"median_ns", "fast"}}};
  EXPECT_NE(error_of(j).find("field 'details.pairs[0].median_ns'"), std::string::npos);
  j = good();
  j["details"]["matrix_ns"] = json::array();
  for (std::size_t i = 0; i <= kMaxC2cCpus; ++i) j["details"]["matrix_ns"].push_back(json::array());
  EXPECT_NE(error_of(j).find("field 'details.matrix_ns': 1025 rows"), std::string::npos);
  j = good();
  j["details"]["cpus"] = "0-4000000000";
  EXPECT_NE(error_of(j).find("field 'details.cpus': expected CPU ids up to 8191"),
            std::string::npos)
      << error_of(j);
  j["details"]["cpus"] = "0-1023";
  EXPECT_EQ(error_of(j), "accepted");
}

TEST(ValidateResult, TheAgentsOwnResultsPass) {
  for (const auto& [name, params] : std::vector<std::pair<std::string, json>>{
           {"sqrt", {{"n", 1000}, {"repeats", 2}}}, {"topology", json::object()}}) {
    auto r = bench::run_benchmark(name, params, {});
    ASSERT_TRUE(r.ok()) << name << ": " << r.error().message;
    auto v = validate_result(*r);
    EXPECT_TRUE(v.ok()) << name << ": " << v.error().message;
  }
}

TEST(ParseHello, BoundsAndTypesEveryField) {
  Hello h;
  h.agent_version = "1";
  h.kernel = "Linux";
  h.cpu_model = "x";
  h.topology = nullptr;
  auto parse = [](const json& j) {
    return parse_hello(*decode(encode(j).substr(0, encode(j).size() - 1)));
  };
  json ok = hello_message(h);
  EXPECT_TRUE(parse(ok).ok());
  json bad = ok;
  bad["topology_error"] = 5;
  EXPECT_NE(parse(bad).error().message.find("field 'topology_error' must be a string"),
            std::string::npos);
  bad = ok;
  bad["kernel"] = std::string(kMaxTextBytes + 1, 'k');
  EXPECT_NE(parse(bad).error().message.find("field 'kernel' is longer than 4096 bytes"),
            std::string::npos);
  bad = ok;
  bad["agent_version"] = std::string(kMaxNameBytes + 1, 'v');
  EXPECT_FALSE(parse(bad).ok());
  bad = ok;
  bad["topology"] = {{"cpus", {{{"id", 0}, {"note", std::string(kMaxTextBytes + 1, 'n')}}}}};
  EXPECT_NE(parse(bad).error().message.find("'hello' message: field 'topology.cpus[0].note'"),
            std::string::npos)
      << parse(bad).error().message;
}

// Hostile telemetry (issue 26): every bad value refuses the whole result, naming the field.
TEST(ValidateResult, HostileTelemetryIsRefusedWithTheField) {
  struct Case {
    json telemetry;
    const char* want;
  } cases[] = {
      {json::array(), "field 'telemetry': expected an object, got array"},
      {{{"cpu_user_s", -1.0}}, "field 'telemetry.cpu_user_s': expected seconds 0..1e7"},
      {{{"cpu_user_s", 1e300}}, "field 'telemetry.cpu_user_s': expected seconds"},
      {{{"cpu_sys_s", "1.5"}},
       "field 'telemetry.cpu_sys_s': expected seconds 0..1e7 (a finite "
       "number), got string \"1.5\""},
      {{{"migrations", -3}}, "field 'telemetry.migrations': expected an integer 0..1000000000000"},
      {{{"migrations", 1.5}}, "field 'telemetry.migrations': expected an integer"},
      {{{"kernel_migrations", 18446744073709551615ULL}}, "telemetry.kernel_migrations"},
      {{{"samples", 1000000}}, "field 'telemetry.samples': expected an integer 0..100000"},
      {{{"samples", 1}, {"migrations", 5}, {"migrations_cross_l3", 6}},
       "cross-L3/cross-package migrations (6) exceed the migrations counted (5)"},
      {{{"samples", 1}, {"migrations", 5000}}, "5000 changes in 1 samples is impossible"},
      {{{"omitted", {{"cpu_user_s", 5}}}}, "field 'telemetry.omitted.cpu_user_s'"},
      {{{"omitted", {{"rm -rf", "x"}}}}, "expected names of telemetry fields"},
      {{{"trace", json::array()}}, "accepted"},  // unknown members are dropped
  };
  for (const auto& c : cases) {
    json j = good();
    j["telemetry"] = c.telemetry;
    EXPECT_NE(error_of(j).find(c.want), std::string::npos) << c.telemetry << ": " << error_of(j);
  }
  // NaN cannot be written in JSON text, but a parsed document can hold one.
  json nan = good();
  nan["telemetry"] = {{"cpu_user_s", std::numeric_limits<double>::quiet_NaN()}};
  EXPECT_NE(error_of(nan).find("telemetry.cpu_user_s"), std::string::npos) << error_of(nan);
  json huge = good();
  huge["telemetry"] = {{"samples", 1}, {"trace", json::array()}};
  huge["telemetry"]["trace"].get_ref<json::array_t&>().resize(1000000, 1);
  EXPECT_NE(error_of(huge).find("1000000 items, more than the limit"), std::string::npos)
      << error_of(huge);
}

TEST(ValidateResult, TelemetryRoundTripsAndIsOptional) {
  json j = good();
  EXPECT_FALSE(validate_result(j)->telemetry);  // an older agent or stored row: not recorded
  j["telemetry"] = {
      {"cpu_user_s", 1.5},        {"cpu_sys_s", 0.25},
      {"migrations", 4},          {"samples", 100},
      {"migrations_cross_l3", 1}, {"omitted", {{"kernel_migrations", "perf_event_open: ENOSYS"}}}};
  auto r = validate_result(j);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->telemetry);
  EXPECT_EQ(r->telemetry->migrations, 4u);
  EXPECT_EQ(r->telemetry->omitted.at("kernel_migrations"), "perf_event_open: ENOSYS");
  EXPECT_EQ(result_to_json(*r)["telemetry"], j["telemetry"]);
}

}  // namespace
}  // namespace topolab::protocol
