// Fault injection against real libvirt + TCG guests, driven through `topolab run` as a child
// process (docs/reliability.md's fault table). Every case asserts: no completed result lost,
// no topolab-faults-* domain left, the affected cell failed with its reason (or the run ends by
// the signal), and the rest of the experiment continues or a rerun completes it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "orchestrator/results/store/result_store.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/run_summary.hpp"
#include "tests/support/store_view.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::CliChild;
using testing::CliRun;
using testing::configurations_booted;
using testing::read_store;
using testing::StoreView;

const fs::path kData = fs::path(TOPOLAB_TESTS_DIR) / "integration/faults/data";
const std::string kLongSqrt = (kData / "long-sqrt.toml").string();        // 2 configs x 2 reps
const std::string kAgentFaults = (kData / "agent-faults.toml").string();  // garbage, hang
const std::string kConfigureHang = (kData / "configure-hang.toml").string();
constexpr const char* kDomainPrefix = "topolab-faults-";

std::vector<std::string> our_domains() { return testing::topolab_domains_with(kDomainPrefix); }

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int count_lines_with(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos;
  return n;
}

nlohmann::json summary_of(const CliRun& r) {
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  if (j.is_discarded()) ADD_FAILURE() << "no JSON summary; stderr:\n" << r.err;
  return j;
}

// `topolab run FILE --store DB --accel tcg --json` (progress lines on stderr).
std::vector<std::string> run_args(const std::string& file, const fs::path& db) {
  return {"run", file, "--store", db.string(), "--accel", "tcg", "--json"};
}

// A run's first "ready in": a 2-vCPU TCG boot is 10-30 s, but a real TCG hang costs the
// watchdog's bound (33 s) and a second boot, and a loaded CI machine doubles both.
constexpr auto kUntilReady = 300s;

pid_t qemu_pid(const std::string& domain) {
  std::string text = slurp("/run/libvirt/qemu/" + domain + ".pid");
  return text.empty() ? -1 : static_cast<pid_t>(std::stol(text));
}

// The one running domain of this suite, waited for (a run boots one at a time).
std::string wait_for_our_domain() {
  for (int i = 0; i < 100; ++i) {
    auto d = our_domains();
    if (d.size() == 1) return d[0];
    std::this_thread::sleep_for(100ms);
  }
  return "";
}

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

bool libvirtd_answers() {
  return testing::run_process({"/usr/bin/virsh", "-c", "qemu:///system", "version"}, 30s)
             .exit_code == 0;
}

// Through scripts/libvirtd.sh: libvirtd runs under tini (QEMU reaped at once) and keeps a TCP
// listener another test fixture may have started; a bare `libvirtd -d` would drop both.
const std::string kLibvirtdScript = std::string(TOPOLAB_SOURCE_DIR) + "/scripts/libvirtd.sh";

void start_libvirtd() {
  testing::run_process({"/bin/bash", kLibvirtdScript, "start"}, 30s);
  for (int i = 0; i < 100 && !libvirtd_answers(); ++i) std::this_thread::sleep_for(100ms);
}

// SIGTERM to libvirtd, wait until it is gone, start it again (scripts/libvirtd.sh restart): what
// `systemctl restart libvirtd` does on a workstation. Running guests keep running; their clients'
// connections die.
bool restart_libvirtd() {
  if (!libvirtd_answers()) return false;
  auto r = testing::run_process({"/bin/bash", kLibvirtdScript, "restart"}, 60s);
  return r.exit_code == 0 && libvirtd_answers();
}

class Faults : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/topolab-it-faults-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  void SetUp() override {
    if (!libvirtd_answers()) start_libvirtd();
    ASSERT_TRUE(our_domains().empty()) << "a domain of an earlier case is left";
  }
  void TearDown() override {
    if (!libvirtd_answers()) start_libvirtd();  // whatever the case did, leave libvirtd up
    EXPECT_TRUE(our_domains().empty()) << "topolab-faults-* domain left behind";
  }
  static fs::path dir_;
};
fs::path Faults::dir_;

