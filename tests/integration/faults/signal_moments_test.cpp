// SIGINT / SIGTERM at the unlucky moments of `topolab boot` and `topolab run` (the committed,
// bounded part of bench/signal_sweep.py, which sweeps delays over the whole command). Each
// moment is found from the command's own output, never from a delay, so a loaded machine only
// makes the test slower. Asserted every time: the process ends by the signal after the
// watcher's "interrupted by ...: removed N domain(s)", prints no error of its own (the
// interrupt's cleanup is not a failure), leaves no domain; for a run the store passes
// quick_check, holds no failure the interrupt caused, and the rerun completes every cell.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "tests/support/child_process.hpp"
#include "tests/support/store_view.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab::testing {
namespace {

using namespace std::chrono_literals;

// The two-groups layout under this test's own name (its domains are found by it).
std::filesystem::path write_layout(const std::filesystem::path& dir, const std::string& name) {
  std::ifstream in(std::string(TOPOLAB_SOURCE_DIR) + "/examples/layouts/two-groups.toml");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  text =
      std::regex_replace(text, std::regex("(^|\n)name = \"[^\"]*\""), "$1name = \"" + name + "\"");
  auto path = dir / "layout.toml";
  std::ofstream(path) << text;
  return path;
}

// Lines the command printed as its own error or warning ("topolab boot: ...", "topolab:
// warning: ..."): after an interrupt there must be none but the watcher's.
std::string own_errors(const std::string& err) {
  std::string found;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_search(line, std::regex("^topolab \\w+: |^topolab: (error|warning)")))
      found += line + "\n";
  }
  return found;
}

void expect_ended_by(const CliRun& r, int sig, const char* name) {
  EXPECT_EQ(r.term_signal, sig) << "exit " << r.exit_code << ": " << r.err;
  EXPECT_NE(r.err.find(std::string("interrupted by ") + name + ": removed "), std::string::npos)
      << r.err;
  EXPECT_EQ(own_errors(r.err), "") << r.err;
}

class SignalMoments : public ::testing::Test {
 protected:
  void SetUp() override {
    marker_ = "sigm" + std::to_string(getpid()) + "x" + std::to_string(++count_);
    layout_ = write_layout(dir_.path(), marker_);
  }
  void TearDown() override {
    EXPECT_EQ(topolab_domains_with(marker_), std::vector<std::string>{});
    ChildOptions path;
    path.search_path = true;
    for (const auto& d : topolab_domains_with(marker_)) {
      run_process({"virsh", "-c", "qemu:///system", "destroy", d}, path);
      run_process({"virsh", "-c", "qemu:///system", "undefine", d}, path);
    }
  }
  static inline int count_ = 0;
  TempDir dir_{"topolab-signal-moments"};
  std::string marker_;
  std::filesystem::path layout_;
};

// The CI's case, as a class: a signal while virDomainCreate runs (the watcher's destroy fails
// the create) ends by the signal, not by the create's libvirt error (exit 1).
TEST_F(SignalMoments, BootSigtermWhileTheDomainIsCreated) {
  CliChild child({"boot", layout_.string(), "--accel", "tcg", "--run-id", marker_,
                  "--hello-timeout", "300000", "-v"});
  ASSERT_TRUE(child.wait_for_output("virDomainDefineXML(", 180s)) << child.err();
  kill(child.pid(), SIGTERM);
  auto r = child.wait(120s);
  expect_ended_by(r, SIGTERM, "SIGTERM");
}

// Long enough a benchmark (seconds under TCG) to be in flight when the signal comes.
void write_experiment(const std::filesystem::path& dir, const std::string& name) {
  std::ofstream(dir / "exp.toml")
      << "name = \"" << name
      << "\"\nlayout = \"layout.toml\"\nrepetitions = 1\nseed = 1\n"
         "timeout_s = 300\n[factors]\nexpose = [\"flat\", \"sockets\"]\n"
         "[[benchmark]]\nname = \"sqrt\"\n"
         "params = { threads = 2, n = 5000000, repeats = 1 }\n";
}

// quick_check of the store, through SQLite itself.
std::string quick_check(const std::filesystem::path& db) {
  sqlite3* h = nullptr;
  std::string result = "cannot open";
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, "PRAGMA quick_check", -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      result = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return result;
}

class RunSignalMoments : public SignalMoments {
 protected:
  std::vector<std::string> run_args() const {
    return {"run",     (dir_.path() / "exp.toml").string(), "--accel", "tcg",
            "--store", (dir_.path() / "s.db").string()};
  }
  // After the interrupted run: a consistent store, nothing stored that the interrupt caused,
  // and a rerun that completes both cells.
  void expect_store_then_rerun_completes() {
    const auto db = dir_.path() / "s.db";
    EXPECT_EQ(quick_check(db), "ok");
    const auto before = read_store(db);
    EXPECT_EQ(before.cells_with_status("failed"), 0);
    EXPECT_EQ(before.failure_count(), 0) << "a failure the interrupt's cleanup caused was stored";
    auto rerun = run_cli(run_args(), 600s);
    ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
    EXPECT_EQ(read_store(db).cells_with_status("done"), 2) << rerun.err;
  }
  void SetUp() override {
    SignalMoments::SetUp();
    write_experiment(dir_.path(), marker_);
  }
};

// The signal while the first benchmark runs: the watcher's destroy closes the agent channel at
// once; that "agent closed the connection" is not the cell's failure (it used to be stored,
// printed as FAILED, and the run went on to refused defines).
TEST_F(RunSignalMoments, SigintWhileABenchmarkRunsStoresNothingItCaused) {
  CliChild child(run_args());
  ASSERT_TRUE(child.wait_for_output("ready in", 300s)) << child.err();
  kill(child.pid(), SIGINT);
  auto r = child.wait(120s);
  expect_ended_by(r, SIGINT, "SIGINT");
  EXPECT_EQ(r.err.find("FAILED"), std::string::npos) << r.err;
  expect_store_then_rerun_completes();
}

// The signal right after the first cell's commit, while the second configuration boots.
TEST_F(RunSignalMoments, SigtermBetweenCellsKeepsTheFirst) {
  CliChild child(run_args());
  ASSERT_TRUE(child.wait_for_output("boot expose=sockets", 600s)) << child.err();
  kill(child.pid(), SIGTERM);
  auto r = child.wait(120s);
  expect_ended_by(r, SIGTERM, "SIGTERM");
  EXPECT_EQ(read_store(dir_.path() / "s.db").cells_with_status("done"), 1);
  expect_store_then_rerun_completes();
}

}  // namespace
}  // namespace topolab::testing
