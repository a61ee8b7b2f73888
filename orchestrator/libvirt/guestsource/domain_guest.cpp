// An existing libvirt domain used as the template of a throw-away copy (issue 14).
#include <pugixml.hpp>
#include <sstream>

#include "common/file_io.hpp"
#include "orchestrator/libvirt/guestsource/disk_guest.hpp"
#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::guestsource {
namespace {

// UEFI variables live in the template's NVRAM file: the copy gets its own copy of it, so the
// guest's writes (boot entries) never reach the template's.
Result<std::string> copy_nvram(const std::string& xml, const std::string& run_id,
                               const std::filesystem::path& overlay_dir,
                               std::vector<OwnedFile>& owned) {
  pugi::xml_document doc;
  if (!doc.load_string(xml.c_str(), pugi::parse_default | pugi::parse_comments))
    return make_error(ErrorKind::input, "domain XML: not parseable");
  auto nvram = doc.child("domain").child("os").child("nvram");
  if (!nvram) return xml;
  std::string from = nvram.text().as_string();
  if (from.empty()) {  // libvirt would create one from the template: a fresh one is fine
    return xml;
  }
  OwnedFile copy(overlay_dir / overlay_file_name(run_id, 0, ".nvram"));
  std::error_code ec;
  std::filesystem::copy_file(from, copy.path(), std::filesystem::copy_options::overwrite_existing,
                             ec);
  if (ec) return make_error(ErrorKind::io, "NVRAM " + from + ": cannot copy it: " + ec.message());
  nvram.text().set(copy.path().c_str());
  owned.push_back(std::move(copy));
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_raw | pugi::format_no_declaration);
  return out.str();
}

// An emulated TPM's state is bound to the domain's UUID (libvirt keeps it under
// /var/lib/libvirt/swtpm/UUID/), and the copy gets a new UUID: it would boot with an empty TPM
// (BitLocker asks for its recovery key, Windows activation may change). Refused before anything
// is created rather than booted with a TPM that silently is not the template's (issue 34).
Result<void> refuse_emulated_tpm(const std::string& xml, const std::string& name) {
  pugi::xml_document doc;
  if (!doc.load_string(xml.c_str()))
    return make_error(ErrorKind::input, "domain XML: not parseable");
  for (auto tpm : doc.child("domain").child("devices").children("tpm")) {
    if (std::string(tpm.child("backend").attribute("type").as_string()) != "emulator") continue;
    return make_error(ErrorKind::input,
                      "template domain '" + name +
                          "' has an emulated TPM (<tpm><backend type='emulator'>): its state is "
                          "bound to the template's UUID and a copy gets a new one, so the copy "
                          "would start with an empty TPM (BitLocker recovery, activation); "
                          "experiment on a clone without the TPM (virt-clone, then remove <tpm> "
                          "with virsh edit) or suspend BitLocker and boot the VM itself");
  }
  return {};
}

}  // namespace

Result<PreparedDisk> prepare_template_domain(const std::string& connect_uri,
                                             const std::string& name, const std::string& run_id,
                                             const std::filesystem::path& overlay_dir) {
  clean_stale_overlays(overlay_dir);
  auto conn = virt::open_connection(connect_uri);
  if (!conn) return conn.error();
  auto dom = virt::lookup_domain(conn->get(), name);
  if (!dom) return dom.error().context("template domain '" + name + "'");
  int active = virDomainIsActive(dom->get());
  if (active != 0) {
    return make_error(ErrorKind::input,
                      "template domain '" + name +
                          "' is running: its disks are open read-write and its host devices busy; "
                          "shut it down first (topolab only reads its definition)");
  }
  // The persistent definition, secrets included (a VNC password is part of the copy).
  char* raw = virDomainGetXMLDesc(dom->get(), VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE);
  if (!raw) return virt::capture_libvirt_error().context("XML of template domain '" + name + "'");
  std::string xml(raw);
  free(raw);  // NOLINT: libvirt allocates with malloc
  char uuid[VIR_UUID_STRING_BUFLEN] = {};
  virDomainGetUUIDString(dom->get(), uuid);
  TL_TRY(refuse_emulated_tpm(xml, name));

  PreparedDisk out;
  std::vector<DiskImage> backings;
  auto overlaid = overlay_disks(xml, nullptr, run_id, overlay_dir, out.overlays, &backings);
  if (!overlaid) return overlaid.error().context("template domain '" + name + "'");
  // Every backing disk must be free: another running domain may have it open.
  for (const auto& b : backings) TL_TRY(check_not_in_use(conn->get(), b));
  auto with_nvram = copy_nvram(*overlaid, run_id, overlay_dir, out.overlays);
  if (!with_nvram) return with_nvram.error().context("template domain '" + name + "'");
  OwnedFile file(overlay_dir / overlay_file_name(run_id, 0, ".xml"));
  TL_TRY(write_file_atomic(file.path(), *with_nvram, 0600));
  out.base_template.emplace(std::move(file));
  nlohmann::json disks = nlohmann::json::array();
  for (const auto& b : backings) disks.push_back(disk_identity(b));
  out.source = {{"kind", "domain"}, {"name", name}, {"uuid", uuid}, {"disks", disks}};
  out.template_domain = name;
  return out;
}

}  // namespace topolab::guestsource
