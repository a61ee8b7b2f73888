// The boot watchdog's parts without a guest: the derived bound, the verbose command line, and
// the watch itself on a real file that grows, then stops.
#include "orchestrator/virt/boot_watchdog.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <fstream>
#include <thread>

namespace topolab::virt {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

fs::path temp_dir() {
  char tmpl[] = "/tmp/topolab-watchdog-XXXXXX";
  return fs::path(::mkdtemp(tmpl));
}

TEST(BootWatchdogBound, GrowsWithVcpusAndIsLongerUnderTcg) {
  EXPECT_EQ(derived_watchdog_bound(2, false), 33000ms);
  EXPECT_EQ(derived_watchdog_bound(16, false), 54000ms);
  EXPECT_EQ(derived_watchdog_bound(16, true), 14000ms);
  EXPECT_EQ(derived_watchdog_bound(0, false), derived_watchdog_bound(1, false));
}

TEST(VerboseCmdline, DropsOnlyTheQuietWord) {
  EXPECT_EQ(verbose_cmdline("console=ttyS0 quiet panic=-1"), "console=ttyS0 panic=-1");
  EXPECT_EQ(verbose_cmdline("quiet"), "");
  EXPECT_EQ(verbose_cmdline("console=ttyS0  quietly=1\tquiet"), "console=ttyS0 quietly=1");
}

TEST(ConsoleTail, LastLinesJoinedAndCut) {
  auto dir = temp_dir();
  std::ofstream(dir / "c.log") << "one\r\ntwo\nthree\n" << std::string(300, 'x') << "\n";
  EXPECT_EQ(console_tail(dir / "c.log", 2), "three / " + std::string(200, 'x') + "...");
  EXPECT_EQ(console_tail(dir / "missing.log", 2), "(console log empty)");
  // Guest bytes: a cut UTF-8 sequence or control bytes must not reach JSON or an error as is.
  std::ofstream(dir / "g.log") << "ok \xc3\x28 \x1b[0m end\n";
  EXPECT_EQ(console_tail(dir / "g.log", 1), "ok ?( ?[0m end");
  fs::remove_all(dir);
}

TEST(ConsolePanicLine, FindsTheKernelsPanicLineOnly) {
  auto dir = temp_dir();
  // The console of a real 16-vCPU TCG boot on a loaded host (run hang-20261130T155717-25).
  std::ofstream(dir / "p.log")
      << "[    0.028000] ..... failed :(.\r\n[    0.028000] Kernel panic - not syncing: IO-APIC + "
         "timer doesn't work!  Boot with apic=debug\x1b\n[    0.028000] CPU: 0 PID: 0\n";
  EXPECT_EQ(console_panic_line(dir / "p.log"),
            "Kernel panic - not syncing: IO-APIC + timer doesn't work!  Boot with apic=debug?");
  std::ofstream(dir / "ok.log") << "[    1.0] Run /init as init process\npanic=-1\n";
  EXPECT_EQ(console_panic_line(dir / "ok.log"), "");
  EXPECT_EQ(console_panic_line(dir / "missing.log"), "");
  std::ofstream(dir / "long.log") << "Kernel panic - not syncing: " << std::string(400, 'y');
  EXPECT_EQ(console_panic_line(dir / "long.log").size(), 203u) << "cut at 200 + '...'";
  fs::remove_all(dir);
}

TEST(BootWatchdog, DoesNotFireWhileTheConsoleGrowsThenFiresWithinItsBound) {
  auto dir = temp_dir();
  std::atomic<int> calls{0};
  std::atomic<long long> fired_at_ms{0};
  const auto t0 = Clock::now();
  BootWatchdog w(dir / "console.log", 600ms, [&] {
    fired_at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
    ++calls;
  });
  std::ofstream out(dir / "console.log");
  for (int i = 0; i < 10; ++i) {  // 1.5 s of output, every gap far below the bound
    out << "line " << i << "\n" << std::flush;
    std::this_thread::sleep_for(150ms);
  }
  EXPECT_EQ(calls.load(), 0) << "fired while the console was still growing";
  const auto silent_from =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count() - 150;
  std::this_thread::sleep_for(1500ms);
  EXPECT_EQ(calls.load(), 1);
  EXPECT_TRUE(w.fired());
  EXPECT_GE(fired_at_ms.load(), silent_from + 600 - 110);  // not before the bound
  EXPECT_LE(fired_at_ms.load(), silent_from + 600 + 700);  // 100 ms polls, a loaded host
  EXPECT_EQ(w.console_bytes(), fs::file_size(dir / "console.log"));
  w.stop();
  EXPECT_GE(w.first_output_ms(), 0);
  EXPECT_LE(w.first_output_ms(), 1000);  // first poll, on a loaded host
  EXPECT_GE(w.max_silence_ms(), 600);    // the silence that fired it

  fs::remove_all(dir);
}

TEST(BootWatchdog, StopEndsTheWatchWithoutFiring) {
  auto dir = temp_dir();
  std::atomic<int> calls{0};
  {
    BootWatchdog w(dir / "never-written.log", 300ms, [&] { ++calls; });
    std::this_thread::sleep_for(100ms);
    w.stop();
    std::this_thread::sleep_for(400ms);
    EXPECT_FALSE(w.fired());
    EXPECT_EQ(w.first_output_ms(), -1);
  }
  EXPECT_EQ(calls.load(), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace topolab::virt
