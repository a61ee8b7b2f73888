#include "orchestrator/planning/placement/cpu_model.hpp"

#include <algorithm>
#include <cctype>

namespace topolab {
namespace {

bool starts_with_ci(const std::string& s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

void add_unique(std::vector<std::string>& v, const std::string& f) {
  if (std::find(v.begin(), v.end(), f) == v.end()) v.push_back(f);
}

void remove(std::vector<std::string>& v, const std::string& f) {
  v.erase(std::remove(v.begin(), v.end(), f), v.end());
}

}  // namespace

const std::vector<std::string>& epyc_rome_tcg_disabled_features() {
  // Measured (../shared/docs/qemu-guest-topology.md): with these off, TCG accepts
  // EPYC-Rome with topoext required.
  static const std::vector<std::string> f = {
      "rdseed",   "sha-ni",    "xsavec",   "3dnowprefetch", "misalignsse",  "osvw",
      "fxsr_opt", "nrip-save", "rdpid",    "xsaves",        "perfctr_core", "amd-stibp",
      "clzero",   "ibpb",      "wbnoinvd", "xsaveerptr"};
  return f;
}

CpuVendorStyle vendor_style_of_model(const std::string& model) {
  for (const char* amd : {"EPYC", "Opteron", "phenom", "athlon", "Dhyana"}) {
    if (starts_with_ci(model, amd)) return CpuVendorStyle::kAmd;
  }
  if (model.empty()) return CpuVendorStyle::kAmd;
  for (const char* intel :
       {"Skylake", "Cascadelake", "Cooperlake", "Icelake", "SapphireRapids", "Broadwell", "Haswell",
        "IvyBridge", "SandyBridge", "Westmere", "Nehalem", "Penryn", "Conroe", "Snowridge",
        "Denverton", "core2duo", "coreduo"}) {
    if (starts_with_ci(model, intel)) return CpuVendorStyle::kIntel;
  }
  // qemu64/kvm64 and unknown names: QEMU's qemu64 carries the AMD vendor string.
  return starts_with_ci(model, "qemu64") ? CpuVendorStyle::kAmd : CpuVendorStyle::kIntel;
}

CpuModelChoice choose_cpu_model(const Layout& layout, Accelerator accel,
                                const std::string& host_vendor) {
  CpuModelChoice c;
  const bool amd_host = host_vendor == "AuthenticAMD" || host_vendor == "HygonGenuine";
  if (!layout.cpu_model.empty() && layout.cpu_model != "host-passthrough") {
    c.mode = "custom";
    c.model = layout.cpu_model;
    c.style = vendor_style_of_model(c.model);
    c.reason = "[cpu] model " + c.model + " from the layout";
    if (accel == Accelerator::kTcg && c.model == "EPYC-Rome") {
      c.disable = epyc_rome_tcg_disabled_features();
      c.require = {"topoext"};
    } else if (c.style == CpuVendorStyle::kAmd) {
      c.require = {"topoext"};  // AMD models show SMT and per-die L3 only with topoext
    }
    c.cache_mode = "";
  } else if (accel == Accelerator::kKvm || layout.cpu_model == "host-passthrough") {
    c.mode = "host-passthrough";
    c.style = amd_host ? CpuVendorStyle::kAmd : CpuVendorStyle::kIntel;
    if (amd_host) c.require = {"topoext"};
    // Emulated L3: QEMU derives the sharing from the announced topology (one L3 per die).
    // Passthrough would report the host's L3 sharing, right only when the guest topology
    // mirrors the host's, which topolab's layouts usually do not.
    c.cache_mode = "emulate";
    c.reason = std::string("KVM: host-passthrough") + (amd_host ? " + topoext" : "") +
               ", L3 emulated from the announced topology";
  } else {
    // TCG: QEMU 7.2's TCG drops topoext even with the other TCG-missing EPYC-Rome features
    // disabled (booted here: "TCG doesn't support requested feature ... topoext"), so an
    // AMD-style model shows no SMT, no dies and one L3. Skylake-Server was booted here with
    // sockets and dies exposures and the guest saw per-die/per-socket L3 and SMT pairs.
    // Its one limit: under numa exposure the L3 spans the cells (intended_guest_topology
    // says so for Intel-style models).
    c.mode = "custom";
    c.model = "Skylake-Server";
    c.style = CpuVendorStyle::kIntel;
    c.reason =
        "TCG: Skylake-Server (measured here: per-die and per-socket L3 and SMT reach the "
        "guest; EPYC-Rome loses topoext under TCG)";
  }
  for (const auto& f : layout.cpu_features_disable) {
    remove(c.require, f);
    add_unique(c.disable, f);
  }
  for (const auto& f : layout.cpu_features_require) {
    remove(c.disable, f);
    add_unique(c.require, f);
  }
  return c;
}

}  // namespace topolab
