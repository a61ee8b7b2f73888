// The boot watchdog's parts without a guest: the derived bound, the verbose command line, and
// the watch itself on a real file that grows, then stops.
#include "orchestrator/libvirt/virt/boot_watchdog.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <fstream>
#include <functional>
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

// Own disks: a quiet boot's whole kernel-to-hello time (up to 143 s at 2 vCPUs, 244 s at 16,
// measured) must fit with >= 2x margin; KVM is shorter but still generous.
TEST(BootWatchdogBound, OwnDiskBoundCoversAWholeQuietBootWithMargin) {
  EXPECT_EQ(own_disk_watchdog_bound(2, false), 330000ms);
  EXPECT_EQ(own_disk_watchdog_bound(16, false), 540000ms);
  EXPECT_GE(own_disk_watchdog_bound(2, false), 2 * 143000ms);
  EXPECT_GE(own_disk_watchdog_bound(16, false), 2 * 244000ms);
  EXPECT_EQ(own_disk_watchdog_bound(4, true), 128000ms);
  EXPECT_EQ(own_disk_watchdog_bound(0, false), own_disk_watchdog_bound(1, false));
  for (int n : {1, 2, 16, 64}) {
    EXPECT_GT(own_disk_watchdog_bound(n, false), derived_watchdog_bound(n, false));
    EXPECT_GT(own_disk_watchdog_bound(n, true), derived_watchdog_bound(n, true));
  }
}

TEST(ShowsKernelStart, KernelBannerOrPrintkTimestampOnly) {
  // The test disk's quiet Debian kernel: its only line before hello (it20020-acpi/console.log).
  EXPECT_TRUE(shows_kernel_start(
      "[    0.030794] RETBleed: WARNING: Spectre v2 mitigation leaves CPU vulnerable"));
  EXPECT_TRUE(shows_kernel_start("[12345.000001] x"));
  EXPECT_TRUE(shows_kernel_start("Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org)"));
  // Firmware and boot loaders: SeaBIOS, GRUB's menu, extlinux, OVMF.
  EXPECT_FALSE(
      shows_kernel_start("SeaBIOS (version 1.16.2-debian-1.16.2-1)\r\nBooting from Hard Disk..."));
  EXPECT_FALSE(shows_kernel_start("*Debian GNU/Linux, with Linux 6.1.0-57-amd64 [2 of 3]"));
  EXPECT_FALSE(shows_kernel_start("Loading Linux 6.1.0-57-amd64 ...\nLoading initial ramdisk ..."));
  EXPECT_FALSE(shows_kernel_start("BdsDxe: loading Boot0001 [0.5] [ 1.] [ .5] [1.5"));
  EXPECT_FALSE(shows_kernel_start(""));
}

