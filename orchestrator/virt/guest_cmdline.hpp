#pragma once
// The built-in guest's kernel command line as booted (issue 17): the image's own line, without
// `quiet` (the boot watchdog watches the console, and a failed boot's console says where it
// stopped), plus options that make TCG guests boot steadier and faster.
#include <string>

namespace topolab::virt {

// Added under TCG only. Under TCG every vCPU reads the host's own TSC (invariant and the same on
// every host core), so the kernel's TSC checks measure host scheduling, not the guest's clock:
// the warp test at each AP's bring-up spins two vCPUs against each other (15 rounds for 16
// vCPUs on 2 host cores), and the clocksource watchdog compares TSC against HPET/acpi_pm reads
// delayed by the host (consoles here show sched_clock offsets of up to 3 s). `tsc=reliable`
// skips both. Not `lpj=`: the consoles show the delay loop already skipped ("Calibrating delay
// loop (skipped), value calculated using timer frequency"). Measured: docs/lifecycle.md.
inline constexpr const char* kTcgKernelOptions = "tsc=reliable";

// `cmdline` with `quiet` removed when `verbose`, and kTcgKernelOptions appended when `tcg`
// (each option only when neither the line nor `user_extra`, the layout's
// guest.kernel_cmdline_extra that the domain writer appends, sets that parameter).
std::string guest_cmdline(const std::string& cmdline, bool verbose, bool tcg,
                          const std::string& user_extra = "");

}  // namespace topolab::virt
