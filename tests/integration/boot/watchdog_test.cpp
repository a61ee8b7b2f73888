// The boot watchdog (issue 17) against a real TCG guest that hangs on purpose: the built-in
// agent (PID 1) with `topolab.fault=hang-boot` on the kernel command line prints one line and
// then never serves, so no hello ever comes and the console goes silent, like the kernel hang
// at SMP bring-up. With a 10 s bound and one retry the boot must fail in about
// 2 x (boot to silence + 10 s), not after the hello timeout, with both attempts' consoles kept.
// Its twin plants a guest that keeps printing stall reports instead of going silent.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <sstream>

#include "orchestrator/guest/session/guest_session.hpp"
#include "tests/support/builtin_boot.hpp"
#include "tests/support/child_process.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Seconds from the file's last write to now (both on the system clock).
double seconds_since_write(const fs::path& p) {
  auto written = fs::last_write_time(p);
  auto now = fs::file_time_type::clock::now();
  return std::chrono::duration<double>(now - written).count();
}

Result<BootRequest> hanging_two_vcpu_boot(const std::string& run_id, const fs::path& run_dir,
                                          const std::string& fault) {
  auto req = testing::two_vcpu_builtin_boot();
  if (!req) return req.error();
  req->image.cmdline += " topolab.fault=" + fault;
  req->run_id = run_id;
  req->run_dir = run_dir;
  req->hello_timeout = 300s;  // far above the watchdog: only the watchdog can end this boot
  // Far above a healthy 2-vCPU boot's longest silence (0.2-3 s here; a slower, loaded CI machine
  // can stretch it several times; 4 s left it little margin).
  req->watchdog = 10000ms;
  req->boot_retries = 1;
  return req;
}

// A planted-fault boot that failed: its folder, how long it took, the error, and how long
// before the error its console last grew.
struct FailedBoot {
  fs::path run_dir;
  double took = 0;
  double since_last_console = 0;
  std::string msg;
};

