#include "orchestrator/libvirt/virt/accelerator.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/file_io.hpp"
#include "common/interrupt_gate.hpp"
#include "common/json_text.hpp"
#include "common/utc_time.hpp"

namespace topolab::virt {
namespace {

std::string version_string(unsigned long v) {
  return std::to_string(v / 1000000) + "." + std::to_string(v / 1000 % 1000) + "." +
         std::to_string(v % 1000);
}

nlohmann::json read_cache_json(const std::filesystem::path& cache) {
  auto text = read_file(cache, 1 << 20);
  if (!text) return nlohmann::json::object();
  auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("entries") || !j["entries"].is_object()) {
    return nlohmann::json::object();  // unreadable cache: treat as empty, it gets rewritten
  }
  return j;
}

}  // namespace

std::string to_string(AccelMode mode) {
  if (mode == AccelMode::kAuto) return "auto";
  return to_string(mode == AccelMode::kKvm ? Accelerator::kKvm : Accelerator::kTcg);
}

Result<AccelMode> parse_accel_mode(std::string_view text) {
  if (text == "auto") return AccelMode::kAuto;
  auto a = parse_accelerator(text);
  if (!a)
    return make_error(ErrorKind::input,
                      "accelerator '" + std::string(text) + "': expected auto, kvm or tcg");
  return *a == Accelerator::kKvm ? AccelMode::kKvm : AccelMode::kTcg;
}

std::vector<std::string> accel_mode_names() {
  std::vector<std::string> out{to_string(AccelMode::kAuto)};
  for (auto a : kAccelerators) out.push_back(to_string(a));
  return out;
}

Result<std::string> accel_cache_key(virConnectPtr conn) {
  unsigned long hv = 0, lib = 0;
  if (auto e = failed(virConnectGetVersion(conn, &hv))) return e->context("virConnectGetVersion");
  if (auto e = failed(virConnectGetLibVersion(conn, &lib))) {
    return e->context("virConnectGetLibVersion");
  }
  // Both answered by the connection's libvirtd: that host's QEMU and libvirt.
  const std::string versions = ";qemu=" + version_string(hv) + ";libvirt=" + version_string(lib);
  // Through a remote connection the verdict is that host's (issue 16): keyed by the host's name
  // as its libvirtd reports it, never by this machine's kernel (our kernel update must not
  // re-probe every remote host, theirs must not look cached). libvirt has no API for the remote
  // kernel release: after one, `--accel kvm` or deleting the cache entry re-decides.
  if (through_remote_driver(conn)) {
    LibvirtString host(virConnectGetHostname(conn));
    if (!host) return capture_libvirt_error().context("virConnectGetHostname");
    return std::string("host=") + host.get() + versions;
  }
  struct utsname u {};
  if (uname(&u) != 0) return make_error(ErrorKind::failed, "uname failed");
  return std::string("kernel=") + u.release + versions;  // local keys stay as they were
}

std::optional<KvmVerdict> read_accel_cache(const std::filesystem::path& cache,
                                           const std::string& key) {
  auto j = read_cache_json(cache);
  if (!j.contains("entries") || !j["entries"].contains(key)) return std::nullopt;
  const auto& e = j["entries"][key];
  if (!e.is_object() || !e.contains("kvm_usable") || !e["kvm_usable"].is_boolean()) {
    return std::nullopt;
  }
  KvmVerdict v;
  v.usable = e["kvm_usable"].get<bool>();
  // A hand-edited cache with a non-string reason must not abort (value() would throw).
  if (e.contains("reason") && e["reason"].is_string()) v.reason = e["reason"].get<std::string>();
  return v;
}

Result<void> write_accel_cache(const std::filesystem::path& cache, const std::string& key,
                               const KvmVerdict& verdict) {
  // A probe whose guest the signal watcher destroyed fails: that "no" is the interrupt's, and
  // cached it would send every later run on this host to TCG (common/interrupt_gate.hpp).
  interrupt::hold_if_interrupted();
  std::error_code ec;
  std::filesystem::create_directories(cache.parent_path(), ec);
  if (ec)
    return make_error(ErrorKind::io,
                      "cannot create " + cache.parent_path().string() + ": " + ec.message());
  auto j = read_cache_json(cache);
  if (!j.contains("entries")) j["entries"] = nlohmann::json::object();
  j["entries"][key] = {
      {"kvm_usable", verdict.usable}, {"reason", verdict.reason}, {"probed_at", utc_now()}};
  // The reason may quote a console or libvirt message: never let a non-UTF-8 byte throw here.
  return write_file_atomic(cache, json_document(j), 0644);
}

KvmVerdict probe_with_retry(const std::function<KvmVerdict()>& probe, int attempts, int& probes) {
  probes = 0;
  std::string earlier;
  for (;;) {
    auto v = probe();
    ++probes;
    if (v.usable || !v.hung || probes >= std::max(1, attempts)) {
      if (!earlier.empty()) v.reason += " (probe " + std::to_string(probes) + "; " + earlier + ")";
      return v;
    }
    earlier += (earlier.empty() ? "" : "; ") + std::string("probe ") + std::to_string(probes) +
               " hung: " + v.reason.substr(0, 300);
  }
}

Result<AccelDecision> choose_accelerator(virConnectPtr conn, AccelMode mode, const KvmProbe& probe,
                                         const std::filesystem::path& cache) {
  if (mode == AccelMode::kTcg) return AccelDecision{Accelerator::kTcg, "TCG forced by --accel tcg"};
  auto caps = get_domain_capabilities(conn, libvirt_domain_type(Accelerator::kKvm));
  if (mode == AccelMode::kKvm) {
    if (!caps) return caps.error().context("--accel kvm: libvirt does not offer KVM");
    return AccelDecision{Accelerator::kKvm, "KVM forced by --accel kvm (not probed)"};
  }
  if (!caps) {
    return AccelDecision{Accelerator::kTcg,
                         "TCG: libvirt does not offer KVM (" + caps.error().message + ")"};
  }
  auto key = accel_cache_key(conn);
  if (!key) return key.error();
  AccelDecision d;
  auto verdict = read_accel_cache(cache, *key);
  if (verdict) {
    d.from_cache = true;
  } else {
    verdict = probe_with_retry(probe, kKvmProbeAttempts, d.probes);
    d.probed = true;
    // A cache that cannot be written only costs a probe next time; the choice still stands.
    (void)write_accel_cache(cache, *key, *verdict);
  }
  d.accel = verdict->usable ? Accelerator::kKvm : Accelerator::kTcg;
  d.reason = std::string(verdict->usable ? "KVM" : "TCG") + ": " + verdict->reason +
             (d.from_cache ? " (cached verdict for " + *key + " in " + cache.string() + ")" : "");
  return d;
}

}  // namespace topolab::virt
