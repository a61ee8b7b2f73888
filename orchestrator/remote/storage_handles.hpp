#pragma once
// RAII owners for libvirt's storage handles (pools, volumes, streams), next to the connection
// and domain owners of virt/libvirt_handles.hpp.
#include <libvirt/libvirt.h>

#include <memory>

namespace topolab::remote {

struct PoolDeleter {
  void operator()(virStoragePoolPtr p) const noexcept { virStoragePoolFree(p); }
};
struct VolumeDeleter {
  void operator()(virStorageVolPtr v) const noexcept { virStorageVolFree(v); }
};
struct StreamDeleter {
  void operator()(virStreamPtr s) const noexcept { virStreamFree(s); }
};

using PoolPtr = std::unique_ptr<virStoragePool, PoolDeleter>;
using VolumePtr = std::unique_ptr<virStorageVol, VolumeDeleter>;
using StreamPtr = std::unique_ptr<virStream, StreamDeleter>;

}  // namespace topolab::remote
