#pragma once
// The boot watchdog (issue 17): about one 16-vCPU TCG boot in ten hangs early in the guest
// kernel, and the console then stays silent. Waiting out the whole hello timeout (180 s) for
// that loses the cell; instead a guest whose serial console has not grown for a bound derived
// from its layout, and which has not said hello, is destroyed (by this watchdog) and booted
// again by GuestSession (BootRequest::boot_retries). See docs/lifecycle.md "Boot watchdog".
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

namespace topolab::virt {

// Boots of a hung guest retried by default (`--boot-retries`). Two: the hang hits ~6 in 100
// 16-vCPU TCG boots (docs/benchmarks.md "The sched_clock hang"), so with one retry about one
// cell in 300 still failed on two hangs in a row; a retry costs time only when a boot hangs.
inline constexpr int kDefaultBootRetries = 2;

// Longest console silence a healthy boot shows, with margin (docs/lifecycle.md):
//   TCG: 30 s + 1.5 s per vCPU;  KVM: 10 s + 0.25 s per vCPU.
// The base covers QEMU start to the first kernel line (decompression under TCG) and the agent's
// module loading before hello on a loaded 2-core host; the per-vCPU term covers SMP bring-up,
// printed as one line ("x86: Booting SMP configuration: ... #1 #2 ...") that reaches the console
// only when every CPU is up, with per-CPU delay-loop calibration slow under TCG.
std::chrono::milliseconds derived_watchdog_bound(int vcpus, bool kvm);

// Own-disk guests (`--disk`, `--domain`, `[guest] disk`; issue 14) get a watchdog by default
// too, but a different one, decided here only (docs/lifecycle.md "Boot watchdog"):
// - it arms only when the console shows a Linux kernel running (shows_kernel_start), so the
//   firmware and boot loader, silent for as long as they like, and a guest that prints nothing
//   on its serial console (Windows, a kernel on tty0 only) are never timed: those keep the
//   hello timeout alone;
// - its bound covers a whole *quiet* boot: the test disk's Debian kernel (`quiet`, as most
//   disks) prints one warning line at ~0.02 s uptime and nothing more until the agent says
//   hello, so console silence is all there is to see. The hello came at up to 143 s of guest
//   uptime for 2 vCPUs and 244 s for 16 vCPUs under TCG on this loaded 2-core machine (85
//   healthy own-disk boots' hello.json, Nov 30); the bound is >= 2x that:
//     TCG: 300 s + 15 s per vCPU (2: 330 s, 16: 540 s);  KVM: 120 s + 2 s per vCPU.
// A hang (the TCG sched_clock hang stops the console after that first line) then costs this
// bound and a retry instead of the whole hello timeout (>= 10 min) and the cell.
std::chrono::milliseconds own_disk_watchdog_bound(int vcpus, bool kvm);

// Whether console text shows a Linux kernel running: its banner ("Linux version ") or a
// printk timestamp ("[    0.021212] ", printed before every kernel line, `quiet` or not).
// Firmware and boot loaders print neither.
bool shows_kernel_start(std::string_view text);

// Whether console text shows a getty's login prompt ("topolab-guest login: "): the OS booted
// to userspace, so a missing hello after it is the agent's (the hello timeout and its hint say
// what to check), never the kernel hang the watchdog is for.
bool shows_login_prompt(std::string_view text);

// Whether console text shows the guest kernel reporting that it is stuck: a soft or hard lockup
// ("watchdog: BUG: soft lockup - CPU#0 stuck for 26s!"), an RCU stall ("rcu: INFO: rcu_preempt
// detected stalls"), a workqueue lockup or a hung task ("blocked for more than"). Under TCG a
// 16-vCPU boot can livelock in stop_machine (CI, 6 Dec: every vCPU in stop_machine_yield after
// the TSC clocksource switch) and then print such reports every ~26 s until the hello timeout,
// so console growth alone never looked like a hang.
bool shows_stall_report(std::string_view text);

// The kernel command line without `quiet`: a verbose console is what the watchdog watches for
// progress, and what tells why a failed boot stopped (kept in the run folder).
std::string verbose_cmdline(const std::string& cmdline);

// One line of guest or QEMU text made safe for errors and JSON: bytes outside printable ASCII
// become '?', a trailing '\r' goes, at most 200 characters (then "...").
std::string printable_line(std::string line);

// The most of a console log that console_tail and console_panic_line read (a larger file reads
// as empty); a console streamed from a remote host (stream_bridge.hpp) is cut at this size.
inline constexpr std::size_t kMaxConsoleBytes = 16u << 20;

// The last `lines` lines of a console log joined by " / " (each cut at 200 characters, bytes
// outside printable ASCII shown as '?'), to say why a guest never said hello; "(console log
// empty)" when there is nothing.
std::string console_tail(const std::filesystem::path& log, std::size_t lines);

// The guest kernel's "Kernel panic - not syncing: ..." line in a console log (printable ASCII,
// at most 200 characters), or "" when the kernel did not panic. A guest that panicked before
// its hello (under TCG: "IO-APIC + timer doesn't work!" on a loaded host) is booted again like
// a hung one.
std::string console_panic_line(const std::filesystem::path& log);

// The first stall report line (shows_stall_report) in a console log, printable and cut like
// console_panic_line, or "" when there is none.
std::string console_stall_line(const std::filesystem::path& log);

// Watches one file (the serial console log) from its own thread; when the file has not grown for
// `bound`, calls on_hang() once (from that thread) and stops. stop() (and the destructor) ends
// the watch without firing; both return only after the thread ended, so on_hang never runs
// after stop() returned.
// The thread sleeps until inotify reports a change in the console's folder (the file may not
// exist yet, and a retry renames it away), the bound runs out or stop() is called; when inotify
// is unavailable (no instance left, a folder it cannot watch) it polls the size every 100 ms.
// Arming::kAtKernelStart (own disks): the bound runs only from the moment the console first
// shows_kernel_start (the new bytes are scanned as they arrive, at most kMaxConsoleBytes); until
// then nothing fires, however long the console stays silent. A login prompt after it
// (shows_login_prompt) ends the watch without firing, as stop() would.
// Either arming: once the console shows a stall report (shows_stall_report), later growth is
// no longer progress: the bound runs from the report's arrival, and only hello (stop()) ends
// the watch unfired. A stuck kernel repeats its reports; a guest that recovers says hello.
class BootWatchdog {
 public:
  enum class Mode { kInotify, kPoll };
  enum class Arming { kAtStart, kAtKernelStart };
  // kPoll forces the polling fallback (tests); kInotify falls back by itself when it must.
  BootWatchdog(std::filesystem::path console, std::chrono::milliseconds bound,
               std::function<void()> on_hang, Mode mode = Mode::kInotify,
               Arming arming = Arming::kAtStart);
  ~BootWatchdog();
  BootWatchdog(const BootWatchdog&) = delete;
  BootWatchdog& operator=(const BootWatchdog&) = delete;