// Boots the two-vCPU guest with `fault` (10 s bound, one retry), which must fail; `what` names
// its attempts in the printed figures. nullopt (a test failure added) when it did not fail.
std::optional<FailedBoot> failed_fault_boot(const std::string& marker, const std::string& fault,
                                            const std::string& what) {
  char tmpl[] = "/tmp/topolab-watchdog-it-XXXXXX";
  FailedBoot out;
  out.run_dir = fs::path(::mkdtemp(tmpl)) / "run";
  auto req = hanging_two_vcpu_boot(marker, out.run_dir, fault);
  if (!req || req->plan.layout.vcpu_count() != 2) {
    ADD_FAILURE() << (req ? "not a 2-vCPU layout" : req.error().message);
    return std::nullopt;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto session = GuestSession::boot(*req);
  out.took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (session.ok()) {
    ADD_FAILURE() << "a guest whose agent never serves booted";
    return std::nullopt;
  }
  out.since_last_console = seconds_since_write(out.run_dir / "console.log");
  out.msg = session.error().message;
  std::cout << "[figures] two " << what << " attempts failed after " << out.took
            << " s; last console write of attempt 2 was " << out.since_last_console
            << " s before the error\n";
  return out;
}

TEST(BootWatchdog, HungGuestIsRetriedOnceThenFailsWithItsConsoleTail) {
  const std::string marker = "it" + std::to_string(getpid()) + "-watchdog";
  const auto boot = failed_fault_boot(marker, "hang-boot", "hung");
  ASSERT_TRUE(boot);
  const auto& [run_dir, took, since_last_console, msg] = *boot;

  // The error: the second attempt hung, the first one too, the console tail says where.
  EXPECT_NE(msg.find("attempt 2 of 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("attempt 1 hung too, console kept in " +
                     (run_dir / "console.attempt-1.log").string()),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("guest hung: no console output for 10000 ms and no hello"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("console: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("test fault hang-boot: no hello, silent from here"), std::string::npos) << msg;

  // Within its bound: the watchdog fired 10 s after the console's last write (inotify wake-up;
  // destroy + undefine on a loaded host add a few seconds), long before the hello timeout.
  EXPECT_GE(since_last_console, 9.8);
  EXPECT_LE(since_last_console, 10.0 + 15.0);
  EXPECT_LT(took, 300.0) << "the hello timeout, not the watchdog, ended the boot";

  // Every failed attempt's full, non-quiet console is kept in the run folder.
  for (const char* name : {"console.attempt-1.log", "console.log"}) {
    const std::string console = slurp(run_dir / name);
    EXPECT_NE(console.find("Linux version"), std::string::npos) << name << ":\n" << console;
    EXPECT_NE(console.find("Kernel command line:"), std::string::npos) << name;
    EXPECT_EQ(console.find(" quiet"), std::string::npos) << name << " was booted with quiet";
    EXPECT_NE(console.find("test fault hang-boot"), std::string::npos) << name;
  }
  // Which vCPU was where when it fired: QEMU's registers of both vCPUs, summarised in the error.
  EXPECT_NE(msg.find("vCPUs at the hang: 2 vCPUs; RIP="), std::string::npos) << msg;
  for (const char* name : {"vcpus.attempt-1.log", "vcpus.log"}) {
    const std::string regs = slurp(run_dir / name);
    EXPECT_EQ(regs.rfind("2 vCPUs; RIP=", 0), 0u) << name << ":\n" << regs.substr(0, 300);
    EXPECT_NE(regs.find("CPU#1"), std::string::npos) << name;
    EXPECT_NE(regs.find("RIP="), std::string::npos) << name;
    // Both vCPUs idle at one RIP: one place, whose code bytes and stack were read too.
    EXPECT_NE(regs.find("\n== CPU#0 x/16bx $pc\n"), std::string::npos) << name << ":\n" << regs;
    EXPECT_NE(regs.find("\n== CPU#0 x/32gx $esp\n"), std::string::npos) << name;
  }
  EXPECT_TRUE(fs::exists(run_dir / "domain.attempt-1.xml"));
  EXPECT_TRUE(fs::exists(run_dir / "domain.xml"));
  EXPECT_FALSE(fs::exists(run_dir / "boot-2")) << "the retry must reuse the run folder";
  EXPECT_EQ(testing::topolab_domains_with(marker), std::vector<std::string>{});
  fs::remove_all(run_dir.parent_path());
}

// A stuck kernel that keeps reporting it (CI of 6 Dec: soft-lockup traces every ~26 s for the
// whole 300 s hello timeout): `topolab.fault=stall-boot` makes PID 1 print a soft-lockup line
// every second and never serve. The console never goes quiet for the 10 s bound, yet each
// attempt ends 10 s after its first report, and the error says it was a stall.
TEST(BootWatchdog, AGuestThatKeepsReportingAStallIsRetriedThoughItsConsoleGrows) {
  const std::string marker = "it" + std::to_string(getpid()) + "-stall";
  const auto boot = failed_fault_boot(marker, "stall-boot", "stalled");
  ASSERT_TRUE(boot);
  const auto& [run_dir, took, since_last_console, msg] = *boot;
  EXPECT_NE(msg.find("attempt 2 of 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("guest hung: the kernel reported a stall "), std::string::npos) << msg;
  EXPECT_NE(msg.find("(watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [topolab-agent:1]) and "
                     "did not recover within 10000 ms and no hello"),
            std::string::npos)
      << msg;
  // The console was still growing when the watchdog fired: the silence rule alone would have
  // waited out the 300 s hello timeout.
  EXPECT_LT(since_last_console, 5.0);
  EXPECT_LT(took, 200.0) << "the hello timeout, not the watchdog, ended the boot";
  for (const char* name : {"console.attempt-1.log", "console.log"}) {
    const std::string console = slurp(run_dir / name);
    EXPECT_NE(console.find("test fault stall-boot"), std::string::npos) << name;
    EXPECT_GE(console.find("BUG: soft lockup"), console.find("test fault stall-boot")) << name;
  }
  EXPECT_EQ(testing::topolab_domains_with(marker), std::vector<std::string>{});
  fs::remove_all(run_dir.parent_path());
}

}  // namespace
}  // namespace topolab
