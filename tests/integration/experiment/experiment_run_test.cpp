// A small real experiment under TCG, driven through the `topolab` CLI as a child process:
// 2 exposures x 1 benchmark x 3 repetitions -> exactly 2 boots; a rerun does nothing; a run
// killed with SIGKILL mid-experiment resumes with only the missing runs and leaves no domain;
// a c2c-latency run under `expose = "dies"` is classed in both views (issue 26).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "common/owned_fd.hpp"
#include "common/process.hpp"
#include "tests/support/run_summary.hpp"
#include "tests/support/store_view.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using testing::configurations_booted;
using namespace std::chrono_literals;
using testing::read_store;

const std::string kExperiment =
    std::string(TOPOLAB_TESTS_DIR) + "/integration/experiment/data/two-exposures.toml";
// The studies' core-to-core table at its test size (issue 25: every Linux study runs here).
const std::string kC2cDies =
    std::string(TOPOLAB_SOURCE_DIR) + "/examples/studies/threadripper-1950x-c2c.toml";

struct Child {
  std::optional<Process> proc;
  fs::path out, err;
};

// Starts `topolab args...` with stdout/stderr to files (no shell).
Child spawn(const std::vector<std::string>& args, const fs::path& dir, const std::string& tag) {
  Child c{std::nullopt, dir / (tag + ".out"), dir / (tag + ".err")};
  ProcessSpec spec({TOPOLAB_CLI});
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  OwnedFd o(open(c.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  OwnedFd e(open(c.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  spec.out = Sink::to_fd(o.get());
  spec.err = Sink::to_fd(e.get());
  auto p = Process::spawn(spec);
  if (p) c.proc.emplace(std::move(*p));
  return c;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int wait_exit(Child& c) {
  return c.proc ? c.proc->wait(std::chrono::minutes(14)).status.shell_status() : -1;
}

// `virsh list --all --name`, filtered to this test's domains (topolab-two-groups-*): other
// helpers may run their own topolab- guests at the same time.
std::vector<std::string> topolab_domains() {
  auto virsh = run_process(
      ProcessSpec::in_path({"virsh", "-c", "qemu:///system", "list", "--all", "--name"}, 60s));
  std::vector<std::string> names;
  std::istringstream in(virsh ? virsh->out : "");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("topolab-two-groups-", 0) == 0) names.push_back(line);  // ours only
  return names;
}

class ExperimentRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/topolab-it-exp-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static fs::path dir_;
};
fs::path ExperimentRun::dir_;

nlohmann::json run_json(const std::vector<std::string>& args, const fs::path& dir,
                        const std::string& tag, int* exit_code) {
  Child c = spawn(args, dir, tag);
  *exit_code = wait_exit(c);
  auto j = nlohmann::json::parse(slurp(c.out), nullptr, false);
  if (j.is_discarded()) ADD_FAILURE() << "no JSON from run; stderr:\n" << slurp(c.err);
  return j;
}

TEST_F(ExperimentRun, TwoBootsThenResumeDoesNothing) {
  fs::path db = dir_ / "full.db";
  int rc = 0;
  auto first = run_json({"run", kExperiment, "--store", db.string(), "--accel", "tcg", "--json"},
                        dir_, "first", &rc);
  ASSERT_EQ(rc, 0) << slurp(dir_ / "first.err");
  EXPECT_EQ(configurations_booted(first), 2) << first.dump();
  EXPECT_EQ(first["runs_executed"], 6);
  EXPECT_EQ(first["cells_done"], 2);
  EXPECT_EQ(read_store(db).total_runs, 6);
  // Issue 28: each boot stored its plan, and with it the domain XML the guest was defined with,
  // written from the topology the plan announced (sockets: told 2 sockets; flat: 1).
  const auto boots = read_store(db).boots;
  ASSERT_EQ(boots.size(), 2u + first.value("hang_reboots", 0u)) << first.dump();
  auto has_attr = [](const std::string& xml, const std::string& name, const std::string& value) {
    return xml.find(name + "=\"" + value + "\"") != std::string::npos ||
           xml.find(name + "='" + value + "'") != std::string::npos;
  };
  for (const auto& b : boots) {
    const auto& plan = b.boot.plan;
    ASSERT_TRUE(plan.contains("domain_xml") && plan["domain_xml"].is_string()) << plan.dump();
    const auto xml = plan["domain_xml"].get<std::string>();
    EXPECT_EQ(plan["announced"]["accelerator"], "tcg") << plan.dump();
    EXPECT_TRUE(has_attr(xml, "<domain type", "qemu")) << xml;
    const bool sockets = b.boot.config_key.find("sockets") != std::string::npos;
    EXPECT_TRUE(has_attr(xml, "sockets", sockets ? "2" : "1")) << b.boot.config_key << "\n" << xml;
  }

  auto again = run_json({"run", kExperiment, "--store", db.string(), "--accel", "tcg", "--json"},
                        dir_, "again", &rc);
  ASSERT_EQ(rc, 0) << slurp(dir_ / "again.err");
  EXPECT_EQ(again["boots"], 0);
  EXPECT_EQ(again["runs_executed"], 0);
  EXPECT_EQ(again["runs_skipped"], 6);

  Child rep = spawn({"report", db.string(), "--format", "json"}, dir_, "report");
  ASSERT_EQ(wait_exit(rep), 0) << slurp(rep.err);
  auto report = nlohmann::json::parse(slurp(rep.out));
  ASSERT_EQ(report["rows"].size(), 2u);
  // Issue 18: where the numbers came from, recorded by the run (schema 3) and reported.
  EXPECT_EQ(report["context"]["accelerator"], "tcg") << report["context"].dump();
  EXPECT_EQ(report["context"]["emulated"], true);
  EXPECT_TRUE(report["context"]["warning"].is_string());
  EXPECT_EQ(report["context"]["connect_uri"], "qemu:///system");
  EXPECT_NE(report["context"]["guest_cpu_model"], "unknown");
  for (const auto& row : report["rows"]) {
    EXPECT_TRUE(row["cell_context"]["boot_retries"].is_number()) << row["cell_context"].dump();
    EXPECT_EQ(row["cell_context"]["intended_topology"], row["cell_context"]["seen_topology"]);
  }
  for (const auto& row : report["rows"]) {
    EXPECT_EQ(row["n"], 3);
    EXPECT_EQ(row["benchmark"], "sqrt");
    if (row["factors"]["expose"] == "flat") {
      EXPECT_TRUE(row["is_baseline"].get<bool>());
    } else {
      EXPECT_TRUE(row["penalty_pct"].is_number()) << row.dump();
      // 3 runs per side: below statistics::kMinRunsPerSide, so no interval, only the range.
      EXPECT_TRUE(row["penalty_ci"].is_null()) << row.dump();
      EXPECT_TRUE(row["penalty_range"].is_array()) << row.dump();
      EXPECT_EQ(row["verdict"], "too_few_runs") << row.dump();
      EXPECT_NE(row["noise"].dump().find("tcg"), std::string::npos) << row.dump();
    }
  }
  // Issue 26: every run carries the guest's telemetry; a CPU-bound sqrt on 2 threads and 2
  // vCPUs uses at most wall x threads of CPU (each run: 2 repeats, values[] = their median).
  // The "within 25 %" holds only on a quiet host: on the shared 2-CPU lab machine
  // (load 20) the guest accounted 62-72 % of wall x threads as user time, so the lower bound
  // here is loose (the CPU time is a real, nonzero share).
  for (const auto& row : report["rows"]) {
    const auto& t = row["telemetry"];
    ASSERT_TRUE(t.is_object()) << row.dump();
    EXPECT_EQ(t["runs"], 3) << t.dump();
    EXPECT_TRUE(t["migrations"].is_number()) << t.dump();
    EXPECT_TRUE(t["cpu_sys_s"].is_number()) << t.dump();
    ASSERT_TRUE(t["cpu_user_s"].is_number()) << t.dump();
    const double wall_cpu = row["median"].get<double>() * 2 /*repeats*/ * 2 /*threads*/;
    EXPECT_LE(t["cpu_user_s"].get<double>(), 1.25 * wall_cpu) << t.dump();
    EXPECT_GE(t["cpu_user_s"].get<double>(), 0.25 * wall_cpu) << t.dump();
  }
  Child table = spawn({"report", db.string()}, dir_, "table");
  ASSERT_EQ(wait_exit(table), 0);
  EXPECT_NE(slurp(table.out).find("scheduling telemetry"), std::string::npos) << slurp(table.out);
  EXPECT_NE(slurp(table.out).find("baseline"), std::string::npos) << slurp(table.out);
  EXPECT_TRUE(topolab_domains().empty());
}

// Issue 26 acceptance: the guest is told 2 dies, the host's 2 CPUs share one L3. The guest view
// classes the measured vCPU pair by what the guest saw (same_package: another die), the host view
// by the host CPUs behind the vCPUs (same_l3), in the JSON and the CSV.
TEST_F(ExperimentRun, C2cUnderDiesExposureIsSamePackageToTheGuestAndSameL3OnTheHost) {
  const fs::path db = dir_ / "c2c.db";
  int rc = 0;
  auto run = run_json({"run", kC2cDies, "--store", db.string(), "--accel", "tcg", "--json"}, dir_,
                      "c2c", &rc);
  ASSERT_EQ(rc, 0) << slurp(dir_ / "c2c.err");
  EXPECT_EQ(run["runs_executed"], 1) << run.dump();
  Child rep = spawn({"report", db.string(), "--format", "json"}, dir_, "c2c-report");
  ASSERT_EQ(wait_exit(rep), 0) << slurp(rep.err);
  auto report = nlohmann::json::parse(slurp(rep.out));
  ASSERT_NE(report["context"]["host_topology"].get<std::string>().find(", 1 L3,"),
            std::string::npos)
      << "this test needs a host whose CPUs share one L3: " << report["context"].dump();
  ASSERT_EQ(report["latency_matrices"].size(), 1u) << report.dump();
  const auto& classes = report["latency_matrices"][0]["c2c_classes"];
  ASSERT_EQ(classes["guest_view"].size(), 1u) << classes.dump();
  EXPECT_EQ(classes["guest_view"][0]["class"], "same_package") << classes.dump();
  EXPECT_EQ(classes["guest_view"][0]["pairs"], 1);
  ASSERT_EQ(classes["host_view"].size(), 1u) << classes.dump();
  EXPECT_EQ(classes["host_view"][0]["class"], "same_l3") << classes.dump();
  EXPECT_EQ(classes["host_view"][0]["pairs"], 1);
  EXPECT_GT(classes["host_view"][0]["median_ns"].get<double>(), 0);
  EXPECT_FALSE(classes.contains("host_view_missing")) << classes.dump();
  Child csv = spawn({"report", db.string(), "--format", "csv"}, dir_, "c2c-csv");
  ASSERT_EQ(wait_exit(csv), 0) << slurp(csv.err);
  const std::string text = slurp(csv.out);
  EXPECT_NE(text.find("\nexperiment,cell,view,class,pairs,min_ns,median_ns,max_ns,mean_ns,note\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nthreadripper-1950x-c2c,expose=dies,guest,same_package,1,"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nthreadripper-1950x-c2c,expose=dies,host,same_l3,1,"), std::string::npos)
      << text;
  EXPECT_TRUE(topolab_domains().empty());
}

TEST_F(ExperimentRun, KilledRunResumesWithOnlyTheMissingRuns) {
  fs::path db = dir_ / "killed.db";
  Child c = spawn({"run", kExperiment, "--store", db.string(), "--accel", "tcg", "--json"}, dir_,
                  "killed");
  ASSERT_TRUE(c.proc);
  // Wait for some (not all) results, then SIGKILL: no cleanup code runs in the runner.
  int stored = 0;
  for (int i = 0; i < 3000 && stored < 2; ++i) {
    std::this_thread::sleep_for(200ms);
    if (fs::exists(db)) stored = std::max(0, read_store(db).total_runs);
    if (c.proc->wait_for(0ms)) FAIL() << slurp(c.err);
  }
  ASSERT_GE(stored, 2);
  kill(c.proc->pid(), SIGKILL);
  c.proc->wait(60s);
  int before = read_store(db).total_runs;
  ASSERT_LT(before, 6) << "the run finished before it could be killed";

  int rc = 0;
  auto resumed = run_json({"run", kExperiment, "--store", db.string(), "--accel", "tcg", "--json"},
                          dir_, "resumed", &rc);
  ASSERT_EQ(rc, 0) << slurp(dir_ / "resumed.err");
  EXPECT_EQ(resumed["runs_skipped"], before);
  EXPECT_EQ(resumed["runs_executed"], 6 - before);
  EXPECT_EQ(read_store(db).total_runs, 6);
  EXPECT_TRUE(topolab_domains().empty()) << "leftover domains of the killed run were not cleaned";
}

}  // namespace
}  // namespace topolab
