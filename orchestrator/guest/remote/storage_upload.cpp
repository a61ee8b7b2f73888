#include "orchestrator/guest/remote/storage_upload.hpp"

#include <libvirt/virterror.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <pugixml.hpp>
#include <sstream>

#include "common/file_identity.hpp"
#include "common/file_io.hpp"
#include "common/safe_name.hpp"
#include "orchestrator/guest/remote/sha256.hpp"
#include "orchestrator/guest/remote/storage_handles.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::remote {
namespace {

constexpr std::size_t kHashPrefix = 16;  // 64 bits: a collision needs ~4e9 versions of one name
constexpr const char* kMarkerSuffix = ".complete";

// The volume named `name`, nullptr when libvirt says it does not exist.
Result<VolumePtr> lookup_volume(virStoragePoolPtr pool, const std::string& name) {
  virStorageVolPtr v = virStorageVolLookupByName(pool, name.c_str());
  if (v) return VolumePtr(v);
  auto err = virt::capture_libvirt_error();
  if (err.is(VIR_ERR_NO_STORAGE_VOL)) return VolumePtr();
  return err.context("volume '" + name + "': lookup");
}

std::string volume_xml(const std::string& name, std::uint64_t bytes) {
  pugi::xml_document doc;
  auto vol = doc.append_child("volume");
  vol.append_child("name").text() = name.c_str();
  auto cap = vol.append_child("capacity");
  cap.append_attribute("unit") = "bytes";
  cap.text() = static_cast<unsigned long long>(bytes);
  vol.append_child("target").append_child("format").append_attribute("type") = "raw";
  std::ostringstream out;
  doc.save(out, "", pugi::format_raw | pugi::format_no_declaration);
  return out.str();
}

Result<VolumePtr> create_volume(virStoragePoolPtr pool, const std::string& name,
                                std::uint64_t bytes) {
  virStorageVolPtr v = virStorageVolCreateXML(pool, volume_xml(name, bytes).c_str(), 0);
  if (!v) return virt::capture_libvirt_error().context("volume '" + name + "': cannot create it");
  return VolumePtr(v);
}

// Sends `content` into `vol` in bounded chunks; the stream is finished on success and aborted
// on every failure path, so libvirt never waits for bytes that will not come.
Result<void> send_content(virConnectPtr conn, virStorageVolPtr vol, const std::string& name,
                          const std::string& content) {
  virt::StreamPtr stream(virStreamNew(conn, 0));
  if (!stream) return virt::capture_libvirt_error().context("volume '" + name + "': stream");
  if (auto e = virt::failed(virStorageVolUpload(vol, stream.get(), 0, content.size(), 0))) {
    virStreamAbort(stream.get());
    return e->context("volume '" + name + "': upload");
  }
  for (std::size_t off = 0; off < content.size();) {
    std::size_t n = std::min(kUploadChunkBytes, content.size() - off);
    int sent = virStreamSend(stream.get(), content.data() + off, n);
    if (sent <= 0) {  // blocking stream: -2 cannot happen, 0 would loop forever
      auto e = virt::capture_libvirt_error();
      virStreamAbort(stream.get());
      return e.context("volume '" + name + "': sending byte " + std::to_string(off));
    }
    off += static_cast<std::size_t>(sent);
  }
  if (auto e = virt::failed(virStreamFinish(stream.get()))) {
    virStreamAbort(stream.get());
    return e->context("volume '" + name + "': finishing the upload");
  }
  return {};
}

Result<std::string> volume_path(virStorageVolPtr vol, const std::string& name) {
  virt::LibvirtString p(virStorageVolGetPath(vol));
  if (!p) return virt::capture_libvirt_error().context("volume '" + name + "': path");
  return std::string(p.get());
}

// Uploads into a fresh volume, then marks it complete; deletes the volume on any failure.
Result<VolumePtr> upload_fresh(virConnectPtr conn, virStoragePoolPtr pool, const std::string& vol,
                               const std::string& content) {
  auto created = create_volume(pool, vol, content.size());
  if (!created) return created.error();
  auto sent = send_content(conn, created->get(), vol, content);
  if (sent) {
    auto marker = create_volume(pool, vol + kMarkerSuffix, 0);
    if (marker) return std::move(*created);
    sent = marker.error();
  }
  virStorageVolDelete(created->get(), 0);
  return sent.error();
}

// Our name on something that is not a plain file (a directory, a device node, a link to one)
// was not made by topolab: it is refused, never reused or deleted.
Result<void> require_plain_file(virStorageVolPtr vol, const std::string& name,
                                virStorageVolInfo& info) {
  if (auto e = virt::failed(virStorageVolGetInfo(vol, &info)))
    return e->context("volume '" + name + "': info");
  if (info.type == VIR_STORAGE_VOL_FILE) return {};
  return make_error(ErrorKind::input, "volume '" + name +
                                          "' exists and is not a plain file: topolab does not "
                                          "reuse or delete it (remove it by hand)");
}

// Only a volume with its marker is trusted. A volume without one is an interrupted upload
// (its content is partial); a marker without its volume was left when the volume was deleted
// by hand. Either is deleted (and reset) so that the content is uploaded afresh, if it is a
// plain file (redteam wave 3: a directory of our name was removed).
Result<void> drop_unpaired(VolumePtr& vol, VolumePtr& marker, const std::string& name) {
  if (vol && !marker) {
    virStorageVolInfo info{};
    TL_TRY(require_plain_file(vol.get(), name, info));
    if (auto e = virt::failed(virStorageVolDelete(vol.get(), 0))) {
      return e->context("volume '" + name + "': deleting an incomplete upload");
    }
    vol.reset();
  } else if (!vol && marker) {
    if (auto e = virt::failed(virStorageVolDelete(marker.get(), 0))) {
      return e->context("volume '" + name + kMarkerSuffix + "': deleting a stale marker");
    }
    marker.reset();
  }
  return {};
}

// A complete volume is reused only if it can hold exactly this content (redteam wave 2): a
// plain file of the content's size. Another size means other bytes under our content-keyed
// name (a hand-made or damaged volume): it is deleted with its marker and uploaded afresh. A
// volume that is not a file (a directory, a block device) is refused, never deleted.
Result<void> check_reusable(VolumePtr& vol, VolumePtr& marker, const std::string& name,
                            std::uint64_t bytes) {
  virStorageVolInfo info{};
  TL_TRY(require_plain_file(vol.get(), name, info));
  if (info.capacity == bytes) return {};
  if (auto e = virt::failed(virStorageVolDelete(marker.get(), 0)))
    return e->context("volume '" + name + kMarkerSuffix + "': deleting a mismatched marker");
  if (auto e = virt::failed(virStorageVolDelete(vol.get(), 0)))
    return e->context("volume '" + name + "': deleting a volume of another size");
  vol.reset();
  marker.reset();
  return {};
}

// The SHA-256 of files already hashed by this process, keyed by what changes when a file is
// written or replaced (device, inode, size, mtime, ctime). Why: the kernel is ~65 MiB and
// hashing it costs ~1 s, at every boot of a run that boots the same image many times.
// Only regular files get a key; anything else goes through read_file, which refuses it.
std::string identity_key(const std::filesystem::path& file) {
  auto id = file_identity(file);
  return id && id->regular ? id->line : "";
}

struct HashMemo {
  std::mutex mu;
  std::map<std::string, std::string> by_identity;
};
HashMemo& memo() {
  static HashMemo m;
  return m;
}
std::optional<std::string> memo_get(const std::string& key) {
  if (key.empty()) return std::nullopt;
  std::lock_guard lock(memo().mu);
  auto it = memo().by_identity.find(key);
  if (it == memo().by_identity.end()) return std::nullopt;
  return it->second;
}
void memo_put(const std::string& key, const std::string& sha) {
  if (key.empty()) return;
  std::lock_guard lock(memo().mu);
  if (memo().by_identity.size() > 64) memo().by_identity.clear();  // bounded
  memo().by_identity[key] = sha;
}

}  // namespace

