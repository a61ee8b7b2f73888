// The HTML report's SVG pictures (orchestrator/results/report/svg_*): small golden files for each
// kind, escaping of store strings, and size caps for stores that name 8192 CPUs or 10 000 cells.
// scripts/update-goldens.sh rewrites the golden files (tests/support/golden.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "common/file_io.hpp"
#include "common/json_text.hpp"
#include "host/topology_json.hpp"
#include "orchestrator/planning/placement/synthetic_host.hpp"
#include "orchestrator/planning/plan/guest_plan.hpp"
#include "orchestrator/results/report/reporter.hpp"
#include "orchestrator/results/report/svg_charts.hpp"
#include "orchestrator/results/report/svg_data.hpp"
#include "orchestrator/results/report/svg_sections.hpp"
#include "orchestrator/results/report/svg_topology.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/store_fixture.hpp"
#include "tests/support/stored_plans.hpp"

namespace topolab::report::svg {
namespace {

const std::string kGoldenDir =
    std::string(TOPOLAB_TESTS_DIR) + "/orchestrator/results/report/data/svg/";

void expect_golden(const std::string& name, const std::string& got) {
  ::topolab::testing::expect_golden_file(kGoldenDir + name, got);
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// 2 packages x 2 L3 domains x 2 cores x 2 threads: 16 host CPUs.
HostTopology two_socket_host() {
  SyntheticHostSpec s;
  s.packages = 2;
  s.l3_per_package = 2;
  s.cores_per_l3 = 2;
  s.threads = 2;
  return make_synthetic_host(s);
}

Layout layout(int groups, int cores, int threads, PlacementPolicy policy) {
  Layout l;
  l.l3_groups = groups;
  l.cores_per_group = cores;
  l.threads_per_core = threads;
  l.policy = policy;
  l.expose = Exposure::kSockets;
  return l;
}

// A layout's plan as a boot stores it (guest_plan_to_json) and the report reads it back.
std::optional<StoredPlacement> stored_plan(const HostTopology& host, const Layout& l) {
  auto plan = plan::plan_guest(l, {host, std::nullopt, std::nullopt});
  EXPECT_TRUE(plan.ok()) << plan.error().message;
  if (!plan) return std::nullopt;
  auto back = placement_from_stored(plan::guest_plan_to_json(*plan));
  EXPECT_TRUE(back.ok()) << back.error().message;
  return back ? std::optional<StoredPlacement>(*back) : std::nullopt;
}

std::string placement(const HostTopology& host, const Layout& l) {
  auto plan = stored_plan(host, l);
  std::ostringstream o;
  if (plan) placement_svg(o, host, *plan);
  return o.str();
}

TEST(SvgPlacement, PinnedGroupsInTheirL3DomainsMatchGolden) {
  const auto svg = placement(two_socket_host(), layout(2, 2, 2, PlacementPolicy::kL3Aligned));
  // Two groups: two colours, eight pinned vCPUs, and both packages drawn.
  EXPECT_NE(svg.find("fill:#4e79a7"), std::string::npos);
  EXPECT_NE(svg.find("fill:#f28e2b"), std::string::npos);
  EXPECT_NE(svg.find(">v7<"), std::string::npos);
  EXPECT_NE(svg.find("package 1"), std::string::npos);
  expect_golden("placement_l3_aligned.svg", svg);
}

TEST(SvgPlacement, UnpinnedGuestShadesItsFloatSetMatchGolden) {
  const auto svg = placement(two_socket_host(), layout(2, 1, 1, PlacementPolicy::kUnpinned));
  EXPECT_NE(svg.find("tfloat"), std::string::npos);
  EXPECT_NE(svg.find("unpinned: 2 vCPUs float"), std::string::npos);
  EXPECT_EQ(svg.find(">v0<"), std::string::npos) << "no vCPU is pinned anywhere";
  expect_golden("placement_unpinned.svg", svg);
}

TEST(SvgPlacement, EmulatorCpusAreMarked) {
  auto l = layout(1, 2, 1, PlacementPolicy::kCompact);
  l.housekeeping_cpus = CpuList{15};
  const auto svg = placement(two_socket_host(), l);
  EXPECT_NE(svg.find("tidle temu"), std::string::npos) << "CPU 15 runs only the emulator";
  EXPECT_NE(svg.find("host CPU 15; emulator threads"), std::string::npos);
}

TEST(SvgPlacement, An8192CpuHostIsCappedAndSaysSo) {
  SyntheticHostSpec s;
  s.packages = 8;
  s.l3_per_package = 16;
  s.cores_per_l3 = 32;
  s.threads = 2;  // 8192 CPUs in 128 L3 domains of 64
  const auto host = make_synthetic_host(s);
  ASSERT_EQ(host.cpus.size(), 8192u);
  const auto svg = placement(host, layout(64, 8, 2, PlacementPolicy::kL3Aligned));
  EXPECT_LT(svg.size(), 200'000u) << svg.size();
  EXPECT_NE(svg.find("(112 more L3 domains not drawn)"), std::string::npos);
  // 16 drawn domains of 64 CPUs show 32 each: 7168 + 16 * 32 = 7680 left out.
  EXPECT_NE(svg.find("(7680 more host CPUs not drawn)"), std::string::npos);
  EXPECT_NE(svg.find("more groups not drawn"), std::string::npos);
}

ReportRow row(int threads, const std::string& pin, std::vector<double> values) {
  ReportRow r;
  r.factors = {{"param.pin", pin}, {"param.threads", threads}};
  r.cell = "threads=" + std::to_string(threads) + " pin=" + pin;
  r.benchmark = "spawn-loop";
  r.unit = "spawns/s";
  r.lower_is_better = false;
  r.values = std::move(values);
  return r;
}

// The worst a store can ask for: the most configurations drawn, each on an 8192-CPU host with
// an 8192-CPU guest topology of its own, plus capped scaling charts: a few MB, not a GB.
TEST(SvgPage, WorstCasePicturesStayAFewMegabytes) {
  SyntheticHostSpec s;
  s.packages = 8;
  s.l3_per_package = 16;
  s.cores_per_l3 = 32;
  s.threads = 2;
  ReportData d;
  d.pictures.host = make_synthetic_host(s);
  for (std::size_t i = 0; i < kMaxPictureConfigs; ++i) {
    ConfigPicture c;
    c.label = "config " + std::to_string(i);
    c.plan = stored_plan(*d.pictures.host, layout(64, 8, 2, PlacementPolicy::kL3Aligned));
    ASSERT_TRUE(c.plan.has_value());
    s.packages = 8 + static_cast<int>(i) % 4;  // distinct guest topologies: no sharing
    s.cores_per_l3 = 32 - static_cast<int>(i) / 4;
    c.seen = make_synthetic_host(s);
    d.pictures.configs.push_back(std::move(c));
  }
  d.pictures.configs_left_out = 10'000;
  for (int t = 1; t <= 100; ++t)
    for (int k = 0; k < 100; ++k)
      for (int b = 0; b < 20; ++b) {
        auto r = row(t, "p" + std::to_string(k), {1.0 * t});
        r.benchmark_index = b;
        d.rows.push_back(r);
      }
  compute_statistics(d, {});
  std::ostringstream out;
  write_scaling_section(out, d);
  write_topology_sections(out, d);
  EXPECT_LT(out.str().size(), 8'000'000u) << out.str().size();
  EXPECT_NE(out.str().find("(10000 more configurations not drawn)"), std::string::npos);
  EXPECT_NE(out.str().find("(12 more charts not drawn)"), std::string::npos);
}

TEST(SvgSeen, GuestTopologyMatchesGolden) {
  // What the main job's expose=dies guest reported: one package, two dies, an L3 each.
  const auto seen = topology_from_json(nlohmann::json::parse(R"J({
    "cpus":[{"id":0,"package":0,"die":0,"core":0,"l3":0,"siblings":"0"},
            {"id":1,"package":0,"die":1,"core":1,"l3":1,"siblings":"1"}],
    "packages":[{"id":0,"cpus":"0-1"}],
    "dies":[{"id":0,"package":0,"die_id":0,"cpus":"0"},{"id":1,"package":0,"die_id":1,"cpus":"1"}],
    "l3_domains":[{"id":0,"cpus":"0","size_kib":16384},{"id":1,"cpus":"1","size_kib":16384}],
    "model":"Intel Xeon Processor (Skylake)"})J"));
  ASSERT_TRUE(seen.ok()) << seen.error().message;
  std::ostringstream o;
  seen_topology_svg(o, *seen);
  EXPECT_NE(o.str().find("1 package(s), 2 die(s), 2 L3 domain(s)"), std::string::npos);
  expect_golden("seen_dies.svg", o.str());
}

TEST(SvgSeen, SmtSiblingsShareACoreFrame) {
  SyntheticHostSpec s;
  s.cores_per_l3 = 2;
  s.threads = 2;
  std::ostringstream o;
  seen_topology_svg(o, make_synthetic_host(s));
  EXPECT_EQ(count(o.str(), "class=\"tcore\""), 2u);
}

ReportData scaling_data() {
  ReportData d;
  for (int t : {1, 2, 4, 8})
    for (const char* pin : {"none", "compact"}) {
      const double base = std::string(pin) == "none" ? 80 : 90;
      d.rows.push_back(row(t, pin, {base * t, base * t * 1.1, base * t * 0.9}));
    }
  compute_statistics(d, {});
  return d;
}

TEST(SvgScaling, ThreadsByPinMatchesGolden) {
  std::size_t left_out = 9;
  const auto charts = scaling_charts(scaling_data(), &left_out);
  ASSERT_EQ(charts.size(), 1u) << "pin is not numeric: only threads gives a chart";
  EXPECT_EQ(left_out, 0u);
  const auto& c = charts.front();
  EXPECT_EQ(c.factor, "param.threads");
  ASSERT_EQ(c.series.size(), 2u);
  EXPECT_EQ(c.series[0].label, "param.pin=compact");
  ASSERT_EQ(c.series[0].points.size(), 4u);
  EXPECT_DOUBLE_EQ(c.series[0].points[3].x, 8);
  EXPECT_DOUBLE_EQ(c.series[0].points[3].median, 720);
  EXPECT_DOUBLE_EQ(c.series[0].points[3].max, 792);
  std::ostringstream o;
  scaling_svg(o, c);
  EXPECT_NE(o.str().find("(log scale)"), std::string::npos) << "1..8 doubles: log2 axis";
  expect_golden("scaling_threads.svg", o.str());
}

TEST(SvgScaling, NumericStringLevelsCountAndTextLevelsDoNot) {
  ReportData d;
  d.rows.push_back(row(1, "none", {1}));
  d.rows.push_back(row(2, "none", {2}));
  d.rows[0].factors["size"] = "64";
  d.rows[1].factors["size"] = "128";
  compute_statistics(d, {});
  std::size_t left_out = 0;
  const auto charts = scaling_charts(d, &left_out);
  ASSERT_EQ(charts.size(), 2u);
  EXPECT_EQ(charts[0].factor, "param.threads");
  EXPECT_EQ(charts[1].factor, "size");
}

TEST(SvgScaling, TenThousandCellsAreCapped) {
  ReportData d;
  for (int t = 1; t <= 100; ++t)
    for (int k = 0; k < 100; ++k) d.rows.push_back(row(t, "p" + std::to_string(k), {1.0 * t}));
  compute_statistics(d, {});
  std::size_t left_out = 0;
  const auto charts = scaling_charts(d, &left_out);
  ASSERT_EQ(charts.size(), 1u);
  EXPECT_EQ(charts[0].series.size(), kMaxSeries);
  EXPECT_LE(charts[0].series[0].points.size(), kMaxPoints);
  std::ostringstream o;
  scaling_svg(o, charts[0]);
  EXPECT_LT(o.str().size(), 100'000u);
  EXPECT_NE(o.str().find("more series not drawn"), std::string::npos);
  EXPECT_NE(o.str().find("more points not drawn"), std::string::npos);
}

TEST(SvgScaling, StoreStringsAreEscaped) {
  ReportData d;
  for (int t : {1, 2}) {
    auto r = row(t, "<script>alert(1)</script>", {1.0 * t});
    r.benchmark = "b\"><script>";
    r.unit = "&<u>";
    d.rows.push_back(r);
  }
  compute_statistics(d, {});
  const auto charts = scaling_charts(d, nullptr);
  ASSERT_EQ(charts.size(), 1u);
  std::ostringstream o;
  scaling_svg(o, charts[0]);
  EXPECT_EQ(o.str().find("<script"), std::string::npos);
  EXPECT_EQ(o.str().find("<u>"), std::string::npos);
  EXPECT_NE(o.str().find("&lt;script&gt;alert(1)"), std::string::npos);
  EXPECT_NE(o.str().find("&amp;&lt;u&gt;"), std::string::npos);
}

TEST(SvgC2c, PairClassesMatchGolden) {
  // 2 packages x 1 L3 x 1 core x 2 threads: CPUs 0,2 and 1,3 are SMT siblings (Linux
  // numbering), 0-1 share package 0 and its L3, 2-3 package 1.
  SyntheticHostSpec s;
  s.packages = 2;
  s.cores_per_l3 = 1;
  s.threads = 2;
  LatencyMatrix m;
  m.topology = topology_to_json(make_synthetic_host(s));
  m.cpus = {0, 1, 2, 3};
  const double n = NAN;
  m.ns = {{n, 100, 20, 110}, {100, n, 120, 22}, {20, 120, n, 105}, {110, 22, 105, n}};
  const auto classes = c2c_classes(m);
  ASSERT_EQ(classes.size(), 2u);
  EXPECT_EQ(classes[0].name, "SMT siblings");
  EXPECT_EQ(classes[0].pairs, 2u);
  EXPECT_DOUBLE_EQ(classes[0].median, 21);
  EXPECT_EQ(classes[1].name, "other package");
  EXPECT_EQ(classes[1].pairs, 4u);
  std::ostringstream o;
  c2c_classes_svg(o, classes);
  expect_golden("c2c_classes.svg", o.str());
}

TEST(SvgC2c, UnknownTopologyIsAClassNotACrash) {
  LatencyMatrix m;
  m.topology = "not a topology";
  m.cpus = {0, 1};
  m.ns = {{NAN, 50}, {NAN, NAN}};
  const auto classes = c2c_classes(m);
  ASSERT_EQ(classes.size(), 1u);
  EXPECT_EQ(classes[0].name, "unknown topology");
  EXPECT_DOUBLE_EQ(classes[0].median, 50);
}

TEST(SvgData, StoredPlanReadsBackAsPlanned) {
  const auto host = two_socket_host();
  auto l = layout(2, 2, 2, PlacementPolicy::kCompact);
  l.housekeeping_cpus = CpuList{15};
  auto plan = plan::plan_guest(l, {host, std::nullopt, std::nullopt});
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  auto back = placement_from_stored(plan::guest_plan_to_json(*plan));
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->vcpus.size(), plan->placement.vcpus.size());
  for (std::size_t i = 0; i < back->vcpus.size(); ++i) {
    EXPECT_EQ(back->vcpus[i].vcpu, plan->placement.vcpus[i].vcpu);
    EXPECT_EQ(back->vcpus[i].host_cpus, plan->placement.vcpus[i].host_cpus);
    EXPECT_EQ(back->vcpus[i].group, plan->placement.vcpus[i].group);
    EXPECT_EQ(back->vcpus[i].core, plan->placement.vcpus[i].core);
    EXPECT_EQ(back->vcpus[i].thread, plan->placement.vcpus[i].thread);
  }
  EXPECT_TRUE(back->pinned);
  EXPECT_EQ(back->emulator_cpus, CpuList{15});
}

TEST(SvgData, HostileStoredPlanIsRefusedWithItsField) {
  auto bad = placement_from_stored(
      {{"vcpus", {{{"vcpu", 0}, {"host_cpus", "x"}, {"group", 0}, {"core", 0}, {"thread", 0}}}},
       {"pinned", true},
       {"emulator_cpus", ""}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("vcpus[0]: host_cpus"), std::string::npos)
      << bad.error().message;
  auto huge = placement_from_stored(
      {{"vcpus", {{{"vcpu", 99999}, {"host_cpus", "0"}, {"group", 0}, {"core", 0}, {"thread", 0}}}},
       {"pinned", true},
       {"emulator_cpus", ""}});
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().message.find("vcpu: 99999 is outside"), std::string::npos);
  EXPECT_FALSE(placement_from_stored({{"vcpus", nlohmann::json::array()}}).ok()) << "no pinned";
  EXPECT_FALSE(placement_from_stored("a string").ok());
  // 8192 float sets of every CPU: the CPU-id budget refuses it before expanding 67 M ids.
  nlohmann::json floats = nlohmann::json::array();
  for (int i = 0; i < 8192; ++i)
    floats.push_back(
        {{"vcpu", i}, {"host_cpus", "0-8191"}, {"group", 0}, {"core", 0}, {"thread", 0}});
  EXPECT_FALSE(
      placement_from_stored({{"vcpus", floats}, {"pinned", false}, {"emulator_cpus", ""}}).ok());
}

TEST(SvgData, ConfigLabels) {
  EXPECT_EQ(config_label(R"({"expose":"flat","threads":2})"), "expose=flat threads=2");
  EXPECT_EQ(config_label("{}"), "(default)");
  EXPECT_EQ(config_label(""), "(default)");
  EXPECT_EQ(config_label("[1"), "(unreadable configuration)");
}

// The main job's real store (scripts/main-job.sh, dumped to SQL), with the plans a schema-5 run
// stores: six configurations, each with its stored placement and the topology its guest
// reported.
class MainJobStore : public ::testing::Test {
 protected:
  void SetUp() override { build(""); }
  // The store, with `tamper` (SQL) run on it after the dump.
  void build(const std::string& tamper) {
    char tmpl[] = "/tmp/topolab-svg-XXXXXX";
    dir_ = mkdtemp(tmpl);
    const std::string fixture =
        std::string(TOPOLAB_TESTS_DIR) + "/orchestrator/results/report/data/main_job_store.sql";
    ASSERT_EQ(testing::build_store(dir_ + "/plans.db", fixture), "");
    std::string why;
    const std::string plans = testing::stored_plans_sql(dir_ + "/plans.db", &why);
    ASSERT_FALSE(plans.empty()) << why;
    ASSERT_EQ(testing::build_store(dir_ + "/s.db", fixture, plans + tamper), "");
    auto store = store::ResultStore::open_read_only(dir_ + "/s.db");
    ASSERT_TRUE(store.ok()) << store.error().message;
    auto data = load_report(**store, "");
    ASSERT_TRUE(data.ok()) << data.error().message;
    data_ = std::move(*data);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
  ReportData data_;
};

TEST_F(MainJobStore, EveryConfigurationHasItsPlacementAndSeenTopology) {
  const auto& p = data_.pictures;
  ASSERT_TRUE(p.host.has_value()) << p.host_note;
  EXPECT_EQ(p.host->cpus.size(), 2u);
  ASSERT_EQ(p.configs.size(), 6u);
  EXPECT_EQ(p.configs[0].label, "expose=flat policy=compact");
  for (const auto& c : p.configs) {
    ASSERT_TRUE(c.plan.has_value()) << c.label << ": " << c.plan_note;
    ASSERT_TRUE(c.seen.has_value()) << c.label << ": " << c.seen_note;
    EXPECT_FALSE(c.mismatch);
  }
  // compact: vCPU i on host CPU i; unpinned: no pinning.
  ASSERT_EQ(p.configs[0].plan->vcpus.size(), 2u);
  EXPECT_TRUE(p.configs[0].plan->pinned);
  EXPECT_EQ(p.configs[0].plan->vcpus[1].host_cpus, CpuList{1});
  EXPECT_FALSE(p.configs[1].plan->pinned);
  // What the guests saw: flat 1 package, sockets 2, dies 1 package of 2 dies.
  EXPECT_EQ(p.configs[0].seen->packages.size(), 1u);
  EXPECT_EQ(p.configs[2].seen->packages.size(), 2u);
  EXPECT_EQ(p.configs[4].seen->dies.size(), 2u);
}

TEST_F(MainJobStore, HtmlHasOnePlacementPerConfigurationAndOneSeenPerTopology) {
  std::ostringstream out;
  auto r = make_reporter("html", out);
  ASSERT_TRUE(r.ok());
  (*r)->report(data_);
  EXPECT_EQ(count(out.str(), "class=\"pic-placement\""), 6u);
  EXPECT_EQ(count(out.str(), "class=\"pic-seen\""), 3u) << "flat, sockets, dies";
  EXPECT_EQ(count(out.str(), "class=\"pic-scaling\""), 0u) << "no numeric factor";
  EXPECT_EQ(out.str().find("<script"), std::string::npos);
}

// The pictures draw the placement the boot stored, not a new plan: a store whose host topology
// was rewritten afterwards (a resume on a changed host rewrites experiments.host_topology) still
// shows each vCPU where its guest ran, although planning again on that topology would not.
TEST_F(MainJobStore, ARewrittenHostTopologyStillDrawsTheStoredPlacement) {
  SyntheticHostSpec spec;  // 16 CPUs, SMT siblings adjacent: compact puts vCPU 1 on CPU 2
  spec.packages = 2;
  spec.l3_per_package = 2;
  spec.cores_per_l3 = 2;
  spec.threads = 2;
  spec.adjacent_siblings = true;
  const auto bigger = make_synthetic_host(spec);
  auto replanned = stored_plan(bigger, [] {
    Layout l = layout(2, 1, 1, PlacementPolicy::kCompact);
    l.memory_mib = 512;
    return l;
  }());
  ASSERT_TRUE(replanned.has_value());
  ASSERT_NE(replanned->vcpus[1].host_cpus, CpuList{1}) << "planning again would move vCPU 1";
  build("UPDATE experiments SET host_topology = '" + json_line(topology_to_json(bigger)) + "';");
  ASSERT_TRUE(data_.pictures.host.has_value()) << data_.pictures.host_note;
  EXPECT_EQ(data_.pictures.host->cpus.size(), 16u) << "drawn on the rewritten topology";
  const auto& first = data_.pictures.configs.at(0);
  ASSERT_TRUE(first.plan.has_value()) << first.plan_note;
  EXPECT_EQ(first.plan->vcpus.at(0).host_cpus, CpuList{0});
  EXPECT_EQ(first.plan->vcpus.at(1).host_cpus, CpuList{1}) << "where the guest ran";
  std::ostringstream out;
  (*make_reporter("html", out))->report(data_);
  EXPECT_NE(out.str().find("host CPU 1; vCPU 1 (group 1"), std::string::npos);
}

// A store tampered where the pictures read: markup in a configuration key, a stored plan field
// of the wrong type, a guest-seen topology that is not one, a host topology naming CPU 9999999.
// Each picture that cannot be drawn says why; nothing from the store reaches the page as markup.
TEST_F(MainJobStore, HostileStoreGivesNotesNotMarkup) {
  build(R"SQL(
    UPDATE cells SET config_key = '{"expose":"<script>alert(1)</script>"}' WHERE id = 1;
    UPDATE boots SET plan = json_set(plan, '$.vcpus[0].host_cpus', 'x') WHERE id = 2;
    UPDATE boots SET seen_topology = '{"cpus":"<img src=x onerror=alert(1)>"}' WHERE id = 3;
  )SQL");
  std::ostringstream out;
  auto r = make_reporter("html", out);
  ASSERT_TRUE(r.ok());
  (*r)->report(data_);
  const std::string html = out.str();
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("expose=&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("stored placement: vcpus[0]: host_cpus"), std::string::npos);
  EXPECT_NE(html.find("topology JSON: cpus"), std::string::npos) << "the seen note";
  build(R"SQL(UPDATE experiments SET host_topology = '{"cpus":[{"id":9999999}]}';)SQL");
  EXPECT_FALSE(data_.pictures.host.has_value());
  EXPECT_NE(data_.pictures.host_note.find("cpus[0].id"), std::string::npos)
      << data_.pictures.host_note;
  ASSERT_EQ(data_.pictures.configs.size(), 6u);
  EXPECT_EQ(data_.pictures.configs[0].plan_note, "no readable host topology in the store");
}

}  // namespace
}  // namespace topolab::report::svg