  void stop();
  bool fired() const { return fired_.load(); }
  std::chrono::milliseconds bound() const { return bound_; }
  // How long after the start it fired (0 if it did not).
  std::chrono::milliseconds fired_after() const { return fired_after_; }
  // Console bytes seen when it fired.
  std::uintmax_t console_bytes() const { return console_bytes_; }
  // After stop(): ms from the start to the console's first byte (-1: none), and the longest
  // silence seen (the start counts as the beginning of the first one; a stall report's later
  // lines end silences too, though they no longer restart the bound). Recorded with every
  // boot, so the bound's margin can be checked against real boots.
  long long first_output_ms() const { return first_output_ms_; }
  long long max_silence_ms() const { return max_silence_ms_; }
  // kAtKernelStart: ms from the start to the kernel's first console line (-1: not yet); after
  // stop() or from on_hang. kAtStart: 0. Silences before it are not counted above.
  long long armed_ms() const { return armed_ms_.load(); }
  // kAtKernelStart: ms from the start to a login prompt that ended the watch (-1: none).
  long long stood_down_ms() const { return stood_down_ms_.load(); }
  // ms from the start to the first stall report seen (-1: none); after stop() or from on_hang.
  long long stall_report_ms() const { return stall_ms_.load(); }
  // Whether the watch runs on inotify (false: it polls); fixed once the constructor returned.
  bool uses_inotify() const { return inotify_fd_ >= 0; }
  // Wake-ups of the watch thread so far (a test checks that a silent console costs none).
  long long wakeups() const { return wakeups_.load(); }

 private:
  void open_inotify();
  void watch();
  bool drain_inotify();
  void scan_console(std::uintmax_t size);

  std::filesystem::path console_;
  std::chrono::milliseconds bound_;
  std::function<void()> on_hang_;
  int inotify_fd_ = -1;
  int stop_fd_ = -1;  // eventfd: stop() wakes the thread's poll()
  std::atomic<bool> stopping_{false};
  std::atomic<long long> wakeups_{0};
  std::atomic<bool> fired_{false};
  std::chrono::milliseconds fired_after_{0};
  std::uintmax_t console_bytes_ = 0;
  long long first_output_ms_ = -1;
  long long max_silence_ms_ = 0;
  std::atomic<long long> armed_ms_{-1};
  std::atomic<long long> stood_down_ms_{-1};
  bool markers_ = false;  // kAtKernelStart: the kernel-start and login markers count
  std::atomic<long long> stall_ms_{-1};
  bool seen_kernel_ = false, seen_login_ = false, seen_stall_ = false;
  std::uintmax_t scanned_ = 0;  // console bytes scanned for the markers
  std::string carry_;           // the scanned text's last bytes (a marker cut between reads)
  std::thread thread_;
};

}  // namespace topolab::virt
