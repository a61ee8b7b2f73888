// A store of several hosts (issue 16): the host is a column in every format (table, CSV, JSON,
// HTML), baselines are compared within each host, a cell that does not fit a host is reported
// "does-not-fit" with the planner's reason (not failed, not dropped), and the context names
// every host. A store of one host keeps its outputs (the goldens of context_test.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "host/topology_json.hpp"
#include "orchestrator/model/layout/layout.hpp"
#include "orchestrator/planning/placement/synthetic_host.hpp"
#include "orchestrator/planning/plan/guest_plan.hpp"
#include "orchestrator/results/report/reporter.hpp"
#include "orchestrator/results/store/result_store.hpp"

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

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The HTML pictures of a store of several hosts: each host's cells are planned on that host's
// own topology as the runner does (a boot storing its plan, or does-not-fit with the planner's
// reason) and drawn on its stored topology (context.hosts[].host_topology) in a section of its own;
// a configuration that fits one host and not the other is drawn on the one and explained on
// the other (before issue 16 follow-up, only the first host's topology and cells were drawn).
TEST(MultiHostPictures, EachHostGetsItsOwnPlacementAndSeenSections) {
  char tmpl[] = "/tmp/topolab-multihost-pictures-XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  {
    auto s = store::ResultStore::open(dir / "p.db");
    ASSERT_TRUE(s.ok()) << s.error().message;
    SyntheticHostSpec small, big;
    small.cores_per_l3 = 2;  // CPUs 0-1
    big.l3_per_package = 2;  // CPUs 0-7 in two L3 domains
    big.cores_per_l3 = 4;
    const nlohmann::json ctx = {
        {"backend", "guest"},
        {"hosts",
         {{{"host", kLocal}, {"host_topology", topology_to_json(make_synthetic_host(small))}},
          {{"host", kTcp}, {"host_topology", topology_to_json(make_synthetic_host(big))}}}}};
    auto exp = (*s)->begin_experiment("pics", {{"benchmarks", {{{"name", "sqrt"}}}}}, nullptr,
                                      nullptr, ctx);
    ASSERT_TRUE(exp.ok());
    Layout narrow, wide;
    narrow.l3_groups = wide.l3_groups = 1;
    narrow.cores_per_group = wide.cores_per_group = 2;
    narrow.threads_per_core = wide.threads_per_core = 1;
    narrow.host_cpus = CpuList{0, 1};
    wide.host_cpus = CpuList{4, 5, 6, 7};  // only the 8-CPU host has these
    int position = 0;
    for (const char* host : {kLocal, kTcp})
      for (const auto& [label, layout] :
           {std::pair{"host_cpus=0-1", narrow}, std::pair{"host_cpus=4-7", wide}}) {
        const nlohmann::json f = {{"placement.host_cpus", std::string(label).substr(10)}};
        store::CellRecord c{f.dump(), f.dump(), f, label, position++ % 2, layout_to_json(layout),
                            host};
        auto cell = (*s)->upsert_cell(*exp, c);
        ASSERT_TRUE(cell.ok());
        const auto topo = make_synthetic_host(host == std::string(kLocal) ? small : big);
        auto plan = plan::plan_guest(layout, {topo, std::nullopt, std::nullopt});
        if (!plan) {
          ASSERT_TRUE(
              (*s)->set_cell_status(*cell, "does-not-fit", plan.error().message, nullptr, 0).ok());
          continue;
        }
        store::BootRecord b;
        b.experiment_id = *exp;
        b.config_key = f.dump();
        b.host = host;
        b.plan = plan::guest_plan_to_json(*plan);
        auto boot = (*s)->add_boot(b);
        ASSERT_TRUE(boot.ok());
        ASSERT_TRUE((*s)->set_cell_status(*cell, "done", "", nlohmann::json::array(), *boot).ok());
      }
  }
  auto s = store::ResultStore::open_read_only(dir / "p.db");
  ASSERT_TRUE(s.ok());
  auto d = load_report(**s, "");
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->pictures.per_host.size(), 2u);
  for (const auto& h : d->pictures.per_host) {
    ASSERT_TRUE(h.host.has_value()) << h.host_uri << ": " << h.host_note;
    ASSERT_EQ(h.configs.size(), 2u) << h.host_uri << ": only its own cells";
    EXPECT_TRUE(h.configs[0].plan.has_value()) << h.configs[0].plan_note;
  }
  EXPECT_EQ(d->pictures.per_host[0].host_uri, kLocal);
  EXPECT_EQ(d->pictures.per_host[0].host->cpus.size(), 2u);
  EXPECT_FALSE(d->pictures.per_host[0].configs[1].plan.has_value()) << "4-7 on a 2-CPU host";
  EXPECT_NE(d->pictures.per_host[0].configs[1].plan_note.find("placement: "), std::string::npos);
  EXPECT_EQ(d->pictures.per_host[1].host->cpus.size(), 8u);
  EXPECT_TRUE(d->pictures.per_host[1].configs[1].plan.has_value())
      << d->pictures.per_host[1].configs[1].plan_note;

  std::ostringstream out;
  (*make_reporter("html", out))->report(*d);
  const std::string html = out.str();
  const auto local_at = html.find(std::string("<h2>Placement on ") + kLocal + "</h2>");
  const auto tcp_at = html.find(std::string("<h2>Placement on ") + kTcp + "</h2>");
  ASSERT_NE(local_at, std::string::npos) << html;
  ASSERT_NE(tcp_at, std::string::npos) << html;
  EXPECT_LT(local_at, tcp_at) << "in the store's host order";
  EXPECT_EQ(html.find("<h2>Placement on the host</h2>"), std::string::npos);
  // Three plans drawn (2 on the big host, 1 on the small); the small host's section explains
  // the fourth, before the big host's section starts.
  EXPECT_EQ(count(html, "class=\"pic-placement\""), 3u);
  const auto note = html.find("placement: ", local_at);
  EXPECT_LT(note, tcp_at) << html.substr(local_at, 2000);
  EXPECT_NE(html.find(" 2 online CPU(s)"), std::string::npos);
  EXPECT_NE(html.find("8 online CPU(s)"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace topolab::report
