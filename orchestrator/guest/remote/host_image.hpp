#pragma once
// The built-in guest image as a host sees it (issue 16 item 3): the decision, made once per
// connection, between the local image cache (this machine's libvirtd) and volumes in the
// host's `topolab` pool (any remote connection, virt/connection_uri.hpp). A session, or a
// per-host worker that boots many guests on one host, resolves it once and boots from
// HostImage::image, whose kernel/initrd are paths on that host.
#include <libvirt/libvirt.h>

#include <cstdint>
#include <string>

#include "common/result.hpp"
#include "orchestrator/guest/image/guest_image.hpp"
#include "orchestrator/guest/remote/storage_pool.hpp"

namespace topolab::remote {

// Volume names in the pool: "<name>-<sha256 prefix>" (storage_upload.hpp).
inline constexpr const char* kKernelVolume = "topolab-kernel";
inline constexpr const char* kInitrdVolume = "topolab-initrd";

struct HostImage {
  std::string uri;      // the connection it was resolved for (virConnectGetURI)
  bool remote = false;  // false: `image` is the local image unchanged
  GuestImage image;     // kernel/initrd: paths on that host
  std::string pool;     // the pool used (remote only)
  int uploaded = 0;     // volumes uploaded by this call (0: the pool held both already)
  std::uint64_t bytes_sent = 0;
  int old_versions_removed = 0;  // older kernel/initrd volumes deleted after an upload
};

// Local connection: `image` as it is. Remote: ensures the pool (created when missing), uploads
// kernel and initramfs only when the pool has no complete volume with their content, asks
// libvirt for the volumes' paths, and after an upload deletes older versions of the same
// volume (our name pattern with their marker only). Fails with one line naming the URI.
Result<HostImage> place_image_on_host(virConnectPtr conn, const GuestImage& image,
                                      const PoolSpec& pool = {});

}  // namespace topolab::remote
