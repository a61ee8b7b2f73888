#include "orchestrator/virt/domain_lifecycle.hpp"

#include <libvirt/virterror.h>

#include <optional>
#include <pugixml.hpp>
#include <thread>

namespace topolab::virt {
namespace {

using Clock = std::chrono::steady_clock;

bool last_error_is(int code) {
  virErrorPtr err = virGetLastError();
  return err && err->code == code;
}

}  // namespace

std::string domain_name(virDomainPtr dom) {
  const char* n = virDomainGetName(dom);
  return n ? n : "?";
}

Result<std::string> domain_uuid(virDomainPtr dom) {
  char buf[VIR_UUID_STRING_BUFLEN] = {};
  if (virDomainGetUUIDString(dom, buf) < 0) {
    return last_libvirt_error("virDomainGetUUIDString(" + domain_name(dom) + ")");
  }
  return std::string(buf);
}

Result<DomainPtr> lookup_domain(virConnectPtr conn, const std::string& name) {
  virDomainPtr d = virDomainLookupByName(conn, name.c_str());
  if (!d) return last_libvirt_error("no domain named '" + name + "'");
  return DomainPtr(d);
}

Result<std::optional<DomainPtr>> find_domain_by_uuid(virConnectPtr conn, const std::string& uuid) {
  virDomainPtr d = virDomainLookupByUUIDString(conn, uuid.c_str());
  if (d) return std::optional<DomainPtr>(DomainPtr(d));
  if (virGetLastErrorCode() == VIR_ERR_NO_DOMAIN) return std::optional<DomainPtr>();
  return last_libvirt_error("lookup of domain " + uuid);
}

Result<DomainPtr> define_domain(virConnectPtr conn, const std::string& xml) {
  pugi::xml_document doc;
  if (!doc.load_string(xml.c_str())) return make_error("define: domain XML does not parse");
  std::string name = doc.child("domain").child_value("name");
  if (name.empty()) return make_error("define: domain XML has no <name>");
  if (virDomainPtr existing = virDomainLookupByName(conn, name.c_str())) {
    virDomainFree(existing);
    return make_error("define: a domain named '" + name +
                      "' already exists; refusing to redefine a domain this run did not create");
  }
  virDomainPtr d = virDomainDefineXML(conn, xml.c_str());
  if (!d) return last_libvirt_error("virDomainDefineXML(" + name + ")");
  return DomainPtr(d);
}

Result<void> start_domain(virDomainPtr dom) {
  if (virDomainCreate(dom) < 0)
    return last_libvirt_error("virDomainCreate(" + domain_name(dom) + ")");
  return {};
}

Result<DomainRunState> domain_state(virDomainPtr dom) {
  int state = 0, reason = 0;
  if (virDomainGetState(dom, &state, &reason, 0) < 0) {
    return last_libvirt_error("virDomainGetState(" + domain_name(dom) + ")");
  }
  switch (state) {
    case VIR_DOMAIN_SHUTOFF:
      return DomainRunState::kShutoff;
    case VIR_DOMAIN_RUNNING:
      return DomainRunState::kRunning;
    case VIR_DOMAIN_PAUSED:
      return DomainRunState::kPaused;
    default:
      return DomainRunState::kOther;
  }
}

Result<void> destroy_domain(virDomainPtr dom) {
  // A guest stuck in a hung (e.g. nested-KVM) vCPU may not die on the first SIGTERM/SIGKILL
  // round within libvirt's grace period; retry a few times before giving up.
  for (int attempt = 0; attempt < 3; ++attempt) {
    int active = virDomainIsActive(dom);
    if (active == 0) return {};
    if (active < 0 && last_error_is(VIR_ERR_NO_DOMAIN)) return {};
    if (virDomainDestroy(dom) == 0) return {};
    if (last_error_is(VIR_ERR_OPERATION_INVALID) || last_error_is(VIR_ERR_NO_DOMAIN)) {
      if (virDomainIsActive(dom) != 1) return {};  // it stopped meanwhile
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return last_libvirt_error("virDomainDestroy(" + domain_name(dom) + ")");
}

Result<void> undefine_domain(virDomainPtr dom) {
  int persistent = virDomainIsPersistent(dom);
  if (persistent == 0) return {};  // transient: gone once destroyed
  if (persistent < 0 && last_error_is(VIR_ERR_NO_DOMAIN)) return {};
  unsigned flags = VIR_DOMAIN_UNDEFINE_MANAGED_SAVE | VIR_DOMAIN_UNDEFINE_SNAPSHOTS_METADATA;
  if (virDomainUndefineFlags(dom, flags) == 0) return {};
  if (last_error_is(VIR_ERR_NO_DOMAIN)) return {};
  return last_libvirt_error("virDomainUndefineFlags(" + domain_name(dom) + ")");
}

Result<void> destroy_and_undefine(virDomainPtr dom) {
  auto destroyed = destroy_domain(dom);
  auto undefined = undefine_domain(dom);
  if (destroyed && undefined) return {};
  std::string msg;
  if (!destroyed) msg = destroyed.error().message;
  if (!undefined) msg += (msg.empty() ? "" : "; ") + undefined.error().message;
  return make_error(msg);
}

Result<void> request_shutdown(virDomainPtr dom) {
  if (virDomainShutdown(dom) < 0) {
    return last_libvirt_error("virDomainShutdown(" + domain_name(dom) + ")");
  }
  return {};
}

Result<void> wait_for_shutoff(virDomainPtr dom, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    int active = virDomainIsActive(dom);
    if (active == 0) return {};
    if (active < 0) {
      if (last_error_is(VIR_ERR_NO_DOMAIN)) return {};  // transient and gone
      return last_libvirt_error("virDomainIsActive(" + domain_name(dom) + ")");
    }
    if (Clock::now() >= deadline) {
      return make_error("domain " + domain_name(dom) + " still running after " +
                        std::to_string(timeout.count()) + " ms");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Result<std::string> domain_xml(virDomainPtr dom, bool live) {
  unsigned flags = live ? 0 : VIR_DOMAIN_XML_INACTIVE;
  LibvirtString xml(virDomainGetXMLDesc(dom, flags));
  if (!xml) return last_libvirt_error("virDomainGetXMLDesc(" + domain_name(dom) + ")");
  return std::string(xml.get());
}

Result<std::filesystem::path> find_channel_socket(std::string_view domain_xml,
                                                  std::string_view channel_name) {
  pugi::xml_document doc;
  if (!doc.load_buffer(domain_xml.data(), domain_xml.size())) {
    return make_error("domain XML does not parse");
  }
  for (auto ch : doc.child("domain").child("devices").children("channel")) {
    if (ch.child("target").attribute("name").value() != channel_name) continue;
    if (std::string_view(ch.attribute("type").value()) != "unix") {
      return make_error("channel '" + std::string(channel_name) + "' has type '" +
                        ch.attribute("type").value() + "', expected 'unix'");
    }
    std::string path = ch.child("source").attribute("path").value();
    if (path.empty()) {
      return make_error("channel '" + std::string(channel_name) +
                        "' has no socket path (is the domain running?)");
    }
    return std::filesystem::path(path);
  }
  return make_error("domain XML has no channel named '" + std::string(channel_name) + "'");
}

}  // namespace topolab::virt
