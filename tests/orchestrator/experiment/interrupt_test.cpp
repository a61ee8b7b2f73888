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
#include <fstream>
#include <sstream>
#include <thread>

#include "common/interrupt_gate.hpp"
#include "orchestrator/experiment/host_backend.hpp"
#include "tests/orchestrator/experiment/store_run.hpp"

namespace topolab::experiment {
namespace {

// What the watcher does last (virt/domain_registry.cpp), after a cleanup that takes a while.
void end_by_sigint_soon() {
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::seconds(2));
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
    return make_error("run sqrt: agent closed the connection while waiting for 'result' reply");
  }
  Result<void> ping() override { return make_error("agent closed the connection"); }
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

// Two cells of one boot: a run that went on would fail the second one too.
const std::string kDesign = R"(name = "interrupted"
backend = "host"
repetitions = 1
seed = 3
[factors]
"param.sqrt.threads" = [1, 2]
[[benchmark]]
name = "sqrt"
params = { n = 20000, repeats = 1 }
)";

class RunInterrupt : public StoreRunTest {};

[[noreturn]] void run_until_interrupted(const Experiment& e, const std::filesystem::path& db,
                                        const std::filesystem::path& lines) {
  InterruptedHost host;
  auto store = store::ResultStore::open(db);
  std::FILE* out = std::fopen(lines.c_str(), "w");
  if (!store || !out) _exit(2);
  Progress progress(out, /*tty=*/false);
  auto s = run_experiment(e, host, **store, progress);
  _exit(s ? 0 : 1);  // the run went on after the interrupt
}

TEST_F(RunInterrupt, AFailureCausedByTheInterruptIsNeitherStoredNorPrinted) {
  const Experiment e = parse(kDesign);
  const auto lines = dir_ / "progress.txt";
  GTEST_FLAG_SET(death_test_style, "fast");  // the child writes this test's folder
  EXPECT_EXIT(run_until_interrupted(e, store_path(), lines), ::testing::KilledBySignal(SIGINT), "");

  std::stringstream printed;
  printed << std::ifstream(lines).rdbuf();
  EXPECT_EQ(printed.str().find("FAILED"), std::string::npos) << printed.str();
  auto s = store::ResultStore::open_read_only(store_path());
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto cells = (*s)->cells((*(*s)->experiments())[0].id);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 2u);
  for (const auto& c : *cells) {
    EXPECT_EQ(c.status, "running") << "the interrupted boot's cells stay running: " << c.error;
    EXPECT_TRUE((*s)->failures(c.id)->empty()) << "a failure the interrupt caused was stored";
  }
  s->reset();

  HostBackend real(TOPOLAB_AGENT);
  auto rerun = run_with(e, real);
  ASSERT_TRUE(rerun.ok()) << rerun.error().message;
  EXPECT_EQ(rerun->cells_done, 2);
  EXPECT_EQ(rerun->runs_executed, 2);
}

}  // namespace
}  // namespace topolab::experiment