TEST(ShowsLoginPrompt, AgettysPromptOnly) {
  // The test disk's console once booted (it20020-acpi/console.log).
  EXPECT_TRUE(
      shows_login_prompt("Debian GNU/Linux 12 topolab-guest ttyS0\r\n\r\ntopolab-guest login: "));
  EXPECT_FALSE(shows_login_prompt("[    1.0] systemd-logind: New seat seat0."));
  EXPECT_FALSE(shows_login_prompt("Starting systemd-logind.service - User Login Management..."));
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

// The reports of a stuck kernel: the first lines of the CI hang of 6 Dec (it27674-second, a
// 16-vCPU TCG boot, every vCPU in stop_machine_yield), RCU, workqueue and hung-task reports.
TEST(ShowsStallReport, TheKernelsLockupAndStallReportsOnly) {
  EXPECT_TRUE(shows_stall_report(
      "[   28.722149] watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [migration/0:16]"));
  EXPECT_TRUE(
      shows_stall_report("[   60.1] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"));
  EXPECT_TRUE(shows_stall_report("[   60.1] rcu: INFO: rcu_sched self-detected stall on CPU"));
  EXPECT_TRUE(shows_stall_report("[   60.1] BUG: workqueue lockup - pool cpus=1 node=0"));
  EXPECT_TRUE(shows_stall_report("INFO: task init:1 blocked for more than 120 seconds."));
  EXPECT_TRUE(shows_stall_report("NMI watchdog: Watchdog detected hard LOCKUP on cpu 3"));
  // A healthy verbose boot's lines that look close.
  EXPECT_FALSE(
      shows_stall_report("[    0.177652] rcu: Preemptible hierarchical RCU implementation."));
  EXPECT_FALSE(
      shows_stall_report("[    0.4] NMI watchdog: Perf NMI watchdog permanently disabled"));
  EXPECT_FALSE(shows_stall_report("[   15.463185] hrtimer: interrupt took 57091333 ns"));
  EXPECT_FALSE(
      shows_stall_report("[    0.2] smpboot: CPU 8 Converting physical 0 to logical die 1"));
  EXPECT_FALSE(shows_stall_report(""));
}

TEST(ConsoleStallLine, TheFirstReportWithoutItsTimestamp) {
  auto dir = temp_dir();
  std::ofstream(dir / "c.log")
      << "[    2.562720] clocksource: tsc: mask: 0xffffffffffffffff\r\n"
         "[   28.722149] watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [migration/0:16]\r\n"
         "[   28.722308] watchdog: BUG: soft lockup - CPU#4 stuck for 26s! [migration/4:35]\r\n";
  EXPECT_EQ(console_stall_line(dir / "c.log"),
            "watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [migration/0:16]");
  std::ofstream(dir / "bare.log") << "INFO: task init:1 blocked for more than 120 seconds.\n";
  EXPECT_EQ(console_stall_line(dir / "bare.log"),
            "INFO: task init:1 blocked for more than 120 seconds.");
  std::ofstream(dir / "ok.log") << "[    0.1] rcu: Hierarchical SRCU implementation.\n";
  EXPECT_EQ(console_stall_line(dir / "ok.log"), "");
  EXPECT_EQ(console_stall_line(dir / "missing.log"), "");
  fs::remove_all(dir);
}

// The bounds below are long against the writers' gaps (>= 10x) and the waits end on the event,
// not after a fixed sleep: this file also runs under TSan and ASan, and beside a debootstrap on a
// loaded 2-core CI machine, where a 150 ms sleep can take several hundred.
constexpr auto kLoadedHostSlack = 3000ms;

// Polls `done` every 20 ms until it holds or `limit` passed; whether it held.
template <class Pred>
bool wait_until(Pred done, std::chrono::milliseconds limit) {
  const auto end = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() >= end) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

long long ms_since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
}

// What a watch's on_hang saw: how often it ran, and when (ms after t0, taken at construction).
struct HangRecord {
  const Clock::time_point t0 = Clock::now();
  std::atomic<int> calls{0};
  std::atomic<long long> fired_at_ms{0};
  std::function<void()> on_hang() {
    return [this] {
      fired_at_ms = ms_since(t0);
      ++calls;
    };
  }
};

TEST(BootWatchdog, DoesNotFireWhileTheConsoleGrowsThenFiresWithinItsBound) {
  auto dir = temp_dir();
  HangRecord hang;
  const auto bound = 2000ms;
  BootWatchdog w(dir / "console.log", bound, hang.on_hang());
  std::ofstream out(dir / "console.log");
  long long first_write_ms = -1;
  long long silent_from = -1;     // read just before the last write: the watch sees it later
  for (int i = 0; i < 10; ++i) {  // 1.5 s of output, every gap far below the bound
    silent_from = ms_since(hang.t0);
    out << "line " << i << "\n" << std::flush;
    if (i == 0) first_write_ms = ms_since(hang.t0);
    std::this_thread::sleep_for(150ms);
  }
  EXPECT_EQ(hang.calls.load(), 0) << "fired while the console was still growing";
  ASSERT_TRUE(wait_until([&] { return hang.calls.load() > 0; }, bound + kLoadedHostSlack));
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(hang.calls.load(), 1) << "fires once";
  EXPECT_TRUE(w.fired());
  EXPECT_GE(hang.fired_at_ms.load(), silent_from + bound.count() - 110);  // not before the bound
  EXPECT_LE(hang.fired_at_ms.load(), silent_from + (bound + kLoadedHostSlack).count());
  EXPECT_EQ(w.console_bytes(), fs::file_size(dir / "console.log"));
  w.stop();
  EXPECT_GE(w.first_output_ms(), 0);
  EXPECT_LE(w.first_output_ms(), first_write_ms + kLoadedHostSlack.count());
  EXPECT_GE(w.max_silence_ms(), bound.count());  // the silence that fired it

  fs::remove_all(dir);
}

