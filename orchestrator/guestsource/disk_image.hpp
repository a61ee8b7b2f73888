#pragma once
// A user's disk image, checked before topolab builds anything on it (issue 14): it must be a
// readable regular file (or block device) in a format topolab can put a qcow2 overlay on, and
// no running domain may have it open. Read through `qemu-img info -U` (argv, bounded).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/virt/libvirt_handles.hpp"

namespace topolab::guestsource {

struct DiskImage {
  std::filesystem::path path;       // canonical
  std::string format;               // "qcow2" or "raw"
  std::uint64_t size_bytes = 0;     // of the file
  std::uint64_t virtual_bytes = 0;  // of the disk the guest sees
  long long mtime_s = 0;
};

// Formats a qcow2 overlay can sit on (the backing format is named with -F).
const std::vector<std::string>& overlayable_formats();

// Missing, unreadable, not a file, or an unsupported format: one-line error naming the path.
Result<DiskImage> inspect_disk(const std::filesystem::path& path);

// Refuses a disk that a running domain has open for writing (its top-level, not read-only disk;
// a backing file of an overlay is only read).
Result<void> check_not_in_use(virConnectPtr conn, const DiskImage& disk);

}  // namespace topolab::guestsource
