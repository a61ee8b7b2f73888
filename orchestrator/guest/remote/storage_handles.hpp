#pragma once
// RAII owners for libvirt's storage handles (pools, volumes), next to the connection, domain
// and stream owners of virt/libvirt_handles.hpp (an upload's stream is a virt::StreamPtr).
#include <libvirt/libvirt.h>

#include <memory>

namespace topolab::remote {

struct PoolDeleter {
  void operator()(virStoragePoolPtr p) const noexcept { virStoragePoolFree(p); }
};
struct VolumeDeleter {
  void operator()(virStorageVolPtr v) const noexcept { virStorageVolFree(v); }
};

using PoolPtr = std::unique_ptr<virStoragePool, PoolDeleter>;
using VolumePtr = std::unique_ptr<virStorageVol, VolumeDeleter>;

}  // namespace topolab::remote
