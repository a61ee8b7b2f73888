#include <libvirt/libvirt.h>

#include "common/accelerator.hpp"
#include "orchestrator/hostprep/doctor/checks.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::doctor {
namespace {

std::string version_string(unsigned long v) {
  return std::to_string(v / 1000000) + "." + std::to_string(v / 1000 % 1000) + "." +
         std::to_string(v % 1000);
}

}  // namespace

CheckResult check_libvirt(const std::string& connect_uri) {
  const std::string uri = connect_uri.empty() ? "qemu:///system" : connect_uri;
  auto conn = virt::open_connection(uri);
  if (!conn) {
    return fail("libvirt", conn.error().message,
                "systemctl start libvirtd virtlogd  # or: bash scripts/setup.sh");
  }
  unsigned long lib = 0, hv = 0;
  virConnectGetLibVersion(conn->get(), &lib);
  virConnectGetVersion(conn->get(), &hv);
  const char* type = virConnectGetType(conn->get());
  std::string reason = uri + " reachable: libvirt " + version_string(lib) + ", " +
                       (type ? type : "hypervisor") + " " + version_string(hv);
  auto kvm_caps =
      virt::get_domain_capabilities(conn->get(), libvirt_domain_type(Accelerator::kKvm));
  reason += kvm_caps ? ", offers domain type kvm" : ", no domain type kvm (TCG only)";
  return ok("libvirt", reason);
}

}  // namespace topolab::doctor