// A stuck kernel keeps its console growing with stall reports (every ~26 s per CPU under TCG):
// from the first report on, growth is no progress, so the watch fires one bound after it.
TEST(BootWatchdog, AStallReportIsNotProgressTheBoundRunsFromIt) {
  for (auto mode : {BootWatchdog::Mode::kInotify, BootWatchdog::Mode::kPoll}) {
    auto dir = temp_dir();
    HangRecord hang;
    const auto bound = 1500ms;
    BootWatchdog w(dir / "console.log", bound, hang.on_hang(), mode);
    std::ofstream out(dir / "console.log");
    for (int i = 0; i < 15; ++i) {  // 2.25 s of healthy output: longer than the bound
      out << "[    0." << i << "] line\r\n" << std::flush;
      std::this_thread::sleep_for(150ms);
    }
    EXPECT_EQ(hang.calls.load(), 0) << "fired while the console grew";
    const auto report_at = ms_since(hang.t0);
    out << "[   28.722149] watchdog: BUG: soft lockup - CPU#0 stuck for 26s!\r\n" << std::flush;
    // The stuck kernel's traces keep coming, every gap far below the bound.
    for (int i = 0; i < 60 && hang.calls.load() == 0; ++i) {
      out << "[   28.7] RIP: 0010:stop_machine_yield+0x2/0x10\r\n" << std::flush;
      std::this_thread::sleep_for(100ms);
    }
    ASSERT_EQ(hang.calls.load(), 1) << "a growing console after a stall report never fired";
    EXPECT_GE(hang.fired_at_ms.load(), report_at + bound.count() - 110) << "not before the bound";
    EXPECT_LE(hang.fired_at_ms.load(), report_at + (bound + kLoadedHostSlack).count());
    // The stored silence is the console's, not the time since the report: it kept growing.
    EXPECT_LT(w.max_silence_ms(), bound.count()) << "the time since the report, not a silence";
    EXPECT_GE(w.stall_report_ms(), report_at - kLoadedHostSlack.count());
    EXPECT_LE(w.stall_report_ms(), report_at + kLoadedHostSlack.count());
    fs::remove_all(dir);
  }
}

// A guest that recovers from a report says hello (stop) before the bound: no hang, the report's
// time is kept for its timings.
TEST(BootWatchdog, AStallReportBeforeHelloWithinTheBoundIsNoHang) {
  auto dir = temp_dir();
  std::atomic<int> calls{0};
  BootWatchdog w(dir / "console.log", 3000ms, [&] { ++calls; });
  std::ofstream(dir / "console.log") << "[   21.0] rcu: INFO: rcu_preempt detected stalls\n";
  ASSERT_TRUE(wait_until([&] { return w.stall_report_ms() >= 0; }, kLoadedHostSlack));
  w.stop();
  EXPECT_EQ(calls.load(), 0);
  EXPECT_FALSE(w.fired());
  EXPECT_GE(w.stall_report_ms(), 0);
  fs::remove_all(dir);
}

TEST(BootWatchdog, StopEndsTheWatchWithoutFiring) {
  auto dir = temp_dir();
  std::atomic<int> calls{0};
  {
    BootWatchdog w(dir / "never-written.log", 1000ms, [&] { ++calls; });
    std::this_thread::sleep_for(100ms);
    w.stop();
    std::this_thread::sleep_for(1400ms);  // past the bound: a watch still running would fire
    EXPECT_FALSE(w.fired());
    EXPECT_EQ(w.first_output_ms(), -1);
  }
  EXPECT_EQ(calls.load(), 0);
  fs::remove_all(dir);
}

