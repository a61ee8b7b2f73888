#pragma once
// Reading `topolab run --json` summaries in tests.
#include <nlohmann/json.hpp>

namespace topolab::testing {

// Boots of the design: each configuration's first boot. A configuration whose guest stopped
// answering mid-run is booted once more for the runs it left (`hang_reboots`, counted for CI in
// $TOPOLAB_BOOT_RETRY_LOG like the boot watchdog's retries); a test asserting the design's
// boots does not count those.
inline int configurations_booted(const nlohmann::json& summary) {
  return summary.value("boots", -1) - summary.value("hang_reboots", 0);
}

}  // namespace topolab::testing
