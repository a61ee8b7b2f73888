#pragma once
// Prepares a user's disk image for one boot (issue 14): checks the disk (disk_image.hpp),
// removes dead runs' overlays, puts a qcow2 overlay over it and writes the base domain XML
// (templates/domains/<os>-disk.xml with the overlay as its disk) that the session's domain
// writer patches as for the built-in guest. The user's image is never opened for writing.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/libvirt/guestsource/disk_image.hpp"
#include "orchestrator/libvirt/guestsource/guest_source.hpp"
#include "orchestrator/libvirt/guestsource/overlay.hpp"

namespace topolab::guestsource {

// Everything one boot of a disk guest owns. Keep it alive until the domain is gone (declare it
// before the session): its destructor deletes the overlays and the base XML.
struct PreparedDisk {
  std::vector<OwnedFile> overlays;  // and owned copies (a template's NVRAM)
  std::optional<OwnedFile> base_template;
  DiskImage disk;  // kDisk: the user's image
  // For the store and reports: {kind: disk, path, format, size_bytes, mtime} or
  // {kind: domain, name, uuid, disks: [...]}.
  nlohmann::json source;
  std::string template_domain;  // kDomain: the template's name (the copy's metadata names it)
  const nlohmann::json& identity() const { return source; }
};

// The user's disk, checked: readable, overlayable format, not open in a running domain; from a
// file (GuestSource::from_file) a disk image file, never a host block device.
Result<DiskImage> check_disk(const std::string& connect_uri, const std::filesystem::path& disk,
                             bool from_file = false);

// The base XML for `os` with every writable disk replaced by an overlay of `disk`.
Result<PreparedDisk> prepare_disk(const std::string& connect_uri, const GuestSource& source,
                                  const std::string& run_id,
                                  const std::filesystem::path& overlay_dir = kOverlayDir);

// {path, format, size_bytes, mtime} of a checked disk.
nlohmann::json disk_identity(const DiskImage&);

// An existing libvirt domain as the template (domain_guest.cpp): refused while it runs (its
// disks are open read-write, its hostdevs busy); its inactive XML, every device kept, every
// writable disk overlaid, its NVRAM copied. The template's definition is only read.
Result<PreparedDisk> prepare_template_domain(
    const std::string& connect_uri, const std::string& name, const std::string& run_id,
    const std::filesystem::path& overlay_dir = kOverlayDir);

// kDisk or kDomain: the prepared base XML and what it owns.
Result<PreparedDisk> prepare_guest(const std::string& connect_uri, const GuestSource& source,
                                   const std::string& run_id,
                                   const std::filesystem::path& overlay_dir = kOverlayDir);

// Rewrites a domain XML's writable file disks to overlays created in overlay_dir (read-only,
// shareable and non-disk devices are kept as they are); `user_disk` replaces the source of the
// template's first disk first. Exposed for the template-domain path and tests.
Result<std::string> overlay_disks(const std::string& xml, const DiskImage* user_disk,
                                  const std::string& run_id,
                                  const std::filesystem::path& overlay_dir,
                                  std::vector<OwnedFile>& overlays,
                                  std::vector<DiskImage>* backings = nullptr);

}  // namespace topolab::guestsource