TEST_F(Faults, QemuKilledMidBenchmarkFailsOnlyThatCellAndRerunCompletesIt) {
  fs::path db = dir_ / "qemu-kill.db";
  CliChild run(run_args(kLongSqrt, db));
  ASSERT_TRUE(run.wait_for_output("ready in", kUntilReady)) << run.err();
  std::string domain = wait_for_our_domain();
  ASSERT_FALSE(domain.empty());

  // While it runs: the run folder is 0700 and the agent socket 0600 (only root talks to it).
  fs::path run_dir = fs::path("/var/lib/topolab/runs") / domain.substr(strlen(kDomainPrefix));
  EXPECT_EQ(mode_of(run_dir), 0700u) << run_dir;
  EXPECT_EQ(mode_of(run_dir / "agent.sock"), 0600u);
  EXPECT_EQ(mode_of(run_dir / "domain.xml"), 0600u);

  std::this_thread::sleep_for(1500ms);  // inside the first sqrt run (3-9 s here)
  pid_t qemu = qemu_pid(domain);
  ASSERT_GT(qemu, 1);
  ASSERT_EQ(kill(qemu, SIGKILL), 0);
  CliRun r = run.wait(10min);
  ASSERT_EQ(r.exit_code, 3) << "cells failed => exit 3\n" << r.err;  // not a crash
  auto summary = summary_of(r);
  EXPECT_EQ(configurations_booted(summary), 2) << summary.dump();
  EXPECT_EQ(summary["cells_failed"], 1);
  EXPECT_EQ(summary["cells_done"], 1);  // the other configuration went on
  // The other configuration's 2 runs, plus the killed cell's first run if the machine was
  // fast enough to finish it before the kill.
  const int killed_cell_runs = summary["runs_executed"].get<int>() - 2;
  EXPECT_TRUE(killed_cell_runs == 0 || killed_cell_runs == 1) << summary.dump();

  StoreView v = read_store(db);
  ASSERT_EQ(v.cells.size(), 2u);
  int failed = 0;
  for (const auto& [label, cell] : v.cells) {
    if (cell.status == "failed") {
      ++failed;
      EXPECT_EQ(v.runs[label], killed_cell_runs);
      EXPECT_NE(cell.error.find("sqrt #"), std::string::npos) << cell.error;
      EXPECT_NE(cell.error.find("closed"), std::string::npos) << "reason: " << cell.error;
      EXPECT_FALSE(v.failures[label].empty());
    } else {
      EXPECT_EQ(cell.status, "done");
      EXPECT_EQ(v.runs[label], 2);
    }
  }
  EXPECT_EQ(failed, 1);
  EXPECT_TRUE(our_domains().empty()) << "the killed guest's domain is still defined";

  CliChild again(run_args(kLongSqrt, db));
  CliRun r2 = again.wait(10min);
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  auto s2 = summary_of(r2);
  EXPECT_EQ(configurations_booted(s2), 1);  // only the failed configuration
  EXPECT_EQ(s2["runs_skipped"], 2 + killed_cell_runs);
  EXPECT_EQ(s2["runs_executed"], 2 - killed_cell_runs);
  EXPECT_EQ(read_store(db).total_runs, 4);
}

