// A store of several hosts (issue 16): the host is a column in every format (table, CSV, JSON,
// HTML), baselines are compared within each host, a cell that does not fit a host is reported
// "does-not-fit" with the planner's reason (not failed, not dropped), and the context names
// every host. A store of one host keeps its outputs (the goldens of context_test.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "orchestrator/report/reporter.hpp"
#include "orchestrator/store/result_store.hpp"

namespace topolab::report {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLocal = "qemu:///system";
constexpr const char* kTcp = "qemu+tcp://127.0.0.1:16509/system";
constexpr const char* kUnfit =
    "placement: host CPU list 0-7 names CPUs this host does not have (online: 0-1)";

nlohmann::json result(double v) {
  return {{"benchmark", "sqrt"},     {"metric", "time"}, {"unit", "s"},
          {"lower_is_better", true}, {"samples", {v}},   {"summary", {{"n", 1}, {"median", v}}}};
}

class MultiHostReport : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/topolab-multihost-report-XXXXXX";
    dir_ = mkdtemp(tmpl);
    auto s = store::ResultStore::open(dir_ / "m.db");
    ASSERT_TRUE(s.ok()) << s.error().message;
    const nlohmann::json spec = {{"baseline", {{"expose", "flat"}}},
                                 {"benchmarks", {{{"name", "sqrt"}}}}};
    const nlohmann::json ctx = {{"backend", "guest"},
                                {"hosts",
                                 {{{"host", kLocal}, {"host_topology", nullptr}},
                                  {{"host", kTcp}, {"host_topology", nullptr}}}}};
    auto exp = (*s)->begin_experiment("mh", spec, nullptr, nullptr, ctx);
    ASSERT_TRUE(exp.ok());
    // expose=flat (baseline) and expose=sockets on both hosts; the tcp host is twice as slow,
    // so a baseline taken across hosts would show a +100% / -50% penalty.
    int position = 0;
    for (const char* host : {kLocal, kTcp}) {
      const double scale = std::string(host) == kTcp ? 2.0 : 1.0;
      for (const auto& [level, base] : {std::pair{"flat", 1.0}, std::pair{"sockets", 1.1}}) {
        const nlohmann::json f = {{"expose", level}};
        store::CellRecord c{f.dump(),       f.dump(), f,   std::string("expose=") + level,
                            position++ % 2, nullptr,  host};
        auto id = (*s)->upsert_cell(*exp, c);
        ASSERT_TRUE(id.ok()) << id.error().message;
        for (int rep = 1; rep <= 3; ++rep) {
          store::RunRecord r{*id, 0, 0, "sqrt", rep, nlohmann::json::object(), result(scale * base),
                             1.0};
          auto added = (*s)->add_run(r);
          ASSERT_TRUE(added.ok()) << added.error().message;
        }
        ASSERT_TRUE((*s)->set_cell_status(*id, "done", "", nlohmann::json::array(), 0).ok());
      }
    }
    const nlohmann::json wide = {{"expose", "flat"}, {"host_cpus", "0-7"}};
    store::CellRecord unfit{wide.dump(), wide.dump(), wide, "expose=flat host_cpus=0-7",
                            2,           nullptr,     kTcp};
    auto id = (*s)->upsert_cell(*exp, unfit);
    ASSERT_TRUE(id.ok());
    ASSERT_TRUE((*s)->set_cell_status(*id, "does-not-fit", kUnfit, nullptr, 0).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }

  ReportData load() {
    auto s = store::ResultStore::open_read_only(dir_ / "m.db");
    EXPECT_TRUE(s.ok());
    auto d = load_report(**s, "");
    EXPECT_TRUE(d.ok()) << d.error().message;
    return *d;
  }
  static std::string render(const ReportData& d, const std::string& format) {
    std::ostringstream out;
    (*make_reporter(format, out))->report(d);
    return out.str();
  }
  fs::path dir_;
};

TEST_F(MultiHostReport, BaselinesAreComparedWithinEachHost) {
  const ReportData d = load();
  ASSERT_EQ(d.hosts, (std::vector<std::string>{kTcp, kLocal})) << "grouped by host";
  ASSERT_EQ(d.rows.size(), 5u);
  for (const auto& r : d.rows) {
    EXPECT_FALSE(r.host.empty());
    EXPECT_EQ(r.factors["host"], r.host);
    if (r.cell == "expose=sockets") {
      ASSERT_TRUE(r.penalty.has_value()) << r.host;
      EXPECT_NEAR(*r.penalty, 10.0, 1e-6) << "against its own host's baseline, " << r.host;
    }
  }
}

TEST_F(MultiHostReport, EveryFormatHasTheHostAndTheDoesNotFitReason) {
  const ReportData d = load();
  const std::string table = render(d, "table");
  EXPECT_NE(table.find("\nhost    "), std::string::npos) << "the first column\n" << table;
  EXPECT_NE(table.find(std::string("\n") + kTcp + "  expose=flat host_cpus=0-7  sqrt"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("does-not-fit"), std::string::npos) << table;
  EXPECT_NE(
      table.find(std::string("does not fit: expose=flat host_cpus=0-7 @ ") + kTcp + ": " + kUnfit),
      std::string::npos)
      << table;
  EXPECT_EQ(table.find("error in"), std::string::npos) << "does-not-fit is not an error";
  EXPECT_NE(table.find(std::string("connect_uri      ") + kTcp + ", " + kLocal), std::string::npos)
      << table;

  const std::string csv = render(d, "csv");
  EXPECT_EQ(csv.rfind("experiment,cell,expose,host,", 0), 0u) << csv;
  EXPECT_NE(csv.find(std::string(",does-not-fit,0,") + kUnfit), std::string::npos) << csv;

  const auto json = nlohmann::json::parse(render(d, "json"));
  EXPECT_EQ(json["hosts"].size(), 2u);
  EXPECT_EQ(json["rows"][0]["host"], kTcp);
  EXPECT_EQ(json["rows"][2]["status"], "does-not-fit");
  EXPECT_EQ(json["rows"][2]["error"], kUnfit);
  EXPECT_TRUE(json["rows"][3]["cell_context"].is_object());

  const std::string html = render(d, "html");
  EXPECT_NE(html.find("<th class=\"t\">host</th><th class=\"t\">cell</th>"), std::string::npos);
  EXPECT_NE(html.find(std::string("<td class=\"t\">") + kTcp + "</td>"), std::string::npos);
  EXPECT_NE(html.find(std::string("expose=sockets @ ") + kLocal), std::string::npos)
      << "chart labels name the host";
  EXPECT_NE(html.find(std::string("does-not-fit: ") + kUnfit), std::string::npos);
}

}  // namespace
}  // namespace topolab::report
