// The stored `host_telemetry` of a run (issue 26 item 2) read back through validate_result:
// sampled and not-sampled forms round-trip; hostile values are refused naming the field; a
// guest reply that carries the host's field is refused at receipt.
#include "protocol/host_telemetry.hpp"

#include <gtest/gtest.h>

#include "protocol/benchmark_result.hpp"
#include "protocol/protocol.hpp"

namespace topolab::protocol {
namespace {

using nlohmann::json;

json sampled() {
  return json::parse(R"({"sampled":true,"interval_ms":50,"samples":10,"read_us_median":80.5,
    "vcpus":[{"vcpu":0,"pinned":true,"samples":10,"vcpu_host_cpu_changes":0,
              "vcpu_host_l3_crossings":0,"unknown_cpu_samples":0,"l3_share":{"0":1.0}},
             {"vcpu":1,"pinned":false,"samples":10,"vcpu_host_cpu_changes":4,
              "vcpu_host_l3_crossings":2,"unknown_cpu_samples":1,
              "l3_share":{"0":0.5,"1":0.4}}]})");
}

std::string error_of(const json& j) {
  auto r = parse_host_telemetry(j);
  return r.ok() ? std::string("accepted") : r.error().message;
}

TEST(HostTelemetry, SampledAndNotSampledRoundTripThroughTheResult) {
  auto t = parse_host_telemetry(sampled());
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->vcpus.size(), 2u);
  EXPECT_EQ(t->vcpus[1].vcpu_host_cpu_changes, 4u);
  EXPECT_DOUBLE_EQ(t->vcpus[1].l3_share.at(1), 0.4);
  EXPECT_EQ(host_telemetry_to_json(*t), sampled());

  json result = {
      {"benchmark", "sqrt"},
      {"metric", "time"},
      {"unit", "s"},
      {"lower_is_better", true},
      {"samples", {1.0}},
      {"summary",
       {{"n", 1}, {"min", 1.0}, {"median", 1.0}, {"mean", 1.0}, {"max", 1.0}, {"cv", 0.0}}},
      {"host_telemetry", sampled()}};
  auto r = validate_result(result);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->host_telemetry);
  EXPECT_EQ(result_to_json(*r)["host_telemetry"], sampled());

  result["host_telemetry"] = host_telemetry_to_json(host_not_sampled("remote host"));
  r = validate_result(result);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->host_telemetry->sampled);
  EXPECT_EQ(r->host_telemetry->not_sampled, "remote host");
  // A store row without it (older build): absent, not an error.
  result.erase("host_telemetry");
  r = validate_result(result);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->host_telemetry);
}

TEST(HostTelemetry, HostileValuesAreRefusedNamingTheField) {
  auto with = [](const std::string& pointer, json value) {
    json j = sampled();
    j[json::json_pointer(pointer)] = std::move(value);
    return error_of(j);
  };
  EXPECT_NE(with("/sampled", "yes").find("'host_telemetry.sampled'"), std::string::npos);
  EXPECT_NE(with("/samples", 1000000).find("'host_telemetry.samples'"), std::string::npos);
  EXPECT_NE(with("/interval_ms", 0).find("interval_ms"), std::string::npos);
  EXPECT_NE(with("/read_us_median", -1.0).find("read_us_median"), std::string::npos);
  EXPECT_NE(with("/read_us_median", "NaN").find("read_us_median"), std::string::npos);
  EXPECT_NE(with("/vcpus/0/vcpu", -1).find("'host_telemetry.vcpus[0].vcpu'"), std::string::npos);
  EXPECT_NE(with("/vcpus/1/vcpu", 0).find("named once"), std::string::npos);
  EXPECT_NE(with("/vcpus/0/pinned", 1).find("vcpus[0].pinned"), std::string::npos);
  // More samples for a vCPU than ticks; more changes than pairs of samples; more crossings
  // than changes; more unknown samples than samples.
  EXPECT_NE(with("/vcpus/0/samples", 11).find("vcpus[0].samples"), std::string::npos);
  EXPECT_NE(with("/vcpus/1/vcpu_host_cpu_changes", 10).find("changes"), std::string::npos);
  EXPECT_NE(with("/vcpus/1/vcpu_host_l3_crossings", 5).find("crossings"), std::string::npos);
  EXPECT_NE(with("/vcpus/1/unknown_cpu_samples", 11).find("unknown"), std::string::npos);
  EXPECT_NE(with("/vcpus/1/vcpu_host_cpu_changes", 1e18).find("changes"), std::string::npos);
  EXPECT_NE(with("/vcpus/1/vcpu_host_cpu_changes", "4").find("changes"), std::string::npos);
  // Shares: in 0..1, numeric keys in range, summing to at most 1.
  EXPECT_NE(with("/vcpus/1/l3_share/1", 0.6).find("at most 1"), std::string::npos);
  EXPECT_NE(with("/vcpus/1/l3_share/1", -0.1).find("l3_share.1"), std::string::npos);
  EXPECT_NE(with("/vcpus/1/l3_share/x", 0.1).find("L3 indices"), std::string::npos);
  EXPECT_NE(with("/vcpus/1/l3_share/99999", 0.1).find("L3 indices"), std::string::npos);
  EXPECT_NE(with("/vcpus/1/l3_share", json::array()).find("l3_share"), std::string::npos);
  EXPECT_NE(with("/vcpus", json::object()).find("vcpus"), std::string::npos);
  json many = sampled();
  many["vcpus"] = json::array();
  for (int v = 0; v < 1025; ++v) many["vcpus"].push_back(sampled()["vcpus"][0]);
  EXPECT_NE(error_of(many).find("vcpus"), std::string::npos);
  // Not sampled: a reason, bounded.
  EXPECT_NE(error_of({{"sampled", false}}).find("not_sampled"), std::string::npos);
  EXPECT_NE(
      error_of({{"sampled", false}, {"not_sampled", std::string(2000, 'x')}}).find("not_sampled"),
      std::string::npos);
  EXPECT_NE(error_of(json::array()).find("an object"), std::string::npos);
}

TEST(HostTelemetry, AGuestReplyCarryingTheHostsFieldIsRefusedAtReceipt) {
  json result = {{"benchmark", "sqrt"},        {"metric", "time"},         {"unit", "s"},
                 {"lower_is_better", true},    {"samples", json::array()}, {"summary", {{"n", 0}}},
                 {"host_telemetry", sampled()}};
  auto m = decode(json({{"type", "result"}, {"id", 1}, {"result", result}}).dump());
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto r = parse_result(*m);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("measured by the host"), std::string::npos);
}

}  // namespace
}  // namespace topolab::protocol
