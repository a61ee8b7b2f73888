#pragma once
// Uploads a local file into a storage pool as a volume through libvirt's stream API, only when
// the pool does not already hold the same bytes (issue 16: the guest image reaches a remote
// host through libvirt, not through ssh/scp of our own).
//
// The content key is the volume's name: "<name>-<first 16 hex digits of its sha256>", plus an
// empty marker volume "<that>.complete" created only after the upload finished. Why the name
// and not a sidecar file of hashes: lookup is one libvirt call (no download, no parsing, no
// read-modify-write race between two orchestrators), a changed file gets a new name, so a
// domain still running from the old volume keeps its bytes. Why the marker: a run killed
// mid-upload leaves a volume of the right name and size with partial content; without its
// marker it is deleted and uploaded again.
#include <libvirt/libvirt.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "common/result.hpp"

namespace topolab::remote {

// Kernels and initramfs are a few MiB; the whole file is held in memory so that the bytes
// hashed are the bytes sent.
inline constexpr std::size_t kMaxUploadBytes = 256u << 20;
// One virStreamSend: bounded so that memory and the remote driver's message size stay small.
inline constexpr std::size_t kUploadChunkBytes = 256u << 10;

struct UploadedVolume {
  std::string volume;  // name in the pool
  std::string path;    // the volume's path on the pool's host (for <kernel>/<initrd>)
  std::string sha256;  // of the content
  bool uploaded = false;
  std::uint64_t bytes_sent = 0;  // 0 when the pool already held the content
};

// "<name>-<sha256 prefix>": the name under which content with this hash is kept.
std::string content_volume_name(const std::string& name, const std::string& sha256);

// Reads `local_file` (regular file only, at most kMaxUploadBytes, common/file_io) and returns
// the volume holding its bytes in `pool`, uploading them only when no complete volume with
// this content exists. The hash is remembered per process for an unchanged file (inode, size,
// mtime, ctime), so later calls read the file only when its bytes must be sent (and then check
// them against that hash). `name` must be a safe name (common/safe_name). On failure nothing is
// left: the stream is aborted and a volume created by this call deleted.
Result<UploadedVolume> upload_volume(virConnectPtr conn, virStoragePoolPtr pool,
                                     const std::string& name,
                                     const std::filesystem::path& local_file);

}  // namespace topolab::remote
