#include "common/interrupt_gate.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace topolab::interrupt {
namespace {

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);  // read and written in a signal handler
thread_local int t_never_held = 0;

constexpr std::chrono::seconds kHoldBound{90};

}  // namespace

void note_signal(int sig) noexcept {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
}

int pending_signal() noexcept { return g_signal.load(); }

NeverHeld::NeverHeld() noexcept { ++t_never_held; }
NeverHeld::~NeverHeld() { --t_never_held; }

void hold_if_interrupted() {
  const int sig = g_signal.load();
  if (sig == 0 || t_never_held > 0) return;
  const auto until = std::chrono::steady_clock::now() + kHoldBound;
  while (std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the watcher ends the process
  }
  end_by_signal(sig);
}

void end_by_signal(int sig) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  kill(getpid(), sig);
  for (;;) pause();  // the signal is delivered to some thread; this one only waits for the end
}

}  // namespace topolab::interrupt
