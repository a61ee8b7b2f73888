#pragma once
// Throw-away qcow2 overlays over a user's disk (issue 14): the guest writes to the overlay, the
// user's image is only ever the read-only backing file. One file per overlaid disk, named
//   ov-<pid>-<process start time>-<run id>-<n>.qcow2  in kOverlayDir,
// so the next run can tell a dead run's leftovers (SIGKILL) from a live run's overlays, the same
// rule as stale topolab- domains (virt/stale_domains.hpp).
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/libvirt/guestsource/disk_image.hpp"

namespace topolab::guestsource {

inline const std::filesystem::path kOverlayDir = "/var/lib/topolab/overlays";

// Owns one file (an overlay, its domain template): the destructor deletes it. Declare it
// before the domain using it, so the domain is gone first. The file is also recorded in the
// process-wide DomainRegistry (SIGINT/SIGTERM handlers installed), whose interrupt path
// deletes it after the domains; registered() is false after an interrupt: do not create it.
class OwnedFile {
 public:
  explicit OwnedFile(std::filesystem::path p);
  OwnedFile(OwnedFile&& o) noexcept : path_(std::move(o.path_)), registered_(o.registered_) {
    o.path_.clear();
  }
  OwnedFile& operator=(OwnedFile&& o) noexcept;
  OwnedFile(const OwnedFile&) = delete;
  OwnedFile& operator=(const OwnedFile&) = delete;
  ~OwnedFile();

  const std::filesystem::path& path() const { return path_; }
  bool registered() const { return registered_; }

 private:
  void remove();
  std::filesystem::path path_;
  bool registered_ = false;
};

// qemu-img create -f qcow2 -b DISK -F FORMAT <dir>/ov-...qcow2 (argv, no shell).
Result<OwnedFile> create_overlay(const DiskImage& backing, const std::string& run_id, int index,
                                 const std::filesystem::path& dir = kOverlayDir);

// The overlay file name (".qcow2" or another suffix) for this process (exposed for tests).
std::string overlay_file_name(const std::string& run_id, int index,
                              const std::string& suffix = ".qcow2");
// Deletes overlays (and their templates) in `dir` whose creating process is gone; returns the files
// removed.
std::vector<std::filesystem::path> cleanup_stale_overlays(
    const std::filesystem::path& dir = kOverlayDir);
// cleanup_stale_overlays, each removal said on the log (info): the user sees what went.
void clean_stale_overlays(const std::filesystem::path& dir);

}  // namespace topolab::guestsource
