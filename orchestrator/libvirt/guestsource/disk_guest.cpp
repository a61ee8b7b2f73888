#include "orchestrator/libvirt/guestsource/disk_guest.hpp"

#include <pugixml.hpp>
#include <sstream>

#include "common/file_io.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"
#include "orchestrator/libvirt/virt/run_identity.hpp"
#include "orchestrator/planning/domain/domain_xml_writer.hpp"

namespace topolab::guestsource {
namespace {

// A template with more writable disks than this is not a topology experiment's guest: one
// overlay (and one qemu-img run) per disk stays bounded.
constexpr int kMaxOverlaidDisks = 32;

std::string disk_label(pugi::xml_node disk) {
  std::string dev = disk.child("target").attribute("dev").as_string();
  return "disk " + (dev.empty() ? std::string("(no target)") : dev.substr(0, 40));
}

// True for a disk kept as it is: read-only or a CD-ROM, which the copy cannot write. A writable
// shareable disk or LUN would be written in place (the copy's writes reaching the template's
// data, redteam wave 2): refused, as is a device kind topolab does not know.
Result<bool> passed_through(pugi::xml_node disk) {
  std::string device = disk.attribute("device").as_string("disk");
  if (disk.child("readonly") || device == "cdrom") return true;
  if (disk.child("shareable"))
    return make_error(ErrorKind::input,
                      disk_label(disk) +
                          ": shareable and writable: the copy would write into the template's disk "
                          "(mark it <readonly/> or detach it)");
  if (device != "disk" && device != "floppy")
    return make_error(ErrorKind::input,
                      disk_label(disk) + ": device '" + device.substr(0, 40) +
                          "' is written in place and cannot be overlaid (mark it <readonly/> or "
                          "detach it)");
  return false;
}

Result<DiskImage> backing_of(pugi::xml_node disk) {
  std::string type = disk.attribute("type").as_string("file");
  auto src = disk.child("source");
  const char* attr = type == "file" ? "file" : type == "block" ? "dev" : nullptr;
  if (!attr) {
    return make_error(ErrorKind::input,
                      disk_label(disk) + ": type '" + type.substr(0, 40) +
                          "' cannot be overlaid by topolab (file and block disks can)");
  }
  std::string path = src.attribute(attr).as_string();
  if (path.empty()) return make_error(ErrorKind::input, disk_label(disk) + ": no source " + attr);
  return inspect_disk(path);
}

// The backing chain named explicitly, with DAC relabelling off for the user's image: libvirt
// chowns a backing file to the qemu user at start and does not give it back (measured: the
// image stayed libvirt-qemu-owned after the run). The overlay itself is still relabelled.
void write_backing_store(pugi::xml_node disk, const DiskImage& backing) {
  auto store = disk.append_child("backingStore");
  store.append_attribute("type").set_value("file");
  store.append_child("format").append_attribute("type").set_value(backing.format.c_str());
  auto src = store.append_child("source");
  src.append_attribute("file").set_value(backing.path.c_str());
  auto label = src.append_child("seclabel");
  label.append_attribute("model").set_value("dac");
  label.append_attribute("relabel").set_value("no");
}

// The disk now reads from `overlay` (qcow2) and writes only there.
void point_at_overlay(pugi::xml_node disk, const std::filesystem::path& overlay,
                      const DiskImage& backing) {
  disk.attribute("type") ? disk.attribute("type").set_value("file")
                         : disk.append_attribute("type").set_value("file");
  auto src = disk.child("source");
  if (!src) src = disk.prepend_child("source");
  while (src.first_attribute()) src.remove_attribute(src.first_attribute());
  src.append_attribute("file").set_value(overlay.c_str());
  auto driver = disk.child("driver");
  if (!driver) {
    driver = disk.prepend_child("driver");
    driver.append_attribute("name").set_value("qemu");
  }
  driver.attribute("type") ? driver.attribute("type").set_value("qcow2")
                           : driver.append_attribute("type").set_value("qcow2");
  while (auto b = disk.child("backingStore")) disk.remove_child(b);
  write_backing_store(disk, backing);
}

}  // namespace

nlohmann::json disk_identity(const DiskImage& disk) {
  return {{"path", disk.path.string()},
          {"format", disk.format},
          {"size_bytes", disk.size_bytes},
          {"mtime", disk.mtime_s}};
}

Result<DiskImage> check_disk(const std::string& connect_uri, const std::filesystem::path& disk,
                             bool from_file) {
  TL_ASSIGN(DiskImage image, inspect_disk(disk));
  if (from_file && image.block_device)
    return make_error(ErrorKind::input,
                      "disk " + disk.string() +
                          ": a host block device: not accepted from a file (the guest would "
                          "read the host's disk); give it with --disk if you mean it");
  TL_ASSIGN(const auto conn, virt::open_connection(connect_uri));
  TL_TRY(check_not_in_use(conn.get(), image));
  return image;
}

Result<std::string> overlay_disks(const std::string& xml, const DiskImage* user_disk,
                                  const std::string& run_id,
                                  const std::filesystem::path& overlay_dir,
                                  std::vector<OwnedFile>& overlays,
                                  std::vector<DiskImage>* backings) {
  pugi::xml_document doc;
  if (!doc.load_string(xml.c_str(), pugi::parse_default | pugi::parse_comments))
    return make_error(ErrorKind::input, "domain XML: not parseable");
  bool first = true;
  for (auto disk : doc.child("domain").child("devices").children("disk")) {
    TL_ASSIGN(const bool kept, passed_through(disk));
    if (kept) continue;
    if (static_cast<int>(overlays.size()) >= kMaxOverlaidDisks)
      return make_error(ErrorKind::input,
                        "more than " + std::to_string(kMaxOverlaidDisks) +
                            " writable disks: topolab overlays at most that many");
    DiskImage backing;
    if (first && user_disk) {
      backing = *user_disk;
    } else {
      TL_ASSIGN(backing, backing_of(disk));
    }
    first = false;
    auto overlay = create_overlay(backing, run_id, static_cast<int>(overlays.size()), overlay_dir);
    if (!overlay) return overlay.error().context(disk_label(disk));
    point_at_overlay(disk, overlay->path(), backing);
    if (backings) backings->push_back(backing);
    overlays.push_back(std::move(overlay).value());
  }
  if (first && user_disk)
    return make_error(ErrorKind::input, "domain template has no writable disk to boot from");
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_raw | pugi::format_no_declaration);
  return out.str();
}

