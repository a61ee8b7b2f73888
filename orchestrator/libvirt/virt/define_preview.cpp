#include "orchestrator/libvirt/virt/define_preview.hpp"

#include <unistd.h>

#include <atomic>
#include <pugixml.hpp>
#include <sstream>

#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::domain {
namespace {

// The raw "<tag>...</tag>" text of the first such element, or "" when absent.
std::string raw_element(const std::string& xml, const std::string& tag) {
  const std::string open = "<" + tag + ">", close = "</" + tag + ">";
  auto b = xml.find(open);
  if (b == std::string::npos) return "";
  auto e = xml.find(close, b);
  return e == std::string::npos ? "" : xml.substr(b, e + close.size() - b);
}

// Replaces the first "<tag>...</tag>" of `xml` with `with` (when both exist).
void put_back(std::string& xml, const std::string& tag, const std::string& with) {
  const std::string found = raw_element(xml, tag);
  if (found.empty() || with.empty()) return;
  xml.replace(xml.find(found), found.size(), with);
}

std::string throwaway_name() {
  static std::atomic<int> n{0};
  return "topolab-preview-" + std::to_string(getpid()) + "-" + std::to_string(n++);
}

// Undefines the throw-away; NVRAM/TPM files named in it are the real domain's, so kept.
Result<void> undefine_throwaway(virDomainPtr dom, const std::string& name) {
  const unsigned keep = VIR_DOMAIN_UNDEFINE_KEEP_NVRAM | VIR_DOMAIN_UNDEFINE_KEEP_TPM |
                        VIR_DOMAIN_UNDEFINE_MANAGED_SAVE | VIR_DOMAIN_UNDEFINE_SNAPSHOTS_METADATA |
                        VIR_DOMAIN_UNDEFINE_CHECKPOINTS_METADATA;
  // Drivers without TPM/checkpoint support (test:///) refuse those flags: keep NVRAM only.
  for (unsigned flags : {keep, unsigned{VIR_DOMAIN_UNDEFINE_KEEP_NVRAM}}) {
    if (!virt::failed(virDomainUndefineFlags(dom, flags))) return {};
  }
  return virt::capture_libvirt_error().context("undefining the throw-away preview domain " + name +
                                               " (remove it with: virsh undefine --keep-nvram " +
                                               name + ")");
}

}  // namespace

Result<std::string> libvirt_normalised_definition(virConnectPtr conn, const std::string& xml) {
  pugi::xml_document doc;
  if (!doc.load_buffer(xml.data(), xml.size()))
    return make_error(ErrorKind::input, "preview: XML does not parse");
  auto domain = doc.child("domain");
  if (!domain) return make_error(ErrorKind::input, "preview: expected a <domain> root element");
  const std::string name = throwaway_name();
  domain.child("name").text().set(name.c_str());
  if (auto uuid = domain.child("uuid")) domain.remove_child(uuid);
  std::ostringstream text;
  doc.save(text, "  ");

  virt::DomainPtr dom(
      virDomainDefineXMLFlags(conn, text.str().c_str(), VIR_DOMAIN_DEFINE_VALIDATE));
  if (!dom) return virt::capture_libvirt_error().context("libvirt refuses the new definition");
  virt::LibvirtString stored(
      virDomainGetXMLDesc(dom.get(), VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE));
  auto read_error = stored ? virt::LibvirtError{} : virt::capture_libvirt_error();
  TL_TRY(undefine_throwaway(dom.get(), name));
  if (!stored) return read_error.context("reading back the preview domain " + name);

  std::string out(stored.get());
  put_back(out, "name", raw_element(xml, "name"));
  put_back(out, "uuid", raw_element(xml, "uuid"));
  return out;
}

}  // namespace topolab::domain
