// The interrupt gate (common/interrupt_gate.hpp): no signal noted, nothing is held; once one is,
// every thread but a NeverHeld one (the watcher) is held until the process ends by the signal.
// Noting a signal cannot be undone, so those cases are death tests.
#include "common/interrupt_gate.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace topolab::interrupt {
namespace {

TEST(InterruptGate, NothingNotedHoldsNothing) {
  const auto t0 = std::chrono::steady_clock::now();
  hold_if_interrupted();
  EXPECT_EQ(pending_signal(), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
}

// The watcher's part: after its cleanup it ends the process by the signal.
void end_by_soon(int sig) {
  std::thread([sig] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    signal(sig, SIG_DFL);
    kill(getpid(), sig);
  }).detach();
}

[[noreturn]] void note_then_exit() {
  note_signal(SIGTERM);
  note_signal(SIGINT);  // the first signal wins
  {
    NeverHeld cleaner;
    hold_if_interrupted();
    std::fputs("the cleaner passes\n", stderr);
  }
  end_by_soon(pending_signal());
  hold_if_interrupted();  // any other thread: held until the process ends
  std::fputs("the gate let an exit through\n", stderr);
  _exit(0);
}

TEST(InterruptGateDeathTest, OnlyTheCleanerPassesAndTheProcessEndsByTheFirstSignal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(note_then_exit(), ::testing::KilledBySignal(SIGTERM), "^the cleaner passes\n$");
}

}  // namespace
}  // namespace topolab::interrupt
