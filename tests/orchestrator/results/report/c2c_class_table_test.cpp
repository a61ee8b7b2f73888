// Core-to-core classes in two views (issue 26): the guest view from the topology the guest was
// told, the host view from the host CPUs behind the vCPUs. The shape of the acceptance case:
// `expose = "dies"` on a one-L3 host reads same_package in the guest and same_l3 on the host.
#include "orchestrator/results/report/c2c_class_table.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "host/topology_builder.hpp"
#include "host/topology_json.hpp"
#include "protocol/protocol.hpp"

namespace topolab::report {
namespace {

// Two CPUs of one package; on two dies with an L3 each (the guest told "dies"), or sharing one
// L3 (this host).
nlohmann::json two_cpus(bool two_dies) {
  RawTopology raw;
  raw.cpus = {{0, true, 0, 0, CpuList{0}}, {1, true, 0, two_dies ? 1 : 0, CpuList{1}}};
  raw.l3 = two_dies ? std::vector<RawCache>{{CpuList{0}, 0}, {CpuList{1}, 0}}
                    : std::vector<RawCache>{{CpuList{0, 1}, 0}};
  auto t = build_topology(raw);
  EXPECT_TRUE(t) << t.error().message;
  return topology_to_json(*t);
}

LatencyMatrix dies_on_one_l3(const std::string& host_cpus0, const std::string& host_cpus1) {
  LatencyMatrix m;
  m.cell = "expose=dies";
  m.cpus = {0, 1};
  m.ns = {{NAN, 40.0}, {44.0, NAN}};
  m.topology = two_cpus(true);
  m.host_topology = two_cpus(false);
  // The shape a run stores: the agent copies the host's placement list (protocol's writer).
  m.placement = protocol::placement_to_json(
      {{0, *CpuList::parse(host_cpus0)}, {1, *CpuList::parse(host_cpus1)}});
  return m;
}

TEST(C2cClassTable, GuestSeesDiesTheHostSeesOneL3) {
  const C2cViews v = c2c_views(dies_on_one_l3("0", "1"));
  ASSERT_EQ(v.guest_view.size(), 1u);
  EXPECT_EQ(v.guest_view[0].name, "same_package");
  EXPECT_EQ(v.guest_view[0].pairs, 1u);
  EXPECT_DOUBLE_EQ(v.guest_view[0].median_ns, 40.0);  // the a->b direction when both exist
  ASSERT_EQ(v.host_view.size(), 1u);
  EXPECT_EQ(v.host_view[0].name, "same_l3");
  const auto j = c2c_views_json(v);
  EXPECT_EQ(j["guest_view"][0]["class"], "same_package");
  EXPECT_EQ(j["host_view"][0]["class"], "same_l3");
  EXPECT_EQ(j["host_view"][0]["min_ns"], 40.0);
  EXPECT_FALSE(j.contains("host_view_missing"));
}

TEST(C2cClassTable, AnUnpinnedVcpuPairHasNoHostClassOnlyIfTheCombinationsDisagree) {
  // Both vCPUs may run on 0-1: the pair can be the same CPU or two CPUs of one L3.
  const C2cViews v = c2c_views(dies_on_one_l3("0-1", "0-1"));
  ASSERT_EQ(v.host_view.size(), 1u);
  EXPECT_EQ(v.host_view[0].name, "unknown");
}

TEST(C2cClassTable, StoredPlacementEntriesOfAnotherShapeAreSkipped) {
  LatencyMatrix m = dies_on_one_l3("0", "1");
  m.placement = nlohmann::json::parse(
      R"([{"vcpu":0,"host_cpus":"0"},{"vcpu":"1","host_cpus":"1"},{"vcpu":1,"host_cpus":7},
          {"vcpu":1,"host_cpus":"x"},17])");
  const C2cViews v = c2c_views(m);
  ASSERT_EQ(v.host_view.size(), 1u);
  EXPECT_EQ(v.host_view[0].name, "unknown");           // vCPU 1 has no readable entry
  m.placement = {{"vcpus", nlohmann::json::array()}};  // not the stored shape
  EXPECT_EQ(c2c_views(m).host_view_missing, "no vCPU placement stored with the runs");
}

TEST(C2cClassTable, WithoutPlacementTheHostViewSaysWhy) {
  LatencyMatrix m = dies_on_one_l3("0", "1");
  m.placement = nullptr;
  const C2cViews v = c2c_views(m);
  EXPECT_TRUE(v.host_view.empty());
  EXPECT_EQ(v.host_view_missing, "no vCPU placement stored with the runs");
  ReportData data;
  data.matrices = {m};
  std::ostringstream out;
  console_c2c_classes(out, data);
  for (const char* want : {"guest view", "same_package", "1 pairs", "40-40", "average     40"})
    EXPECT_NE(out.str().find(want), std::string::npos) << want << " in\n" << out.str();
  EXPECT_NE(out.str().find("host view: no vCPU placement"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace topolab::report