Result<PreparedDisk> prepare_guest(const std::string& connect_uri, const GuestSource& source,
                                   const std::string& run_id,
                                   const std::filesystem::path& overlay_dir) {
  // The run id names the overlay files: checked before anything is named after it.
  if (auto problem = virt::run_id_problem(run_id); !problem.empty())
    return make_error(ErrorKind::input, problem);
  if (source.kind == GuestKind::kDomain)
    return prepare_template_domain(connect_uri, source.domain, run_id, overlay_dir);
  return prepare_disk(connect_uri, source, run_id, overlay_dir);
}

Result<PreparedDisk> prepare_disk(const std::string& connect_uri, const GuestSource& source,
                                  const std::string& run_id,
                                  const std::filesystem::path& overlay_dir) {
  clean_stale_overlays(overlay_dir);
  PreparedDisk out;
  TL_ASSIGN(out.disk, check_disk(connect_uri, source.disk, source.from_file));
  const std::string os(to_string(source.os));
  const auto base = templates_dir() / "domains" / (os + "-disk.xml");
  TL_ASSIGN(const std::string text, read_file(base, 4u << 20));
  TL_ASSIGN_CTX(const std::string xml,
                overlay_disks(text, &out.disk, run_id, overlay_dir, out.overlays), base.string());
  // The base XML sits beside its overlay, named like it, so stale cleanup removes it too.
  OwnedFile file(overlay_dir / overlay_file_name(run_id, 0, ".xml"));
  TL_TRY(write_file_atomic(file.path(), xml, 0600));
  out.base_template.emplace(std::move(file));
  out.source = disk_identity(out.disk);
  out.source["kind"] = "disk";
  out.source["os"] = os;
  return out;
}

}  // namespace topolab::guestsource
