// Is KVM usable, not just present? /dev/kvm also exists inside VMs whose nested KVM cannot run
// guests (on the lab machine a PVM-backed kvm module that hangs them), so presence proves
// little: the check weighs the CPU flags, the vendor module, signs of running inside a VM and
// the accelerator verdict a real boot left in /var/cache/topolab/accel.json.
#include <fcntl.h>
#include <linux/kvm.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <sstream>

#include "common/accelerator.hpp"
#include "common/file_io.hpp"
#include "common/owned_fd.hpp"
#include "orchestrator/hostprep/doctor/checks.hpp"

namespace topolab::doctor {
namespace {

std::set<std::string> cpu_flags(const SysRoot& root) {
  std::set<std::string> flags;
  auto text = read_file(root.at("/proc/cpuinfo"), 16u << 20);
  if (!text) return flags;
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream words(line.substr(colon + 1));
    std::string w;
    while (words >> w) flags.insert(w);
    break;  // the first CPU's flags are enough
  }
  return flags;
}

// DMI vendor/product strings of common hypervisors.
std::string hypervisor_from_dmi(const SysRoot& root) {
  for (const char* file : {"/sys/class/dmi/id/sys_vendor", "/sys/class/dmi/id/product_name"}) {
    auto v = root.attr_or_none(file);
    if (!v) continue;
    for (const char* known : {"QEMU", "KVM", "VMware", "VirtualBox", "Xen", "Microsoft Corporation",
                              "Amazon EC2", "Google Compute Engine", "innotek", "Bochs"}) {
      if (v->find(known) != std::string::npos) return *v;
    }
  }
  return "";
}

struct AccelVerdict {
  Accelerator accel;
  std::string reason;
};

// The KVM probe verdict the virt layer caches (orchestrator/libvirt/virt/accelerator.hpp):
// {"entries": {"kernel=K;qemu=Q;libvirt=L": {"kvm_usable", "reason", "probed_at"}}}. Only
// entries of the running kernel (/proc/sys/kernel/osrelease under root) count; the newest wins.
std::optional<AccelVerdict> cached_verdict(const SysRoot& root) {
  auto text = read_file(root.at("/var/cache/topolab/accel.json"), 1u << 20);
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("entries") || !j["entries"].is_object()) return std::nullopt;
  auto release = root.attr_or_none("/proc/sys/kernel/osrelease");
  if (!release) return std::nullopt;
  const std::string prefix = "kernel=" + *release + ";";
  std::optional<AccelVerdict> best;
  std::string best_time;
  for (const auto& [key, e] : j["entries"].items()) {
    if (key.rfind(prefix, 0) != 0 || !e.is_object() || !e.contains("kvm_usable") ||
        !e["kvm_usable"].is_boolean()) {
      continue;
    }
    std::string when = e.contains("probed_at") && e["probed_at"].is_string()
                           ? e["probed_at"].get<std::string>()
                           : "";
    if (best && when < best_time) continue;
    std::string reason =
        e.contains("reason") && e["reason"].is_string() ? e["reason"].get<std::string>() : "";
    best =
        AccelVerdict{e["kvm_usable"].get<bool>() ? Accelerator::kKvm : Accelerator::kTcg, reason};
    best_time = when;
  }
  return best;
}

// Live only: can we open /dev/kvm and does it speak the stable API?
std::string probe_dev_kvm() {
  OwnedFd fd(::open("/dev/kvm", O_RDWR | O_CLOEXEC));
  if (!fd) return std::string("cannot open /dev/kvm: ") + std::strerror(errno);
  int version = ::ioctl(fd.get(), KVM_GET_API_VERSION, 0);
  if (version != KVM_API_VERSION) {
    return "/dev/kvm answered KVM_GET_API_VERSION with " + std::to_string(version) + " (expected " +
           std::to_string(KVM_API_VERSION) + ")";
  }
  return "";
}

