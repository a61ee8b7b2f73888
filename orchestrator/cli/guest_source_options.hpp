#pragma once
// `--disk PATH [--os linux|windows]` | `--domain NAME`, for `boot` (issue 14): boot the user's
// own disk image, or a throw-away copy of an existing (shut off) domain, through qcow2 overlays
// instead of the built-in image (guestsource/).
#include <CLI/CLI.hpp>
#include <string>

#include "orchestrator/libvirt/guestsource/guest_source.hpp"

namespace topolab::cli {

struct GuestSourceArgs {
  std::string disk;
  std::string os = "linux";
  std::string domain;
};

inline void add_guest_source_options(CLI::App* cmd, GuestSourceArgs& args) {
  cmd->add_option("--disk", args.disk,
                  "boot this disk image (qcow2/raw, agent installed) through a throw-away "
                  "overlay; the image is never written")
      ->type_name("PATH");
  // Only a disk has no definition to say its OS: --os without --disk (alone, or with --domain,
  // whose OS is its own definition) was ignored silently (issue 32).
  std::string names;
  for (const auto& n : guest_os_names()) names += (names.empty() ? "" : " | ") + n;
  cmd->add_option("--os", args.os, "the disk's OS (base template): " + names + "; needs --disk")
      ->check(CLI::IsMember(guest_os_names()))
      ->needs("--disk");
  cmd->add_option("--domain", args.domain,
                  "boot a throw-away copy of this shut-off libvirt domain (every device kept, "
                  "disks overlaid, its definition only read)")
      ->type_name("NAME")
      ->excludes("--disk");
}

inline GuestSource to_guest_source(const GuestSourceArgs& args) {
  GuestSource s;
  if (!args.disk.empty()) {
    s.kind = GuestKind::kDisk;
    s.disk = args.disk;
    s.os = find_guest_os(args.os).value_or(GuestOs::kLinux);  // IsMember checked it
  } else if (!args.domain.empty()) {
    s.kind = GuestKind::kDomain;
    s.domain = args.domain;
  }
  return s;
}

}  // namespace topolab::cli
