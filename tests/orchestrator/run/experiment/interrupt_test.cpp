// SIGINT/SIGTERM during `topolab run` (signal sweep, bench/signal_sweep.py): the signal watcher
// destroys the running guest, so the benchmark waiting on it fails at once ("agent closed the
// connection") while the watcher is still cleaning up. That failure is the interrupt's own
// doing: the run must not store it, nor mark the cell failed, nor print it as a FAILED run, nor
// go on to the next configuration (whose define the registry refuses) — it waits for the
// watcher to end the process, the cell stays 'running' and the rerun completes it.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "common/interrupt_gate.hpp"
#include "orchestrator/run/experiment/host_backend.hpp"
#include "tests/orchestrator/run/experiment/store_run.hpp"

namespace topolab::experiment {
namespace {

// The watcher's part, after a cleanup that takes a while: it ends the process by the signal.
// First it reports what the held run has recorded and printed by then, so that the test (the
// parent of this death-test child) sees it on stderr.
std::filesystem::path g_store, g_lines;

std::string recorded() {
  std::string out;
  auto s = store::ResultStore::open_read_only(g_store);
  if (!s) return "store unreadable: " + s.error().message;
  auto cells = (*s)->cells((*(*s)->experiments())[0].id);
  if (!cells) return "cells unreadable";
  for (const auto& c : *cells)
    out += "cell " + c.status + " with " + std::to_string((*s)->failures(c.id)->size()) +
           " failure(s)\n";
  std::stringstream printed;
  printed << std::ifstream(g_lines).rdbuf();
  out += printed.str().find("FAILED") == std::string::npos ? "no FAILED line\n" : printed.str();
  return out;
}

void end_by_sigint_soon() {
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    std::fputs(recorded().c_str(), stderr);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGINT, &dfl, nullptr);
    kill(getpid(), SIGINT);
  }).detach();
}

// A real target whose first benchmark meets the interrupt: the signal arrives (the handler
// notes it), the watcher's cleanup closes the guest, and the benchmark fails.
class InterruptedTarget : public Target {
 public:
  explicit InterruptedTarget(std::unique_ptr<Target> inner) : inner_(std::move(inner)) {}
  Result<protocol::BenchmarkResult> run(const std::string&, const nlohmann::json&,
                                        std::chrono::milliseconds) override {
    interrupt::note_signal(SIGINT);
    end_by_sigint_soon();
    return make_error(ErrorKind::failed,
                      "run sqrt: agent closed the connection while waiting for 'result' reply");
  }
  Result<void> ping() override {
    return make_error(ErrorKind::failed, "agent closed the connection");
  }
  Result<void> shutdown() override { return inner_->shutdown(); }
  nlohmann::json intended() const override { return inner_->intended(); }
  nlohmann::json seen() const override { return inner_->seen(); }
  nlohmann::json mismatches() const override { return inner_->mismatches(); }
  nlohmann::json timings() const override { return inner_->timings(); }
  nlohmann::json versions() const override { return inner_->versions(); }

 private:
  std::unique_ptr<Target> inner_;
};

class InterruptedHost : public Backend {
 public:
  std::string name() const override { return "host"; }
  Result<void> prepare(const Experiment& e, const std::vector<Configuration>& c) override {
    return inner_.prepare(e, c);
  }
  Result<std::unique_ptr<Target>> start(const Experiment& e, const Configuration& c) override {
    auto t = inner_.start(e, c);
    if (!t) return t.error();
    return std::unique_ptr<Target>(std::make_unique<InterruptedTarget>(std::move(*t)));
  }
  nlohmann::json host_topology() const override { return inner_.host_topology(); }
  nlohmann::json versions() const override { return inner_.versions(); }
  std::string host() const override { return "local"; }

 private:
  HostBackend inner_{TOPOLAB_AGENT};
};

// Two cells of one boot, one run each: a run that went on would fail the second one too.
const std::string kDesign = two_cell_design("interrupted", 1);

class RunInterrupt : public StoreRunTest {};

[[noreturn]] void run_until_interrupted(const Experiment& e, const std::filesystem::path& dir) {
  g_store = dir / "r.db";
  g_lines = dir / "progress.txt";
  InterruptedHost host;
  auto store = store::ResultStore::open(g_store);
  std::FILE* out = std::fopen(g_lines.c_str(), "w");
  if (!store || !out) _exit(2);
  Progress progress(out, /*tty=*/false);
  auto s = run_experiment(e, host, **store, progress);
  _exit(s ? 0 : 1);  // the run went on after the interrupt
}

// Both cells are of the one boot the interrupt met: they stay 'running' with no failure, and
// nothing was printed as FAILED (without the gate: both 'failed', 2 FAILED lines, exit 0).
TEST_F(RunInterrupt, AFailureCausedByTheInterruptIsNeitherStoredNorPrinted) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the child gets a folder of its own
  EXPECT_EXIT(run_until_interrupted(parse(kDesign), dir_), ::testing::KilledBySignal(SIGINT),
              "cell running with 0 failure\\(s\\)\ncell running with 0 failure\\(s\\)\n"
              "no FAILED line\n");
}

}  // namespace
}  // namespace topolab::experiment
