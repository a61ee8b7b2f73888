#include "orchestrator/guest/session/vcpu_limits.hpp"

#include <algorithm>
#include <pugixml.hpp>

#include "common/accelerator.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::session {
using namespace virt;  // the libvirt layer this code drives (it lived in virt:: before)
namespace {

const char* const kHelloSource =
    "the agent's hello must carry the guest topology in one 1 MiB protocol line";

// Domain capabilities of the machine topolab's templates use, KVM first, then TCG.
Result<std::string> machine_domcaps(virConnectPtr conn, std::string& virttype) {
  Error last{"no virttype tried"};
  for (Accelerator a : kAccelerators) {
    const char* type = libvirt_domain_type(a);
    LibvirtString caps(
        virConnectGetDomainCapabilities(conn, nullptr, "x86_64", kLimitMachine, type, 0));
    if (caps) {
      virttype = type;
      return std::string(caps.get());
    }
    last = capture_libvirt_error().context(std::string("domain capabilities (") + type + ")");
  }
  return last;
}

}  // namespace

VcpuLimit static_vcpu_limit() {
  return {kMaxHelloVcpus, std::string(kHelloSource) +
                              "; no libvirt connection (--sysfs/--caps), so the machine type's "
                              "own limit is not known here"};
}

Result<int> parse_domcaps_vcpu_max(const std::string& xml) {
  pugi::xml_document doc;
  if (!doc.load_string(xml.c_str()))
    return make_error(ErrorKind::libvirt, "domain capabilities do not parse");
  auto vcpu = doc.child("domainCapabilities").child("vcpu");
  const int max = vcpu.attribute("max").as_int(0);
  if (max < 1) return make_error(ErrorKind::libvirt, "domain capabilities have no <vcpu max='N'/>");
  return max;
}

VcpuLimit libvirt_vcpu_limit(const std::string& uri) {
  const std::string target = uri.empty() ? "qemu:///system" : uri;
  auto conn = open_connection(target);
  std::string virttype;
  auto caps = conn ? machine_domcaps(conn->get(), virttype) : Result<std::string>(conn.error());
  auto max = caps ? parse_domcaps_vcpu_max(*caps) : Result<int>(caps.error());
  if (!max) {
    auto s = static_vcpu_limit();
    s.source = std::string(kHelloSource) + "; the machine type's limit is unknown (" +
               max.error().message + ")";
    return s;
  }
  pugi::xml_document doc;
  doc.load_string(caps->c_str());
  const std::string machine = doc.child("domainCapabilities").child_value("machine");
  if (*max >= kMaxHelloVcpus) {
    return {kMaxHelloVcpus, std::string(kHelloSource) + " (machine " + machine + " allows " +
                                std::to_string(*max) + ")"};
  }
  return {*max, "libvirt domain capabilities of " + target + ": machine " + kLimitMachine + " (" +
                    machine + ", " + virttype + ") allows at most " + std::to_string(*max) +
                    " vCPUs"};
}

}  // namespace topolab::session
