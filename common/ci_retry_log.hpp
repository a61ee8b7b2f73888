#pragma once
// CI counts the guests booted again across the integration suite (issue 33: retries must not
// hide a rise in hangs): when TOPOLAB_BOOT_RETRY_LOG names a file, one JSON line per retry is
// appended to it (scripts/count-retries.py reads them). Both retries write it: the boot
// watchdog's (a guest hung or panicked before hello) and the runner's (a booted guest stopped
// answering mid-run). `planted`: a test asked for the fault (topolab.fault=... on the guest's
// cmdline), so the count can tell it from a real hang. Best effort: no error.
#include <string>
#include <string_view>

namespace topolab {

// `kind`: "boot" (the watchdog's retry of a boot) or "run" (a configuration booted again
// after its guest stopped answering mid-run); CI bounds each kind on its own.
void note_retry_for_ci(const std::string& kind, const std::string& what, int attempt,
                       const std::string& reason, bool planted);
// A guest cmdline (or a configuration's label) that carries a planted hang (hang-*, stall-*).
// Other faults (garbage, none) plant no hang: a guest of theirs that hangs hung for real.
bool names_planted_fault(std::string_view text);

}  // namespace topolab
