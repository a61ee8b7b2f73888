#include "orchestrator/guest/remote/storage_pool.hpp"

#include <libvirt/virterror.h>
#include <limits.h>

#include <algorithm>
#include <pugixml.hpp>
#include <sstream>

#include "common/safe_name.hpp"
#include "common/terminal_text.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::remote {
namespace {

// Looks the pool up; nullptr (and no error) when libvirt says it does not exist.
Result<PoolPtr> lookup_pool(virConnectPtr conn, const std::string& name) {
  virStoragePoolPtr p = virStoragePoolLookupByName(conn, name.c_str());
  if (p) return PoolPtr(p);
  auto err = virt::capture_libvirt_error();
  if (err.is(VIR_ERR_NO_STORAGE_POOL)) return PoolPtr();
  return err.context("storage pool '" + name + "': lookup");
}

Result<PoolPtr> start_existing(PoolPtr pool, const std::string& name) {
  int active = virStoragePoolIsActive(pool.get());
  if (active < 0) return virt::capture_libvirt_error().context("storage pool '" + name + "'");
  if (active == 0) {
    if (auto e = virt::failed(virStoragePoolCreate(pool.get(), 0))) {
      return e->context("storage pool '" + name + "': cannot start it");
    }
  }
  // Volumes created by another client are seen only after a refresh.
  if (auto e = virt::failed(virStoragePoolRefresh(pool.get(), 0))) {
    return e->context("storage pool '" + name + "': refresh");
  }
  return pool;
}

// An existing pool of the name is used with its own path, but only if its volumes are plain
// files in a directory (redteam wave 2): a `logical` or `disk` pool named "topolab" would get
// logical volumes or partitions carved out of a host disk for a kernel upload.
Result<void> check_existing_type(virStoragePoolPtr pool, const std::string& name) {
  virt::LibvirtString xml(virStoragePoolGetXMLDesc(pool, 0));
  if (!xml) return virt::capture_libvirt_error().context("storage pool '" + name + "'");
  pugi::xml_document doc;
  doc.load_string(xml.get());
  const std::string type = doc.child("pool").attribute("type").as_string();
  if (type == "dir" || type == "fs" || type == "netfs") return {};
  return make_error(ErrorKind::input,
                    "storage pool '" + name + "' exists with type '" + type.substr(0, 40) +
                        "': topolab keeps its files only in a directory pool (dir, fs, netfs); "
                        "name another pool or undefine that one");
}

// Undoes this call's definition: nothing half-defined is left behind on failure.
void undefine_new(virStoragePoolPtr pool) {
  if (virStoragePoolIsActive(pool) == 1) virStoragePoolDestroy(pool);
  virStoragePoolUndefine(pool);
}

// "<name>-<16 lowercase hex>[.complete]": a volume or marker topolab uploads (storage_upload).
bool is_topolab_volume(std::string_view vol) {
  constexpr std::string_view kMarker = ".complete";
  if (vol.size() > kMarker.size() && vol.substr(vol.size() - kMarker.size()) == kMarker)
    vol.remove_suffix(kMarker.size());
  if (vol.size() < 18 || vol[vol.size() - 17] != '-') return false;
  return std::all_of(vol.end() - 16, vol.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// A pool this call defines must own its directory (redteam wave 3): `--pool-path /etc` (or any
// existing directory) made every file there a volume of the pool, and uploads landed among
// them. Files of an earlier topolab pool at the path are fine; anything else is refused.
Result<void> check_new_pool_is_ours(virStoragePoolPtr pool, const std::string& what) {
  virStorageVolPtr* vols = nullptr;
  const int n = virStoragePoolListAllVolumes(pool, &vols, 0);
  if (n < 0) return virt::capture_libvirt_error().context(what + ": listing its files");
  std::string foreign;
  int count = 0;
  for (int i = 0; i < n; ++i) {
    const char* name = virStorageVolGetName(vols[i]);
    if (!name || !is_topolab_volume(name)) {
      if (count++ == 0) foreign = name ? name : "?";
    }
    virStorageVolFree(vols[i]);
  }
  free(vols);  // NOLINT: libvirt allocates with malloc
  if (count == 0) return {};
  return make_error(ErrorKind::input,
                    what + ": the directory holds " + std::to_string(count) +
                        " file(s) that topolab did not put there (e.g. '" +
                        terminal_safe(foreign.substr(0, 64)) +
                        "'): a new pool needs a directory of its own; give --pool-path a new or "
                        "empty directory");
}

}  // namespace

std::string pool_spec_problem(const PoolSpec& spec) {
  if (auto p = name_problem(spec.name); !p.empty()) return "pool name: " + p;
  const std::string& path = spec.path;
  if (path.empty() || path.front() != '/') return "pool path: must be absolute, got '" + path + "'";
  if (path.size() >= PATH_MAX) return "pool path: longer than " + std::to_string(PATH_MAX - 1);
  if (has_control_chars(path)) return "pool path: holds a control character";
  std::istringstream parts(path);
  for (std::string part; std::getline(parts, part, '/');) {
    if (part == "..") return "pool path: must not contain '..'";
  }
  return "";
}

Result<std::string> pool_xml(const PoolSpec& spec) {
  if (auto p = pool_spec_problem(spec); !p.empty()) return make_error(ErrorKind::input, p);
  pugi::xml_document doc;
  auto pool = doc.append_child("pool");
  pool.append_attribute("type") = "dir";
  pool.append_child("name").text() = spec.name.c_str();
  pool.append_child("target").append_child("path").text() = spec.path.c_str();
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_indent | pugi::format_no_declaration);
  return out.str();
}

Result<PoolPtr> ensure_topolab_pool(virConnectPtr conn, const PoolSpec& spec) {
  auto xml = pool_xml(spec);
  if (!xml) return xml.error();
  auto existing = lookup_pool(conn, spec.name);
  if (!existing) return existing.error();
  if (*existing) {
    TL_TRY(check_existing_type(existing->get(), spec.name));
    return start_existing(std::move(*existing), spec.name);
  }

  const std::string what = "storage pool '" + spec.name + "' at " + spec.path;
  virStoragePoolPtr raw = virStoragePoolDefineXML(conn, xml->c_str(), 0);
  if (!raw) return virt::capture_libvirt_error().context(what + ": cannot define it");
  PoolPtr pool(raw);
  if (auto e = virt::failed(virStoragePoolBuild(pool.get(), 0))) {
    undefine_new(pool.get());
    return e->context(what + ": cannot create its directory");
  }
  if (auto e = virt::failed(virStoragePoolCreate(pool.get(), 0))) {
    undefine_new(pool.get());
    return e->context(what + ": cannot start it");
  }
  if (auto ours = check_new_pool_is_ours(pool.get(), what); !ours) {
    undefine_new(pool.get());  // the directory and its files stay as they were
    return ours.error();
  }
  return pool;
}

}  // namespace topolab::remote
