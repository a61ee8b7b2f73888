#pragma once
// Which accelerator a guest runs on. `auto` asks libvirt's domain capabilities whether KVM is
// offered at all, then trusts only a real probe: a small KVM guest must reach the agent within
// a short bound. On hosts where /dev/kvm exists but nested KVM hangs guests, the probe fails
// and auto lands on TCG. The probe verdict is cached (/var/cache/topolab/accel.json), keyed by
// host kernel + QEMU + libvirt version, so only the first run pays for it.
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/accelerator.hpp"
#include "common/result.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::virt {

// What the user asks for: auto, or one Accelerator forced (its names come from
// common/accelerator.hpp).
enum class AccelMode { kAuto, kKvm, kTcg };
std::string to_string(AccelMode mode);
Result<AccelMode> parse_accel_mode(std::string_view text);  // "auto" | "kvm" | "tcg"
std::vector<std::string> accel_mode_names();                // for CLI choices

inline const std::filesystem::path kDefaultAccelCache = "/var/cache/topolab/accel.json";
// How long a KVM probe guest may take to say hello. A working KVM guest boots the image in
// well under a second of guest time; a hung one never prints anything.
inline constexpr std::chrono::milliseconds kKvmProbeBound{8000};

// The outcome of a KVM probe (or of a cached one).
struct KvmVerdict {
  bool usable = false;
  std::string reason;  // one line: why usable or not
  // The probe guest timed out (a silent console, no hello): the verdict that a loaded host can
  // give by chance. A failure libvirt names (define, start) is not one. Not cached.
  bool hung = false;
};

// Probes run for one decision: a probe that hung is run once more before "no" is cached.
// Why: a "no" is cached for the host (kernel + QEMU + libvirt) and pins it to TCG, 10-50x
// slower, until one of them changes; a probe guest starved by a loaded host (8 s for hello, 3 s
// for its first console line) would make that mistake for good. A true "no" (nested KVM hangs
// every guest, as here) costs one more probe (~4 s) once per cache key. A "yes" and a failure
// libvirt names are final at once.
inline constexpr int kKvmProbeAttempts = 2;

// Runs `probe` until it says usable, fails without hanging, or `attempts` ran; the last
// verdict, its reason naming every earlier hung probe. `probes` receives the count.
KvmVerdict probe_with_retry(const std::function<KvmVerdict()>& probe, int attempts, int& probes);

// What was chosen and why.
struct AccelDecision {
  Accelerator accel = Accelerator::kTcg;
  std::string reason;
  bool probed = false;      // a probe guest was booted in this call
  bool from_cache = false;  // the verdict came from the cache file
  int probes = 0;           // probe guests booted (probe_with_retry)
};

// The probe boots a KVM guest and reports whether it reached the agent (see kvm_probe.hpp).
using KvmProbe = std::function<KvmVerdict()>;

// "kernel=6.1.0-57-amd64;qemu=7.2.22;libvirt=9.0.0" for this machine's connection;
// "host=box;qemu=...;libvirt=..." for a remote one (its name and versions, not our kernel).
Result<std::string> accel_cache_key(virConnectPtr conn);
std::optional<KvmVerdict> read_accel_cache(const std::filesystem::path& cache,
                                           const std::string& key);
Result<void> write_accel_cache(const std::filesystem::path& cache, const std::string& key,
                               const KvmVerdict& verdict);

// kTcg: TCG. kKvm: KVM if libvirt offers it (no probe), else an error. kAuto: as described
// above; `probe` is only called on a cache miss, up to kKvmProbeAttempts times.
Result<AccelDecision> choose_accelerator(virConnectPtr conn, AccelMode mode, const KvmProbe& probe,
                                         const std::filesystem::path& cache = kDefaultAccelCache);

}  // namespace topolab::virt

namespace topolab {
using virt::AccelMode;  // BootRequest::accel and the CLI name it without the sub-namespace
}  // namespace topolab
