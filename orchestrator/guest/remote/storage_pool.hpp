#pragma once
// The `topolab` directory storage pool on a host (issue 16): where the guest image's kernel
// and initramfs live on a host reached through a libvirt connection (docs/multi-host.md).
#include <libvirt/libvirt.h>

#include <string>

#include "common/result.hpp"
#include "orchestrator/guest/remote/storage_handles.hpp"

namespace topolab::remote {

inline constexpr const char* kDefaultPoolName = "topolab";
inline constexpr const char* kDefaultPoolPath = "/var/lib/libvirt/topolab";

struct PoolSpec {
  std::string name = kDefaultPoolName;
  std::string path = kDefaultPoolPath;  // on the host the connection reaches
};

// The <pool type='dir'> definition; the spec must have passed check_pool_spec.
Result<std::string> pool_xml(const PoolSpec& spec);

// "" when the name is a safe name and the path absolute, without "..", control characters,
// within PATH_MAX; otherwise what is wrong.
std::string pool_spec_problem(const PoolSpec& spec);

// The pool named spec.name, active and refreshed. When it is missing it is defined (persistent),
// built (its directory created) and started through libvirt's storage API; a failure of any
// step undefines what this call defined and returns one line naming the pool, the path and
// libvirt's reason. A pool it defines on a directory holding files topolab did not upload
// (`--pool-path /etc`) is undefined again and refused; the files are left alone. An existing pool
// is used as it is (its own path), started when inactive, if it is a directory pool (dir, fs,
// netfs); another type is refused before it is started.
Result<PoolPtr> ensure_topolab_pool(virConnectPtr conn, const PoolSpec& spec = {});

}  // namespace topolab::remote
