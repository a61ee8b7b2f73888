#pragma once
// Under TCG, decompressing a bzImage is a large part of a boot: measured here, QEMU start to
// agent "serving" took 6.9-10.2 s with the Debian bzImage and 2.7-4.2 s with the same kernel
// uncompressed and entered through its PVH note. The image builder therefore extracts the ELF
// vmlinux once (cached with the image) and boots that; any kernel without a PVH note, or whose
// payload cannot be unpacked, is booted as the bzImage it is.
#include <string>

#include "common/result.hpp"

namespace topolab::image {

// The vmlinux inside `bzimage` (its xz, zstd or gzip payload, unpacked by the tool of that
// name, fork/exec), when it is an ELF with a PVH entry; otherwise an error saying why not.
Result<std::string> extract_pvh_vmlinux(const std::string& bzimage);

}  // namespace topolab::image
