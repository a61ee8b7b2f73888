#pragma once
// Throw-away storage pools of the remote tests ("topolab-it-<pid>-<what>" under
// /var/lib/libvirt/, never the real `topolab`), removed on every path.
#include <libvirt/libvirt.h>

#include <string>
#include <vector>

#include "orchestrator/guest/remote/storage_handles.hpp"

namespace topolab::remote {

inline bool pool_defined(virConnectPtr conn, const std::string& name) {
  PoolPtr p(virStoragePoolLookupByName(conn, name.c_str()));
  return p != nullptr;
}

// The pool's volume names (after a refresh), empty when the pool does not exist.
inline std::vector<std::string> pool_volumes(virConnectPtr conn, const std::string& name) {
  PoolPtr pool(virStoragePoolLookupByName(conn, name.c_str()));
  std::vector<std::string> out;
  if (!pool || virStoragePoolRefresh(pool.get(), 0) < 0) return out;
  virStorageVolPtr* vols = nullptr;
  int n = virStoragePoolListAllVolumes(pool.get(), &vols, 0);
  for (int i = 0; i < n; ++i) {
    out.push_back(virStorageVolGetName(vols[i]));
    virStorageVolFree(vols[i]);
  }
  free(vols);  // NOLINT: libvirt allocates with malloc
  return out;
}

// Removes the test pool whatever state it is in: volumes, the running pool, its directory,
// its definition.
inline void remove_pool(virConnectPtr conn, const std::string& name) {
  PoolPtr pool(virStoragePoolLookupByName(conn, name.c_str()));
  if (!pool) return;
  if (virStoragePoolIsActive(pool.get()) != 1) virStoragePoolCreate(pool.get(), 0);
  virStoragePoolRefresh(pool.get(), 0);
  virStorageVolPtr* vols = nullptr;
  int n = virStoragePoolListAllVolumes(pool.get(), &vols, 0);
  for (int i = 0; i < n; ++i) {
    virStorageVolDelete(vols[i], 0);
    virStorageVolFree(vols[i]);
  }
  free(vols);  // NOLINT: libvirt allocates with malloc
  virStoragePoolDestroy(pool.get());
  virStoragePoolDelete(pool.get(), 0);
  virStoragePoolUndefine(pool.get());
}

}  // namespace topolab::remote
