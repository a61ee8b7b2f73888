#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"

#include <libvirt/virterror.h>

#include <deque>
#include <optional>
#include <pugixml.hpp>
#include <sstream>
#include <thread>

#include "common/file_io.hpp"
#include "orchestrator/libvirt/virt/event_loop.hpp"

namespace topolab::virt {
namespace {

using Clock = std::chrono::steady_clock;

bool last_error_is(int code) { return capture_libvirt_error().is(code); }

// What QEMU wrote to libvirt's per-domain log during this start (the bytes after `from`),
// minus libvirt's own bookkeeping lines and the command line, and minus what libvirt's error
// already quotes: the last few lines that add to `already`.
std::string qemu_log_explanation(const std::filesystem::path& log, std::uintmax_t from,
                                 const std::string& already) {
  constexpr std::size_t kMaxLines = 3, kMaxLine = 300;
  auto text = read_file(log, 4u << 20);
  if (!text || text->size() <= from) return "";
  std::istringstream in(text->substr(static_cast<std::size_t>(from)));
  std::deque<std::string> kept;
  for (std::string line; std::getline(in, line);) {
    const bool bookkeeping = line.find("starting up libvirt") != std::string::npos ||
                             line.find("shutting down, reason=") != std::string::npos ||
                             line.rfind("LC_ALL=", 0) == 0 || line.rfind("Hostname:", 0) == 0 ||
                             line.rfind("char device redirected", 0) == 0 ||
                             line.find(" is tainted: ") != std::string::npos ||
                             line.find("-name guest=") != std::string::npos;
    if (line.empty() || bookkeeping || already.find(line) != std::string::npos) continue;
    kept.push_back(line.substr(0, kMaxLine));
    if (kept.size() > kMaxLines) kept.pop_front();
  }
  std::string out;
  for (const auto& l : kept) out += (out.empty() ? "" : " / ") + l;
  return out;
}

}  // namespace

std::string domain_name(virDomainPtr dom) {
  const char* n = virDomainGetName(dom);
  return n ? n : "?";
}

std::filesystem::path qemu_log_path(const std::string& domain_name) {
  return std::filesystem::path("/var/log/libvirt/qemu") / (domain_name + ".log");
}

Result<std::string> domain_uuid(virDomainPtr dom) {
  char buf[VIR_UUID_STRING_BUFLEN] = {};
  if (auto e = failed(virDomainGetUUIDString(dom, buf))) {
    return e->context("virDomainGetUUIDString(" + domain_name(dom) + ")");
  }
  return std::string(buf);
}

Result<DomainPtr> lookup_domain(virConnectPtr conn, const std::string& name) {
  virDomainPtr d = virDomainLookupByName(conn, name.c_str());
  if (!d) return capture_libvirt_error().context("no domain named '" + name + "'");
  return DomainPtr(d);
}

Result<std::optional<DomainPtr>> find_domain_by_uuid(virConnectPtr conn, const std::string& uuid) {
  virDomainPtr d = virDomainLookupByUUIDString(conn, uuid.c_str());
  if (d) return std::optional<DomainPtr>(DomainPtr(d));
  const auto e = capture_libvirt_error();
  if (e.is(VIR_ERR_NO_DOMAIN)) return std::optional<DomainPtr>();
  return e.context("lookup of domain " + uuid);
}

Result<DomainPtr> define_domain(virConnectPtr conn, const std::string& xml) {
  pugi::xml_document doc;
  if (!doc.load_string(xml.c_str()))
    return make_error(ErrorKind::input, "define: domain XML does not parse");
  std::string name = doc.child("domain").child_value("name");
  if (name.empty()) return make_error(ErrorKind::input, "define: domain XML has no <name>");
  if (virDomainPtr existing = virDomainLookupByName(conn, name.c_str())) {
    virDomainFree(existing);
    return make_error(
        ErrorKind::failed,
        "define: a domain named '" + name +
            "' already exists; refusing to redefine a domain this run did not create");
  }
  CallTimer timer("virDomainDefineXML(" + name + ")");
  virDomainPtr d = virDomainDefineXML(conn, xml.c_str());
  if (!d) return capture_libvirt_error().context("virDomainDefineXML(" + name + ")");
  return DomainPtr(d);
}

Result<void> start_domain(virDomainPtr dom, bool paused) {
  const std::string name = domain_name(dom);  // before the call: it resets the last error
  const auto log = qemu_log_path(name);
  const auto log_size = file_size_or_zero(log);
  CallTimer timer("virDomainCreate(" + name + ")");
  if (auto e = failed(paused ? virDomainCreateWithFlags(dom, VIR_DOMAIN_START_PAUSED)
                             : virDomainCreate(dom))) {
    Error err = e->context("virDomainCreate(" + name + ")");
    if (auto said = qemu_log_explanation(log, log_size, err.message); !said.empty()) {
      err.message += "; QEMU log " + log.string() + ": " + said;
    }
    return err;
  }
  return {};
}

Result<void> resume_domain(virDomainPtr dom) {
  const std::string name = domain_name(dom);
  CallTimer timer("virDomainResume(" + name + ")");
  if (auto e = failed(virDomainResume(dom))) return e->context("virDomainResume(" + name + ")");
  return {};
}

Result<DomainRunState> domain_state(virDomainPtr dom) {
  int state = 0, reason = 0;
  if (auto e = failed(virDomainGetState(dom, &state, &reason, 0))) {
    return e->context("virDomainGetState(" + domain_name(dom) + ")");
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
  LibvirtError last;
  CallTimer timer("virDomainDestroy(" + domain_name(dom) + ")");
  for (int attempt = 0; attempt < 3; ++attempt) {
    int active = virDomainIsActive(dom);
    if (active == 0) return {};
    if (active < 0 && last_error_is(VIR_ERR_NO_DOMAIN)) return {};
    auto e = failed(virDomainDestroy(dom));
    if (!e) return {};
    last = *e;
    if (e->is(VIR_ERR_OPERATION_INVALID) || e->is(VIR_ERR_NO_DOMAIN)) {
      if (virDomainIsActive(dom) != 1) return {};  // it stopped meanwhile
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return last.context("virDomainDestroy(" + domain_name(dom) + ")");
}

Result<void> undefine_domain(virDomainPtr dom) {
  int persistent = virDomainIsPersistent(dom);
  if (persistent == 0) return {};  // transient: gone once destroyed
  if (persistent < 0 && last_error_is(VIR_ERR_NO_DOMAIN)) return {};
  // Every domain topolab undefines is its own copy: a UEFI copy's NVRAM is the run's own file
  // (guestsource copy_nvram, or the one libvirt made for the copy's name), so it goes with the
  // domain; without the flag libvirt refuses ("cannot undefine domain with nvram", issue 32).
  // Drivers that do not know the flag (test:///) are asked again without it.
  const unsigned base = VIR_DOMAIN_UNDEFINE_MANAGED_SAVE | VIR_DOMAIN_UNDEFINE_SNAPSHOTS_METADATA;
  CallTimer timer("virDomainUndefineFlags(" + domain_name(dom) + ")");
  auto e = failed(virDomainUndefineFlags(dom, base | VIR_DOMAIN_UNDEFINE_NVRAM));
  if (e && e->is(VIR_ERR_INVALID_ARG)) e = failed(virDomainUndefineFlags(dom, base));
  if (!e || e->is(VIR_ERR_NO_DOMAIN)) return {};
  return e->context("virDomainUndefineFlags(" + domain_name(dom) + ")");
}

Result<void> destroy_and_undefine(virDomainPtr dom) {
  auto destroyed = destroy_domain(dom);
  auto undefined = undefine_domain(dom);
  if (destroyed && undefined) return {};
  std::string msg;
  if (!destroyed) msg = destroyed.error().message;
  if (!undefined) msg += (msg.empty() ? "" : "; ") + undefined.error().message;
  return make_error(ErrorKind::libvirt, msg);
}

Result<void> request_shutdown(virDomainPtr dom) {
  CallTimer timer("virDomainShutdown(" + domain_name(dom) + ")");
  if (auto e = failed(virDomainShutdown(dom))) {
    return e->context("virDomainShutdown(" + domain_name(dom) + ")");
  }
  return {};
}

Result<void> press_acpi_power_button(virDomainPtr dom) {
  CallTimer timer("virDomainShutdownFlags(" + domain_name(dom) + ", ACPI_POWER_BTN)");
  if (auto e = failed(virDomainShutdownFlags(dom, VIR_DOMAIN_SHUTDOWN_ACPI_POWER_BTN))) {
    return e->context("virDomainShutdownFlags(" + domain_name(dom) + ", ACPI_POWER_BTN)");
  }
  return {};
}

Result<void> wait_for_shutoff(virDomainPtr dom, std::chrono::milliseconds timeout) {
  if (auto evented = wait_for_shutoff_event(dom, timeout)) return *evented;
  auto deadline = Clock::now() + timeout;
  for (;;) {
    int active = virDomainIsActive(dom);
    if (active == 0) return {};
    if (auto e = failed(active)) {
      if (e->is(VIR_ERR_NO_DOMAIN)) return {};  // transient and gone
      return e->context("virDomainIsActive(" + domain_name(dom) + ")");
    }
    if (Clock::now() >= deadline) {
      return make_error(ErrorKind::guest, "domain " + domain_name(dom) + " still running after " +
                                              std::to_string(timeout.count()) + " ms");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Result<std::string> domain_xml(virDomainPtr dom, bool live) {
  unsigned flags = live ? 0 : VIR_DOMAIN_XML_INACTIVE;
  LibvirtString xml(virDomainGetXMLDesc(dom, flags));
  if (!xml) return capture_libvirt_error().context("virDomainGetXMLDesc(" + domain_name(dom) + ")");
  return std::string(xml.get());
}

Result<std::filesystem::path> find_channel_socket(std::string_view domain_xml,
                                                  std::string_view channel_name) {
  pugi::xml_document doc;
  if (!doc.load_buffer(domain_xml.data(), domain_xml.size())) {
    return make_error(ErrorKind::libvirt, "domain XML does not parse");
  }
  for (auto ch : doc.child("domain").child("devices").children("channel")) {
    if (ch.child("target").attribute("name").value() != channel_name) continue;
    if (std::string_view(ch.attribute("type").value()) != "unix") {
      return make_error(ErrorKind::libvirt, "channel '" + std::string(channel_name) +
                                                "' has type '" + ch.attribute("type").value() +
                                                "', expected 'unix'");
    }
    std::string path = ch.child("source").attribute("path").value();
    if (path.empty()) {
      return make_error(ErrorKind::libvirt, "channel '" + std::string(channel_name) +
                                                "' has no socket path (is the domain running?)");
    }
    return std::filesystem::path(path);
  }
  return make_error(ErrorKind::libvirt,
                    "domain XML has no channel named '" + std::string(channel_name) + "'");
}

}  // namespace topolab::virt