TEST_F(Faults, AgentGarbageIsSkippedAndAHangingAgentIsBootedOnceMore) {
  fs::path db = dir_ / "agent.db";
  CliChild run(run_args(kAgentFaults, db));
  CliRun r = run.wait(15min);
  ASSERT_EQ(r.exit_code, 3) << r.err;  // hang-after:1 failed
  auto summary = summary_of(r);
  StoreView v = read_store(db);
  const std::string garbage = "cmdline.topolab.fault=garbage";
  const std::string recovers = "cmdline.topolab.fault=hang-after:3";
  const std::string hangs = "cmdline.topolab.fault=hang-after:1";
  ASSERT_TRUE(v.cells.count(garbage) && v.cells.count(recovers) && v.cells.count(hangs)) << r.err;
  // The garbage guest plants no hang, but a TCG guest on 2 host CPUs may still stop answering
  // for real (a CI run: its 2nd run waited out the 10 s bound). Then it gets the one reboot
  // like any guest (CI's retry log counts it as real), and its failures are the hang's.
  const int garbage_reboots = count_lines_with(r.err, "rebooting " + garbage);
  ASSERT_LE(garbage_reboots, 1) << r.err;
  const int garbage_failures = static_cast<int>(v.failures[garbage].size());
  EXPECT_EQ(garbage_failures > 0, garbage_reboots == 1) << r.err;
  for (const auto& f : v.failures[garbage])
    EXPECT_TRUE(f.find("timed out") != std::string::npos ||
                f.find("stopped answering") != std::string::npos)
        << "the garbage itself must never fail a run: " << f;
  // garbage 1; hang-after:3 2 (the second completes it); hang-after:1 2 (hangs in both).
  EXPECT_EQ(summary["boots"], 5 + garbage_reboots) << summary.dump();
  EXPECT_EQ(summary["hang_reboots"], 2 + garbage_reboots) << summary.dump();
  EXPECT_EQ(summary["runs_executed"], 6);  // 3 garbage + 2 before the hang + 1 after the reboot
  // hang-after:3: its 3rd run once; hang-after:1: its 3 runs in each boot (the first times out,
  // the others fail at once: the agent had stopped answering).
  EXPECT_EQ(summary["runs_failed"], 7 + garbage_failures) << summary.dump();
  EXPECT_EQ(summary["cells_done"], 2);
  EXPECT_EQ(summary["cells_failed"], 1);

  EXPECT_EQ(v.cells[garbage].status, "done");
  EXPECT_EQ(v.runs[garbage], 3);
  // The two runs answered before the hang are kept; the reboot ran only the missing one, and
  // the hung run stays in the store as a failure.
  EXPECT_EQ(v.cells[recovers].status, "done");
  EXPECT_EQ(v.runs[recovers], 3);
  ASSERT_EQ(v.failures[recovers].size(), 1u);
  EXPECT_NE(v.failures[recovers][0].find("timed out"), std::string::npos)
      << v.failures[recovers][0];
  EXPECT_EQ(v.cells[hangs].status, "failed");
  EXPECT_EQ(v.runs[hangs], 0);
  EXPECT_NE(v.cells[hangs].error.find("timed out"), std::string::npos) << v.cells[hangs].error;
  EXPECT_EQ(v.failures[hangs].size(), 6u);
  EXPECT_NE(r.err.find("the agent stopped answering"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rebooting"), std::string::npos) << r.err;

  // The garbage really crossed the channel: the host's transcript of that boot has it.
  bool garbage_seen = false;
  for (const auto& b : v.boots) {
    std::string run_id = b.boot.versions.value("run_id", "");
    if (run_id.empty()) continue;
    for (const auto& entry : fs::recursive_directory_iterator("/var/lib/topolab/runs/" + run_id))
      if (entry.path().filename() == "agent.log" &&
          slurp(entry.path()).find("garbage") != std::string::npos)
        garbage_seen = true;
  }
  EXPECT_TRUE(garbage_seen) << "no garbage line in any agent.log of this run";
}

// A guest that stops answering while a cell's settings are applied gets the same one reboot as
// one that stops in a run: the cell completes in the second boot, the hung configure stays a
// failure in the store.
TEST_F(Faults, AgentHangingInConfigureIsBootedOnceMore) {
  fs::path db = dir_ / "configure.db";
  CliChild run(run_args(kConfigureHang, db));
  CliRun r = run.wait(10min);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto summary = summary_of(r);
  EXPECT_EQ(summary["boots"], 2) << summary.dump();
  EXPECT_EQ(summary["hang_reboots"], 1) << summary.dump();
  EXPECT_EQ(summary["runs_executed"], 2) << summary.dump();
  EXPECT_EQ(summary["runs_failed"], 1) << summary.dump();
  EXPECT_EQ(summary["cells_done"], 1);

  StoreView v = read_store(db);
  ASSERT_EQ(v.cells.size(), 1u);
  const auto& [label, cell] = *v.cells.begin();
  EXPECT_EQ(cell.status, "done") << cell.error;
  EXPECT_EQ(v.runs[label], 2);
  ASSERT_EQ(v.failures[label].size(), 1u);
  EXPECT_NE(v.failures[label][0].find("configure"), std::string::npos) << v.failures[label][0];
  EXPECT_NE(v.failures[label][0].find("timed out"), std::string::npos) << v.failures[label][0];
  EXPECT_NE(r.err.find("rebooting"), std::string::npos) << r.err;
  EXPECT_TRUE(our_domains().empty());
}

TEST_F(Faults, LibvirtdRestartedDuringABenchmarkLosesNothing) {
  fs::path db = dir_ / "libvirtd.db";
  CliChild run(run_args(kLongSqrt, db));
  ASSERT_TRUE(run.wait_for_output("ready in", kUntilReady)) << run.err();
  std::this_thread::sleep_for(1500ms);
  ASSERT_TRUE(restart_libvirtd());
  CliRun r = run.wait(10min);
  // The benchmark's channel is QEMU's, not libvirtd's: the runs go on; cleanup reconnects.
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.term_signal, 0) << "killed by a signal (SIGPIPE on the dead libvirt socket?)";
  auto summary = summary_of(r);
  EXPECT_EQ(configurations_booted(summary), 2);
  EXPECT_EQ(summary["runs_executed"], 4);
  EXPECT_EQ(summary["cells_done"], 2);
  EXPECT_EQ(read_store(db).total_runs, 4);
}

// SIGINT or SIGTERM: the run ends by that signal, its domain is destroyed and undefined
// before it exits, and stored results stay. Returns the number of runs stored.
int interrupt(const fs::path& db, int sig, bool after_first_config) {
  CliChild run(run_args(kLongSqrt, db));
  EXPECT_TRUE(run.wait_for_output("ready in", kUntilReady)) << run.err();
  if (after_first_config) {
    // The other configuration's boot ("boot LABEL ready in"): a second boot of the first one
    // (booted again after its guest stopped answering) is not it.
    auto second_ready = [&] {
      const std::string err = run.err();
      // "[00:12] boot LABEL ready in 3.0 s": LABEL of each boot line, in order.
      std::vector<std::string> booted;
      for (std::size_t at = err.find(" ready in"); at != std::string::npos;
           at = err.find(" ready in", at + 1)) {
        const std::size_t line = err.rfind('\n', at) + 1;  // npos + 1 == 0: the first line
        const std::size_t boot = err.find("] boot ", line);
        if (boot == std::string::npos || boot > at) continue;
        booted.push_back(err.substr(boot + 7, at - boot - 7));
      }
      return std::any_of(booted.begin(), booted.end(),
                         [&](const std::string& b) { return b != booted.front(); });
    };
    for (int i = 0; i < 900 && !second_ready(); ++i) run.pump(200ms);
    EXPECT_TRUE(second_ready()) << run.err();
  }
  std::this_thread::sleep_for(1500ms);  // inside a ~3.5 s sqrt run
  int stored_before = read_store(db).total_runs;
  EXPECT_EQ(kill(run.pid(), sig), 0);
  CliRun r = run.wait(10min);  // the cleanup may wait out a restarting libvirtd
  EXPECT_EQ(r.term_signal, sig) << "exit " << r.exit_code << "\n" << r.err;
  EXPECT_NE(r.err.find("interrupted by"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("removed 1 domain(s)"), std::string::npos) << r.err;
  EXPECT_TRUE(our_domains().empty());
  int stored = read_store(db).total_runs;
  // >=: a run that completed between the read above and the signal is stored, not lost.
  EXPECT_GE(stored, stored_before) << "a completed result was lost";
  return stored;
}

// One store, three runs: SIGTERM during the first configuration, then the rerun gets SIGINT
// (Ctrl-C) during its second configuration (the first configuration's 2 runs stay), then the
// last rerun does only the missing runs.
TEST_F(Faults, SigtermThenSigintThenTheRerunCompletesWithOnlyTheMissingRuns) {
  fs::path db = dir_ / "signals.db";
  const int after_sigterm = interrupt(db, SIGTERM, /*after_first_config=*/false);
  EXPECT_LT(after_sigterm, 2) << "SIGTERM came after the first configuration";
  const int after_sigint = interrupt(db, SIGINT, /*after_first_config=*/true);
  EXPECT_TRUE(after_sigint == 2 || after_sigint == 3) << after_sigint;

  CliChild again(run_args(kLongSqrt, db));
  CliRun r = again.wait(10min);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto s = summary_of(r);
  EXPECT_EQ(configurations_booted(s), 1);
  EXPECT_EQ(s["runs_skipped"], after_sigint);
  EXPECT_EQ(s["runs_executed"], 4 - after_sigint);
  EXPECT_EQ(read_store(db).total_runs, 4);
}

}  // namespace
}  // namespace topolab