std::string content_volume_name(const std::string& name, const std::string& sha256) {
  return name + "-" + sha256.substr(0, kHashPrefix);
}

Result<UploadedVolume> upload_volume(virConnectPtr conn, virStoragePoolPtr pool,
                                     const std::string& name,
                                     const std::filesystem::path& local_file) {
  if (auto p = name_problem(name); !p.empty())
    return make_error(ErrorKind::input, "volume name: " + p);
  UploadedVolume out;
  std::optional<std::string> content;  // read only when hashing or sending needs it
  const std::string key = identity_key(local_file);
  if (auto known = memo_get(key)) {
    out.sha256 = *known;
  } else {
    auto read = read_file(local_file, kMaxUploadBytes);
    if (!read) return read.error();
    content = std::move(*read);
    out.sha256 = sha256_hex(*content);
    memo_put(key, out.sha256);
  }
  out.volume = content_volume_name(name, out.sha256);

  auto vol = lookup_volume(pool, out.volume);
  if (!vol) return vol.error();
  auto marker = lookup_volume(pool, out.volume + kMarkerSuffix);
  if (!marker) return marker.error();
  TL_TRY(drop_unpaired(*vol, *marker, out.volume));
  if (*vol && *marker) {
    // Without the bytes (hash remembered), the size is the file's: its identity key holds it.
    std::error_code ec;
    const std::uint64_t size =
        content ? content->size() : std::filesystem::file_size(local_file, ec);
    if (ec) return make_error(ErrorKind::io, local_file.string() + ": " + ec.message());
    TL_TRY(check_reusable(*vol, *marker, out.volume, size));
  }
  if (!*vol) {
    if (!content) {  // known hash, but the bytes are needed now: the bytes sent are hashed
      auto read = read_file(local_file, kMaxUploadBytes);
      if (!read) return read.error();
      if (sha256_hex(*read) != out.sha256) {
        return make_error(ErrorKind::io,
                          local_file.string() + ": changed while being placed; try again");
      }
      content = std::move(*read);
    }
    auto fresh = upload_fresh(conn, pool, out.volume, *content);
    if (!fresh) return fresh.error().context(local_file.string());
    *vol = std::move(*fresh);
    out.uploaded = true;
    out.bytes_sent = content->size();
  }
  auto path = volume_path(vol->get(), out.volume);
  if (!path) return path.error();
  out.path = std::move(*path);
  return out;
}

}  // namespace topolab::remote
