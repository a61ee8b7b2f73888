// Issue 25 item 4: `topolab run --allow-host-settings` on backend "host" changes this machine's
// own os.timer_migration (kernel.timer_migration: harmless, it only lets the kernel move timers
// off idle CPUs) through the agent's settings code, and every exit path puts the value back:
// a normal end, SIGINT and SIGTERM to the real `topolab run` while its benchmark runs (the
// signal watcher stops the agent, which restores before the runner ends), and a SIGKILLed
// runner (the agent dies with it by SIGTERM and restores). The value is read from /proc
// before, during and after; the teardown writes the original back in case of a failure.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "orchestrator/results/store/result_store.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const fs::path kTimerMigration = "/proc/sys/kernel/timer_migration";

int read_value() {
  std::ifstream in(kTimerMigration);
  int v = -1;
  in >> v;
  return in ? v : -1;
}

void write_value(int v) { std::ofstream(kTimerMigration) << v << "\n"; }

// Polls until the value is `want` or `bound` passes.
bool value_becomes(int want, std::chrono::milliseconds bound) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  while (read_value() != want) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

class HostSettingsSignal : public ::testing::Test {
 protected:
  void SetUp() override {
    original_ = read_value();
    ASSERT_TRUE(original_ == 0 || original_ == 1)
        << kTimerMigration << " reads " << original_ << " (the test needs the file, as root)";
    target_ = 1 - original_;
  }
  void TearDown() override {
    EXPECT_EQ(read_value(), original_) << "the run left kernel.timer_migration changed";
    write_value(original_);
  }
  // One benchmark of n sqrt steps per repetition: a long one is running when the signal comes.
  fs::path write_design(long long n, int repetitions) {
    auto path = dir_.path() / "host-settings.toml";
    std::ofstream(path) << "name = \"host-settings-signal\"\nbackend = \"host\"\n"
                        << "repetitions = " << repetitions << "\ntimeout_s = 600\n"
                        << "[os]\ntimer_migration = " << target_ << "\n"
                        << "[[benchmark]]\nname = \"sqrt\"\n"
                        << "params = { threads = 1, n = " << n << ", repeats = 1 }\n";
    return path;
  }
  std::vector<std::string> run_args(const fs::path& design) {
    return {"run",
            design.string(),
            "--store",
            (dir_.path() / "r.db").string(),
            "--allow-host-settings",
            "--agent",
            TOPOLAB_AGENT};
  }
  // Starts a long run, waits until the agent has changed the host's value, sends `sig`.
  CliRun interrupt_running(int sig) {
    CliChild child(run_args(write_design(4'000'000'000, 3)));
    EXPECT_TRUE(value_becomes(target_, 120s)) << "the run never applied os.timer_migration";
    EXPECT_EQ(read_value(), target_) << "during the run";
    ::kill(child.pid(), sig);
    return child.wait(120s);
  }
  TempDir dir_{"topolab-host-settings"};
  int original_ = -1, target_ = -1;
};

TEST_F(HostSettingsSignal, ANormalRunAppliesStoresAndRestores) {
  auto r = run_cli(run_args(write_design(1'000'000, 2)), 300s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_value(), original_);
  auto store = store::ResultStore::open_read_only(dir_.path() / "r.db");
  ASSERT_TRUE(store.ok()) << store.error().message;
  auto cells = (*store)->cells((*(*store)->experiments())[0].id);
  ASSERT_EQ(cells->size(), 1u);
  auto runs = (*store)->runs((*cells)[0].id);
  ASSERT_EQ(runs->size(), 2u);
  for (const auto& run : *runs)
    EXPECT_EQ(run.result["environment"]["conditions"]["os.timer_migration"],
              (nlohmann::json{{"requested", target_}, {"seen", target_}}))
        << run.result["environment"].dump();
}

TEST_F(HostSettingsSignal, SigintDuringABenchmarkRestoresBeforeTheRunEnds) {
  CliRun r = interrupt_running(SIGINT);
  EXPECT_EQ(r.term_signal, SIGINT) << "exit " << r.exit_code << ": " << r.err;
  // Read at once: the watcher waited for the agent's restore before ending the runner.
  EXPECT_EQ(read_value(), original_);
  EXPECT_NE(r.err.find("interrupted by SIGINT: removed 0 domain(s), stopped 1 of 1 agent(s) "
                       "holding host settings"),
            std::string::npos)
      << r.err;
}

TEST_F(HostSettingsSignal, SigtermDuringABenchmarkRestoresBeforeTheRunEnds) {
  CliRun r = interrupt_running(SIGTERM);
  EXPECT_EQ(r.term_signal, SIGTERM) << "exit " << r.exit_code << ": " << r.err;
  EXPECT_EQ(read_value(), original_);
  EXPECT_NE(r.err.find("interrupted by SIGTERM: removed 0 domain(s), stopped 1 of 1 agent(s)"),
            std::string::npos)
      << r.err;
}

// No cleanup of its own can run in a SIGKILLed runner: the agent, dying with it by SIGTERM,
// restores by itself (shortly after, hence the poll).
TEST_F(HostSettingsSignal, ASigkilledRunnerStillGetsTheValueRestored) {
  CliRun r = interrupt_running(SIGKILL);
  EXPECT_EQ(r.term_signal, SIGKILL);
  EXPECT_TRUE(value_becomes(original_, 15s)) << "still " << read_value() << " 15 s after SIGKILL";
}

}  // namespace
}  // namespace topolab::testing