TEST(BootWatchdog, InotifySleepsThroughSilenceAndIgnoresOtherFilesInTheFolder) {
  auto dir = temp_dir();
  std::atomic<int> calls{0};
  const auto bound = 2000ms;
  const auto t0 = Clock::now();
  BootWatchdog w(dir / "console.log", bound, [&] { ++calls; });
  ASSERT_TRUE(w.uses_inotify());
  std::this_thread::sleep_for(500ms);
  // Polling would have woken ~5 times by now; inotify sleeps until the bound or an event.
  EXPECT_LE(w.wakeups(), 1);
  std::ofstream other(dir / "agent.log");
  for (int i = 0; i < 8; ++i) {  // another file of the run folder grows: no progress
    other << "x\n" << std::flush;
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(wait_until([&] { return calls.load() > 0; }, bound + kLoadedHostSlack))
      << "the console stayed silent for " << ms_since(t0) << " ms";
  EXPECT_EQ(calls.load(), 1);
  EXPECT_GE(w.fired_after(), bound);
  EXPECT_LE(w.fired_after(), bound + kLoadedHostSlack);
  EXPECT_EQ(w.first_output_ms(), -1) << "another file's growth is not console output";
  fs::remove_all(dir);
}

TEST(BootWatchdog, InotifySeesAConsoleCreatedAfterTheWatchBegan) {
  auto dir = temp_dir();
  std::atomic<int> calls{0};
  const auto t0 = Clock::now();
  // The bound is never reached (stop() ends the watch), so it can be 10x the 1 s before the
  // first write: a loaded host's late sleep cannot make it fire.
  BootWatchdog w(dir / "console.log", 10000ms, [&] { ++calls; });
  ASSERT_TRUE(w.uses_inotify());
  std::this_thread::sleep_for(1000ms);
  std::ofstream out(dir / "console.log");
  long long first_write_ms = -1;
  for (int i = 0; i < 6; ++i) {  // 1.2 s in all, each gap far below the bound
    out << "line " << i << "\n" << std::flush;
    if (i == 0) first_write_ms = ms_since(t0);
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_EQ(calls.load(), 0);
  w.stop();
  // Seen from the first write on (the file did not exist when the watch began), not before.
  // first_output_ms counts from the watch thread's start, which a loaded host may delay: 1 s of
  // waiting before the write leaves 750 ms for that.
  EXPECT_GE(w.first_output_ms(), 250);
  EXPECT_LE(w.first_output_ms(), first_write_ms + kLoadedHostSlack.count());
  fs::remove_all(dir);
}

// The fallback: forced polling, and a folder inotify cannot watch (it does not exist).
TEST(BootWatchdog, PollingFallbackSeesGrowthAndFires) {
  auto dir = temp_dir();
  std::atomic<int> calls{0};
  const auto bound = 3000ms;
  BootWatchdog w(
      dir / "console.log", bound, [&] { ++calls; }, BootWatchdog::Mode::kPoll);
  EXPECT_FALSE(w.uses_inotify());
  std::ofstream out(dir / "console.log");
  for (int i = 0; i < 5; ++i) {
    out << "line " << i << "\n" << std::flush;
    std::this_thread::sleep_for(150ms);
  }
  EXPECT_EQ(calls.load(), 0);
  const long long woken_before_silence = w.wakeups();
  ASSERT_TRUE(wait_until([&] { return calls.load() > 0; }, bound + kLoadedHostSlack));
  EXPECT_EQ(calls.load(), 1);
  // The 3 s of silence before it fired, polled every 100 ms: ~30 wake-ups. Waiting on inotify
  // it would wake once there (at the bound), twice with a late event of the last write; 3 tells
  // polling apart and tolerates a loaded host stretching each 100 ms sleep to a second.
  EXPECT_GE(w.wakeups() - woken_before_silence, 3) << "polls every 100 ms";
  EXPECT_GE(w.first_output_ms(), 0);

  std::atomic<int> missing_calls{0};
  BootWatchdog m(dir / "no-such-folder" / "console.log", 300ms, [&] { ++missing_calls; });
  EXPECT_FALSE(m.uses_inotify()) << "inotify_add_watch on a missing folder fails";
  ASSERT_TRUE(wait_until([&] { return missing_calls.load() > 0; }, 300ms + kLoadedHostSlack));
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(missing_calls.load(), 1);
  fs::remove_all(dir);
}

// Own disks: firmware and boot-loader output, then silence far past the bound, never fire; the
// kernel's first line (written in two pieces, the marker cut between them) arms the bound.
TEST(BootWatchdog, ArmedAtKernelStartIgnoresSilenceBeforeTheKernel) {
  for (auto mode : {BootWatchdog::Mode::kInotify, BootWatchdog::Mode::kPoll}) {
    auto dir = temp_dir();
    HangRecord hang;
    const auto bound = 1000ms;
    BootWatchdog w(dir / "console.log", bound, hang.on_hang(), mode,
                   BootWatchdog::Arming::kAtKernelStart);
    std::ofstream out(dir / "console.log");
    out << "SeaBIOS (version 1.16.2)\r\nBooting from Hard Disk...\r\n" << std::flush;
    std::this_thread::sleep_for(bound * 3);  // a silent boot loader, 3x the bound
    EXPECT_EQ(hang.calls.load(), 0) << "fired before the kernel started";
    EXPECT_EQ(w.armed_ms(), -1);
    out << "[    0.0" << std::flush;
    std::this_thread::sleep_for(200ms);
    const auto kernel_at = ms_since(hang.t0);
    out << "30794] RETBleed: WARNING\r\n" << std::flush;
    ASSERT_TRUE(wait_until([&] { return hang.calls.load() > 0; }, bound + kLoadedHostSlack));
    EXPECT_EQ(hang.calls.load(), 1);
    // armed_ms counts from the watch thread's start, which a loaded host may delay past t0.
    EXPECT_GE(w.armed_ms(), kernel_at - kLoadedHostSlack.count());
    EXPECT_LE(w.armed_ms(), kernel_at + kLoadedHostSlack.count());
    EXPECT_GE(hang.fired_at_ms.load(), kernel_at + bound.count() - 110)
        << "bound counted from arming";
    EXPECT_LE(w.max_silence_ms(), bound.count() + kLoadedHostSlack.count())
        << "the boot loader's silence is not counted";
    fs::remove_all(dir);
  }
}

// Own disks: a login prompt after the kernel started means the OS booted: the watch ends
// unfired however long the console then stays silent (a missing hello is the agent's, for the
// hello timeout and its hint).
TEST(BootWatchdog, ALoginPromptAfterTheKernelEndsTheWatchUnfired) {
  auto dir = temp_dir();
  std::atomic<int> calls{0};
  // The prompt follows the kernel's line by one 20 ms poll of the test: 100x below the bound.
  const auto bound = 2000ms;
  BootWatchdog w(
      dir / "console.log", bound, [&] { ++calls; }, BootWatchdog::Mode::kInotify,
      BootWatchdog::Arming::kAtKernelStart);
  std::ofstream out(dir / "console.log");
  out << "[    0.030794] RETBleed: WARNING\r\n" << std::flush;
  ASSERT_TRUE(wait_until([&] { return w.armed_ms() >= 0; }, kLoadedHostSlack));
  out << "\r\nDebian GNU/Linux 12 topolab-guest ttyS0\r\n\r\ntopolab-guest login: " << std::flush;
  // A watch that fired first would never stand down: this wait fails then too.
  ASSERT_TRUE(wait_until([&] { return w.stood_down_ms() >= 0; }, kLoadedHostSlack))
      << "the prompt was not seen (fired: " << w.fired() << ")";
  std::this_thread::sleep_for(bound + 500ms);  // silent past the bound (armed before the prompt)
  EXPECT_EQ(calls.load(), 0);
  EXPECT_FALSE(w.fired());
  EXPECT_GE(w.stood_down_ms(), w.armed_ms());
  fs::remove_all(dir);
}

// A console that already shows the kernel when the watch begins is armed at once; and stop()
// before any kernel line leaves it unarmed and unfired.
TEST(BootWatchdog, ArmedAtOnceWhenTheKernelAlreadyPrintedAndNeverWithoutIt) {
  auto dir = temp_dir();
  std::ofstream(dir / "console.log") << "Linux version 6.1.0\n";
  std::atomic<int> calls{0};
  BootWatchdog w(
      dir / "console.log", 500ms, [&] { ++calls; }, BootWatchdog::Mode::kInotify,
      BootWatchdog::Arming::kAtKernelStart);
  ASSERT_TRUE(wait_until([&] { return calls.load() > 0; }, 500ms + kLoadedHostSlack));
  EXPECT_EQ(w.armed_ms(), 0);
  std::atomic<int> other_calls{0};
  {
    BootWatchdog q(
        dir / "quiet.log", 300ms, [&] { ++other_calls; }, BootWatchdog::Mode::kInotify,
        BootWatchdog::Arming::kAtKernelStart);
    std::this_thread::sleep_for(1200ms);
    q.stop();
    EXPECT_EQ(q.armed_ms(), -1);
    EXPECT_FALSE(q.fired());
  }
  EXPECT_EQ(other_calls.load(), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace topolab::virt
