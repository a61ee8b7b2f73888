// Where the vCPUs ran, in the report (issue 26 item 2): per row the median per vCPU of the
// host counts, per vCPU its medians and mean L3 shares, not-sampled reasons said, every format.
#include <gtest/gtest.h>

#include <sstream>

#include "orchestrator/results/report/telemetry_table.hpp"

namespace topolab::report {
namespace {

protocol::VcpuHostTelemetry vcpu(int id, bool pinned, std::uint64_t changes,
                                 std::uint64_t crossings, std::map<int, double> shares) {
  protocol::VcpuHostTelemetry v;
  v.vcpu = id;
  v.pinned = pinned;
  v.samples = 20;
  v.vcpu_host_cpu_changes = changes;
  v.vcpu_host_l3_crossings = crossings;
  v.l3_share = std::move(shares);
  return v;
}

protocol::HostTelemetry run(std::vector<protocol::VcpuHostTelemetry> vcpus) {
  protocol::HostTelemetry t;
  t.sampled = true;
  t.interval_ms = 50;
  t.samples = 20;
  t.vcpus = std::move(vcpus);
  return t;
}

ReportData data() {
  ReportData d;
  ReportRow unpinned;
  unpinned.cell = "policy=unpinned <b>";
  unpinned.benchmark = "sqrt";
  // Runs: vCPU 0 changed 2, 4, 9 times; vCPU 1 1, 1, 3 times.
  unpinned.host_telemetry = {
      run({vcpu(0, false, 2, 1, {{0, 0.5}, {1, 0.5}}), vcpu(1, false, 1, 0, {{1, 1.0}})}),
      run({vcpu(0, false, 4, 2, {{0, 1.0}}), vcpu(1, false, 1, 1, {{1, 1.0}})}),
      run({vcpu(0, false, 9, 3, {{0, 0.0}, {1, 1.0}}), vcpu(1, false, 3, 0, {{1, 1.0}})})};
  ReportRow remote;
  remote.cell = "policy=compact";
  remote.benchmark = "sqrt";
  remote.host_telemetry = {protocol::host_not_sampled("remote host: not sampled")};
  d.rows = {unpinned, remote};
  return d;
}

TEST(HostTelemetryTable, MediansPerVcpuAndPerRow) {
  const auto s = host_telemetry_summary(data().rows[0]);
  EXPECT_EQ(s.sampled_runs, 3u);
  // Over every run x vCPU: 2 4 9 1 1 3 -> median 2.5; crossings 1 2 3 0 1 0 -> 1.
  EXPECT_DOUBLE_EQ(*s.changes, 2.5);
  EXPECT_DOUBLE_EQ(*s.crossings, 1.0);
  ASSERT_EQ(s.vcpus.size(), 2u);
  EXPECT_DOUBLE_EQ(s.vcpus[0].changes, 4.0);
  EXPECT_DOUBLE_EQ(s.vcpus[1].changes, 1.0);
  EXPECT_DOUBLE_EQ(s.vcpus[0].l3_share.at(0), 0.5);
  EXPECT_NEAR(s.vcpus[0].l3_share.at(1), 0.5, 1e-12);
  const auto r = host_telemetry_summary(data().rows[1]);
  EXPECT_EQ(r.sampled_runs, 0u);
  EXPECT_FALSE(r.changes);
  EXPECT_EQ(r.not_sampled, "remote host: not sampled");
}

TEST(HostTelemetryTable, EveryFormatCarriesThemAndSaysWhyNotSampled) {
  const auto d = data();
  auto j = telemetry_json(d.rows[0]);
  EXPECT_EQ(j["vcpu_host_cpu_changes"], 2.5);
  EXPECT_EQ(j["vcpu_host_l3_crossings"], 1.0);
  EXPECT_EQ(j["host_sampled_runs"], 3);
  EXPECT_EQ(j["host_vcpus"][0]["vcpu_host_cpu_changes"], 4.0);
  EXPECT_FALSE(j.contains("host_not_sampled"));
  auto remote = telemetry_json(d.rows[1]);
  EXPECT_TRUE(remote["vcpu_host_cpu_changes"].is_null());
  EXPECT_EQ(remote["host_not_sampled"], "remote host: not sampled");

  std::ostringstream table;
  console_telemetry(table, d);
  EXPECT_NE(table.str().find("vcpu_chg"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("2.5"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("vCPUs not sampled: remote host"), std::string::npos);

  EXPECT_NE(csv_telemetry_header(d).find(",tel_vcpu_host_cpu_changes,tel_vcpu_host_l3_crossings"),
            std::string::npos);
  EXPECT_NE(csv_telemetry_values(d, &d.rows[0]).find(",2.5,1"), std::string::npos)
      << csv_telemetry_values(d, &d.rows[0]);

  std::ostringstream html;
  html_telemetry(html, d);
  const std::string page = html.str();
  EXPECT_NE(page.find("Host L3 share of unpinned vCPUs"), std::string::npos);
  EXPECT_NE(page.find("50%"), std::string::npos);
  EXPECT_EQ(page.find("<b>"), std::string::npos);  // the cell label is escaped
  EXPECT_NE(page.find("&lt;b&gt;"), std::string::npos);
  EXPECT_NE(page.find("not sampled: remote host"), std::string::npos);
}

}  // namespace
}  // namespace topolab::report
