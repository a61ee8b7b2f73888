// Scheduling telemetry in comparisons (issue 26 item 4): per compared row the median per run of
// each side and B - A, "not recorded" for a side without telemetry, in every format, no verdict.
#include "orchestrator/results/report/telemetry_delta.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "orchestrator/results/report/compare.hpp"
#include "orchestrator/results/report/reporter.hpp"

namespace topolab::report {
namespace {

protocol::RunTelemetry run(std::uint64_t migrations, double user_s) {
  protocol::RunTelemetry t;
  t.migrations = migrations;
  t.migrations_cross_l3 = migrations / 2;
  t.cpu_user_s = user_s;
  t.cpu_sys_s = 0.01;
  t.samples = 100;
  return t;
}

ReportData side(const std::string& name, std::vector<protocol::RunTelemetry> telemetry) {
  ReportData d;
  d.experiment = name;
  ReportRow r;
  r.cell = "policy=unpinned";
  r.factors = {{"policy", "unpinned"}};
  r.benchmark = "sqrt";
  r.unit = "s";
  r.status = "done";
  r.values = {1.0, 1.1, 0.9};
  r.telemetry = std::move(telemetry);
  d.rows.push_back(r);
  compute_statistics(d, nlohmann::json::object());
  return d;
}

const TelemetryDeltaField& field(const TelemetryDelta& d, const std::string& name) {
  for (const auto& f : d.fields)
    if (f.field == name) return f;
  static const TelemetryDeltaField none;
  ADD_FAILURE() << "no field " << name;
  return none;
}

std::string render(const CompareData& d, const char* format) {
  std::ostringstream out;
  auto r = make_reporter(format, out);
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE((*r)->compare(d).ok());
  return out.str();
}

TEST(TelemetryDelta, MediansPerRunOfEachSideAndTheirDifference) {
  // A: migrations 2, 4, 40 (median 4); B: 10, 12 (median 11).
  const auto a = side("a", {run(2, 1.0), run(4, 1.2), run(40, 0.8)});
  const auto b = side("b", {run(10, 2.0), run(12, 2.4)});
  const auto d = compare_reports(a, b, "a.db", "b.db");
  ASSERT_EQ(d.rows.size(), 1u);
  const TelemetryDelta& t = d.rows[0].telemetry;
  EXPECT_EQ(t.not_recorded(), "");
  EXPECT_EQ(t.runs_a, 3u);
  EXPECT_EQ(t.runs_b, 2u);
  const auto& m = field(t, "migrations");
  EXPECT_DOUBLE_EQ(*m.a, 4);
  EXPECT_DOUBLE_EQ(*m.b, 11);
  EXPECT_DOUBLE_EQ(*m.delta, 7);
  EXPECT_EQ(telemetry_side_text(t, m, false), "4 (n=3)");
  EXPECT_EQ(telemetry_side_text(t, m, true), "11 (n=2)");
  EXPECT_EQ(telemetry_delta_text(m), "+7");
  const auto& user = field(t, "cpu_user_s");
  EXPECT_NEAR(*user.delta, 2.2 - 1.0, 1e-12);
  EXPECT_EQ(telemetry_delta_text(user), "+1.2");
  const auto& cross = field(t, "migrations_cross_l3");  // 1, 2, 20 against 5, 6
  EXPECT_DOUBLE_EQ(*cross.delta, 5.5 - 2);
  EXPECT_EQ(telemetry_delta_text(cross), "+3.5");
  const auto& kernel = field(t, "kernel_migrations");  // no run has it
  EXPECT_FALSE(kernel.delta);
  EXPECT_EQ(telemetry_side_text(t, kernel, false), "-");
}

TEST(TelemetryDelta, ASideWithoutTelemetryReadsNotRecordedInEveryFormat) {
  const auto a = side("a", {});  // a store of an agent before issue 26
  const auto b = side("b", {run(3, 1.0), run(5, 1.0), run(4, 1.0)});
  const auto d = compare_reports(a, b, "a.db", "b.db");
  const TelemetryDelta& t = d.rows[0].telemetry;
  EXPECT_EQ(t.not_recorded(), "A");
  EXPECT_FALSE(field(t, "migrations").delta);
  EXPECT_EQ(telemetry_side_text(t, field(t, "migrations"), false), "not recorded");
  const std::string table = render(d, "table");
  EXPECT_NE(table.find("scheduling telemetry"), std::string::npos) << table;
  const auto line = table.find("sqrt       migrations ");
  ASSERT_NE(line, std::string::npos) << table;
  const std::string migrations = table.substr(line, table.find('\n', line) - line);
  EXPECT_NE(migrations.find("not recorded     4 (n=3)  -"), std::string::npos) << migrations;
  const auto json = nlohmann::json::parse(render(d, "json"));
  const auto& row = json["rows"][0]["telemetry"];
  EXPECT_EQ(row["not_recorded"], "A") << row.dump();
  EXPECT_TRUE(row["fields"]["migrations"]["median_a"].is_null());
  EXPECT_EQ(row["fields"]["migrations"]["median_b"], 4);
  EXPECT_TRUE(row["fields"]["migrations"]["delta"].is_null());
  EXPECT_FALSE(row.contains("verdict")) << "telemetry gets no verdict";
  EXPECT_EQ(json["telemetry_method"], kTelemetryDeltaMethod);
  const std::string csv = render(d, "csv");
  EXPECT_NE(csv.find(",tel_not_recorded,tel_runs_a,tel_runs_b,tel_a_cpu_user_s,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",A,0,3,,1,,"), std::string::npos) << csv;
  const std::string html = render(d, "html");
  EXPECT_NE(html.find("<h2>Scheduling telemetry</h2>"), std::string::npos);
  EXPECT_NE(html.find("<td>not recorded</td><td>4 (n=3)</td>"), std::string::npos) << html;
}

TEST(TelemetryDelta, ComparisonsOfOlderStoresLookAsBefore) {
  const auto d = compare_reports(side("a", {}), side("b", {}), "a.db", "b.db");
  EXPECT_EQ(d.rows[0].telemetry.not_recorded(), "A and B");
  EXPECT_FALSE(compare_has_telemetry(d));
  EXPECT_EQ(render(d, "table").find("scheduling telemetry"), std::string::npos);
  EXPECT_EQ(render(d, "csv").find("tel_"), std::string::npos);
  EXPECT_FALSE(nlohmann::json::parse(render(d, "json"))["rows"][0].contains("telemetry"));
  EXPECT_EQ(render(d, "html").find("Scheduling telemetry"), std::string::npos);
}

TEST(TelemetryDelta, HostileLabelsAreEscapedInTheTelemetryTable) {
  auto a = side("a", {run(1, 1.0)});
  a.rows[0].cell = "<script>\x1b[31m";
  auto b = a;
  b.rows[0].telemetry = {run(2, 1.0)};
  const auto d = compare_reports(a, b, "a.db", "b.db");
  EXPECT_EQ(render(d, "html").find("<script>"), std::string::npos);
  EXPECT_EQ(render(d, "table").find('\x1b'), std::string::npos);
}

}  // namespace
}  // namespace topolab::report
