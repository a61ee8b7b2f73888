#pragma once
// The built-in guest's kernel command line as booted (issue 17): the image's own line, without
// `quiet` (the boot watchdog watches the console, and a failed boot's console says where it
// stopped), plus options that make TCG guests boot steadier and faster.
#include <string>

namespace topolab::virt {

// Added under TCG only (measured: docs/lifecycle.md "Devices and kernel command line").
// no_timer_check: the kernel checks that the PIT timer interrupt ticks within a short busy wait
// at early boot (check_timer); on a loaded host a TCG vCPU's wait ends before QEMU delivered a
// tick and the guest panics "IO-APIC + timer doesn't work!" (1 of 50 16-vCPU boots here). KVM
// guests skip this check already (kvmclock sets no_timer_check).
// Not tsc=reliable: tried, but 50 boots could not tell it from chance (docs/benchmarks.md).
// Not tsc=unstable, though it removes the sched_clock hang (a QEMU stale-translation livelock,
// docs/benchmarks.md "The sched_clock hang"): it moves the guest's clocksource to the emulated
// HPET, which changes what timed guest benchmarks measure; the watchdog retries the hang.
// Not lpj=: the consoles show the delay loop already skipped ("Calibrating delay loop
// (skipped), value calculated using timer frequency").
inline constexpr const char* kTcgKernelOptions = "no_timer_check";

// `cmdline` with `quiet` removed when `verbose`, and kTcgKernelOptions appended when `tcg`
// (each option only when neither the line nor `user_extra`, the layout's
// guest.kernel_cmdline_extra that the domain writer appends, sets that parameter).
std::string guest_cmdline(const std::string& cmdline, bool verbose, bool tcg,
                          const std::string& user_extra = "");

}  // namespace topolab::virt