// The vendor module to load: AMD hosts (svm, or vendor_id AuthenticAMD/HygonGenuine) need
// kvm_amd, Intel ones kvm_intel; the fix names the other only when the vendor is unknown.
std::string modprobe_fix(const SysRoot& root) {
  const std::string firmware = "; enable VT-x/AMD-V (SVM) in the firmware";
  auto flags = cpu_flags(root);
  auto text = read_file(root.at("/proc/cpuinfo"), 16u << 20);
  const bool amd =
      flags.count("svm") || (text && (text->find("AuthenticAMD") != std::string::npos ||
                                      text->find("HygonGenuine") != std::string::npos));
  const bool intel =
      flags.count("vmx") || (text && text->find("GenuineIntel") != std::string::npos);
  if (amd && !intel) return "modprobe kvm_amd  # enable AMD-V (SVM) in the firmware";
  if (intel && !amd) return "modprobe kvm_intel  # enable VT-x in the firmware";
  return "modprobe kvm_intel  # or kvm_amd on AMD" + firmware;
}

std::string kvm_backend(const SysRoot& root) {
  for (const char* m : {"kvm_intel", "kvm_amd", "kvm_pvm"}) {
    if (root.exists(std::string("/sys/module/") + m)) return m;
  }
  return "";
}

}  // namespace

CheckResult check_kvm(const SysRoot& root) {
  const std::string name = "kvm";
  const std::string tcg_note = "topolab uses TCG (<domain type='qemu'>, 10-50x slower)";
  if (!root.exists("/dev/kvm")) {
    return warn(name, "no /dev/kvm: " + tcg_note, modprobe_fix(root));
  }
  auto flags = cpu_flags(root);
  bool hw = flags.count("vmx") || flags.count("svm");
  std::string backend = kvm_backend(root);
  std::vector<std::string> vm_signs;
  if (flags.count("hypervisor")) vm_signs.push_back("cpuinfo has the 'hypervisor' flag");
  if (auto dmi = hypervisor_from_dmi(root); !dmi.empty()) {
    vm_signs.push_back("DMI says '" + dmi + "'");
  }
  std::string facts = "kvm backend " + (backend.empty() ? std::string("unknown") : backend) + ", " +
                      (hw ? "vmx/svm present" : "no vmx/svm in cpuinfo");

  auto verdict = cached_verdict(root);
  if (verdict && verdict->accel == Accelerator::kKvm) {
    return ok(name, "/dev/kvm usable: a KVM guest booted here (accel.json), " + facts);
  }
  if (!vm_signs.empty()) {
    std::string signs;
    for (const auto& s : vm_signs) signs += (signs.empty() ? "" : ", ") + s;
    std::string why = "/dev/kvm exists but KVM is not usable: running inside a VM (" + signs +
                      "; " + facts + "): nested KVM hangs guests here, so " + tcg_note;
    if (verdict) why += "; cached verdict " + to_string(verdict->accel) + ": " + verdict->reason;
    return warn(name, why,
                "run on bare metal, or enable nested virtualization on the outer host "
                "(kvm_intel nested=1 / kvm_amd nested=1) and pass vmx/svm to this VM");
  }
  if (verdict && verdict->accel == Accelerator::kTcg) {
    return warn(name,
                "/dev/kvm exists but a KVM boot failed here (accel.json: " + verdict->reason +
                    "), so " + tcg_note,
                "rm /var/cache/topolab/accel.json  # after fixing KVM, to test it again");
  }
  if (!hw) {
    return warn(name,
                "/dev/kvm exists but the CPU shows no vmx/svm (" + facts + "), so " + tcg_note,
                "enable VT-x/AMD-V (SVM) in the firmware");
  }
  if (root.live()) {
    if (auto problem = probe_dev_kvm(); !problem.empty()) {
      return fail(name, problem + " (" + facts + ")",
                  "usermod -aG kvm $USER  # or run as root; check dmesg | grep -i kvm");
    }
    return ok(name,
              "/dev/kvm usable (KVM API " + std::to_string(KVM_API_VERSION) + ", " + facts + ")");
  }
  return ok(name, "/dev/kvm present, " + facts + " (not opened: not the live root)");
}

}  // namespace topolab::doctor
