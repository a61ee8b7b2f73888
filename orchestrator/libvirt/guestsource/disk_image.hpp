#pragma once
// A user's disk image, checked before topolab builds anything on it (issue 14): it must be a
// readable regular file (or block device) in a format topolab can put a qcow2 overlay on, and
// no running domain may have it open. Read through `qemu-img info -U` (argv, bounded).
//
// Hostile images (redteam wave 2): the file is opened once without blocking (a FIFO, a socket,
// a /proc or /sys file, a mounted block device are refused), the path checked is the file that
// was opened (symlinks resolved through the open descriptor), and it must still be that file
// after qemu-img has read it. qemu-img's verdict is then validated in one place
// (check_image_info): a backing chain, an external data file, encryption, a corrupt flag or a
// virtual size of 0 or over kMaxVirtualBytes is refused, because the overlay would read (and
// libvirt relabel) files beyond the one the user named, or could not work at all.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/libvirt/guestsource/disk_info.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::guestsource {

// Missing, unreadable, not a file, or an unsupported format: one-line error naming the path.
Result<DiskImage> inspect_disk(const std::filesystem::path& path);

// Refuses a disk that a running domain has open for writing (its top-level, not read-only disk;
// a backing file of an overlay is only read).
Result<void> check_not_in_use(virConnectPtr conn, const DiskImage& disk);

}  // namespace topolab::guestsource
