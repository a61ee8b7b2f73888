// The signal-watcher thread of DomainRegistry::install_signal_handlers runs concurrently with
// the thread that defines domains. A SIGTERM while the main thread keeps defining must clean up
// every registered domain and end the process with the signal. It kills the process, so it is a
// death test; under TSan (scripts/tsan.sh) it puts the watcher thread and the registry lock
// under the race detector.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "common/interrupt_gate.hpp"
#include "orchestrator/libvirt/virt/accelerator.hpp"
#include "orchestrator/libvirt/virt/domain_registry.hpp"
#include "tests/orchestrator/libvirt/virt/test_domain.hpp"

namespace topolab::virt {
namespace {

[[noreturn]] void define_until_interrupted() {
  auto conn = open_connection("test:///default");
  if (!conn) _exit(2);
  DomainRegistry::install_signal_handlers();
  std::vector<OwnedDomain> owned;
  for (int i = 0; i < 100000; ++i) {
    auto dom = OwnedDomain::define(conn->get(),
                                   testing::test_domain_xml("topolab-sig-" + std::to_string(i)));
    if (!dom) {
      // Refused: the watcher has cleaned up and is about to re-raise the signal.
      for (;;) pause();
    }
    owned.push_back(std::move(dom).value());
    if (i == 3) kill(getpid(), SIGTERM);
  }
  _exit(3);  // the watcher never stopped the defines
}

TEST(SignalWatcherDeathTest, SigtermWhileTheMainThreadDefinesCleansUpAndDies) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(define_until_interrupted(), ::testing::KilledBySignal(SIGTERM),
              "interrupted by SIGTERM: removed [0-9]+ domain\\(s\\)\n");
}

// Own guests' overlays (issue 14): a file recorded in the registry is deleted by the watcher
// before the process dies by the signal.
[[noreturn]] void record_file_then_sigterm(const std::string& path) {
  DomainRegistry::install_signal_handlers();
  std::ofstream(path) << "overlay";
  if (!DomainRegistry::instance().add_file(path)) _exit(2);
  kill(getpid(), SIGTERM);
  for (;;) pause();
}

TEST(SignalWatcherDeathTest, SigtermRemovesRecordedFiles) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = "/tmp/topolab-sigfile-" + std::to_string(getpid()) + ".qcow2";
  EXPECT_EXIT(record_file_then_sigterm(path), ::testing::KilledBySignal(SIGTERM),
              "interrupted by SIGTERM: removed 0 domain\\(s\\) and 1 overlay file\\(s\\)\n");
  EXPECT_FALSE(std::filesystem::exists(path));
  std::filesystem::remove(path);
}

// A command whose libvirt call fails *because* the watcher destroyed its domain mid-call (CI:
// virDomainCreate "process exited while connecting to monitor") reaches main's error path at
// once; it must still end by the signal after the watcher's report, not exit 1 before it.
[[noreturn]] void fail_right_after_the_signal() {
  auto conn = open_connection("test:///default");
  if (!conn) _exit(2);
  DomainRegistry::install_signal_handlers();
  auto dom = OwnedDomain::define(conn->get(), testing::test_domain_xml("topolab-sig-exit"));
  if (!dom) _exit(2);
  kill(getpid(), SIGINT);
  interrupt::hold_if_interrupted();  // what main() does before printing an error or returning
  _exit(1);
}

TEST(SignalWatcherDeathTest, AnExitRightAfterTheSignalWaitsForTheWatcher) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(fail_right_after_the_signal(), ::testing::KilledBySignal(SIGINT),
              "interrupted by SIGINT: removed 1 domain\\(s\\)\n");
}

// A closed terminal or ssh session sends SIGHUP: it used to end the process at once (its
// default action) and leave the domain running until the next run's stale cleanup.
[[noreturn]] void hang_up_with_a_domain() {
  // As a command started from a terminal: a suite run under nohup (SIGHUP ignored, inherited
  // through the death test's exec) would otherwise never see it, and this child paused forever.
  signal(SIGHUP, SIG_DFL);
  auto conn = open_connection("test:///default");
  if (!conn) _exit(2);
  DomainRegistry::install_signal_handlers();
  auto dom = OwnedDomain::define(conn->get(), testing::test_domain_xml("topolab-sig-hup"));
  if (!dom) _exit(2);
  kill(getpid(), SIGHUP);
  for (;;) pause();
}

TEST(SignalWatcherDeathTest, SighupCleansUpAndDiesBySighup) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(hang_up_with_a_domain(), ::testing::KilledBySignal(SIGHUP),
              "interrupted by SIGHUP: removed 1 domain\\(s\\)\n");
}

// Under nohup (SIGHUP ignored when topolab starts) a hang-up stays ignored.
[[noreturn]] void hang_up_under_nohup() {
  signal(SIGHUP, SIG_IGN);
  DomainRegistry::install_signal_handlers();
  kill(getpid(), SIGHUP);
  std::fputs("still running\n", stderr);
  _exit(0);
}

TEST(SignalWatcherDeathTest, AnIgnoredSighupStaysIgnored) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(hang_up_under_nohup(), ::testing::ExitedWithCode(0), "still running");
}

// A KVM probe whose guest the watcher destroyed ends in a "no" that is the interrupt's: it must
// not reach the accelerator cache (it would send every later run on this host to TCG). The
// signal is noted as the handler does; a stand-in for the watcher says whether the cache was
// written and ends the process a second later, as the real one does after its cleanup.
[[noreturn]] void cache_a_verdict_after_a_signal() {
  static const std::filesystem::path cache =
      "/tmp/topolab-sigcache-" + std::to_string(getpid()) + "/accel.json";
  interrupt::note_signal(SIGINT);
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    std::fputs(std::filesystem::exists(cache) ? "cached\n" : "not cached\n", stderr);
    std::filesystem::remove_all(cache.parent_path());
    signal(SIGINT, SIG_DFL);
    kill(getpid(), SIGINT);
  }).detach();
  (void)write_accel_cache(cache, "kernel=x", {false, "probe guest: domain is not running"});
  std::filesystem::remove_all(cache.parent_path());
  _exit(0);
}

TEST(SignalWatcherDeathTest, AProbeVerdictAfterASignalIsNotCached) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(cache_a_verdict_after_a_signal(), ::testing::KilledBySignal(SIGINT),
              "^not cached\n$");
}

TEST(SignalWatcher, NoSignalNoWait) {
  const auto t0 = std::chrono::steady_clock::now();
  interrupt::hold_if_interrupted();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

}  // namespace
}  // namespace topolab::virt
