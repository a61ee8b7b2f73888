#include "orchestrator/guest/remote/host_image.hpp"

#include <cctype>

#include "orchestrator/base/logging/log.hpp"
#include "orchestrator/guest/remote/storage_handles.hpp"
#include "orchestrator/guest/remote/storage_upload.hpp"
#include "orchestrator/libvirt/virt/connection_uri.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::remote {
namespace {

constexpr std::size_t kHashHex = 16;  // content_volume_name's prefix length
constexpr std::string_view kMarker = ".complete";

struct VolumeList {
  virStorageVolPtr* vols = nullptr;
  int n = 0;
  ~VolumeList() {
    for (int i = 0; i < n; ++i) virStorageVolFree(vols[i]);
    free(vols);  // NOLINT: libvirt allocates with malloc
  }
};

// "<name>-<16 lowercase hex>": a version of `name` this code uploaded.
bool is_version_of(std::string_view vol, std::string_view name) {
  if (vol.size() != name.size() + 1 + kHashHex || vol.substr(0, name.size()) != name ||
      vol[name.size()] != '-') {
    return false;
  }
  for (char c : vol.substr(name.size() + 1)) {
    if (!std::isxdigit(static_cast<unsigned char>(c)) ||
        std::isupper(static_cast<unsigned char>(c)))
      return false;
  }
  return true;
}

// Deletes the other complete versions of `name` (volume and marker); a volume without its
// marker may be another orchestrator's upload in flight and is left alone. Best effort: a
// failure is logged, the boot goes on.
int remove_old_versions(virStoragePoolPtr pool, const std::string& name, const std::string& keep) {
  VolumeList list;
  list.n = virStoragePoolListAllVolumes(pool, &list.vols, 0);
  if (list.n < 0) {
    list.n = 0;
    logging::warn("pool: listing volumes: {}", virt::capture_libvirt_error().message);
    return 0;
  }
  int removed = 0;
  for (int i = 0; i < list.n; ++i) {
    const char* raw = virStorageVolGetName(list.vols[i]);
    std::string vol = raw ? raw : "";
    if (vol == keep || !is_version_of(vol, name)) continue;
    VolumePtr marker(virStorageVolLookupByName(pool, (vol + std::string(kMarker)).c_str()));
    if (!marker) continue;
    if (auto e = virt::failed(virStorageVolDelete(list.vols[i], 0))) {
      logging::warn("pool: deleting old volume {}: {}", vol, e->message);
      continue;
    }
    (void)virStorageVolDelete(marker.get(), 0);
    ++removed;
    logging::debug("pool: deleted old volume {}", vol);
  }
  return removed;
}

Result<std::string> place_file(virConnectPtr conn, virStoragePoolPtr pool, const char* name,
                               const std::filesystem::path& file, HostImage& out) {
  auto up = upload_volume(conn, pool, name, file);
  if (!up) return up.error();
  if (up->uploaded) {
    ++out.uploaded;
    out.bytes_sent += up->bytes_sent;
    out.old_versions_removed += remove_old_versions(pool, name, up->volume);
  }
  return up->path;
}

}  // namespace

Result<HostImage> place_image_on_host(virConnectPtr conn, const GuestImage& image,
                                      const PoolSpec& pool_spec) {
  HostImage out;
  out.image = image;
  virt::LibvirtString uri(virConnectGetURI(conn));
  if (!uri) return virt::capture_libvirt_error().context("virConnectGetURI");
  out.uri = uri.get();
  auto parsed = virt::parse_connection_uri(out.uri);
  if (!parsed) return parsed.error();
  out.remote = parsed->remote;
  if (!out.remote || image.kernel.empty()) return out;  // local cache, or no direct boot

  const std::string where = "guest image on " + out.uri;
  auto pool = ensure_topolab_pool(conn, pool_spec);
  if (!pool) return pool.error().context(where);
  out.pool = pool_spec.name;
  auto kernel = place_file(conn, pool->get(), kKernelVolume, image.kernel, out);
  if (!kernel) return kernel.error().context(where + ": kernel");
  auto initrd = place_file(conn, pool->get(), kInitrdVolume, image.initrd, out);
  if (!initrd) return initrd.error().context(where + ": initramfs");
  out.image.kernel = *kernel;
  out.image.initrd = *initrd;
  if (out.uploaded > 0) {
    logging::info("{}: uploaded {} volume(s), {} bytes, into pool {}", where, out.uploaded,
                  out.bytes_sent, out.pool);
  } else {
    logging::debug("{}: pool {} holds kernel and initramfs already", where, out.pool);
  }
  return out;
}

}  // namespace topolab::remote
