#pragma once
// Which CPU model/features/cache mode to give the guest, so that the exposure really reaches
// it. Part of the announced topology (announced_topology.hpp), which is its only caller. Chosen
// from what was measured here (docs/layouts.md, ../shared/docs/qemu-guest-topology.md).
#include <string>
#include <string_view>
#include <vector>

#include "common/accelerator.hpp"
#include "common/result.hpp"
#include "orchestrator/model/layout/layout.hpp"

namespace topolab {

enum class CpuVendorStyle { kAmd, kIntel };

struct CpuModelChoice {
  std::string mode;   // "custom" or "host-passthrough"
  std::string model;  // empty for host-passthrough
  CpuVendorStyle style = CpuVendorStyle::kAmd;
  std::vector<std::string> disable, require;
  std::string cache_mode;  // "emulate", "passthrough", "disable" or "" (libvirt default)
  std::string reason;      // one line: why this choice
};

// The EPYC-Rome features TCG lacks; disabled so topoext can be required under TCG.
const std::vector<std::string>& epyc_rome_tcg_disabled_features();

CpuModelChoice choose_cpu_model(const Layout&, Accelerator, const std::string& host_vendor);
// The vendor style of a named model ("EPYC-Rome" -> AMD, "Skylake-Server" -> Intel).
CpuVendorStyle vendor_style_of_model(const std::string& model);

}  // namespace topolab
