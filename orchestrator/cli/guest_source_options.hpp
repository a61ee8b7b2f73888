#pragma once
// `--disk PATH [--os linux|windows]`, for `boot` (issue 14): boot the user's own disk image
// through a throw-away qcow2 overlay instead of the built-in image (guestsource/).
#include <CLI/CLI.hpp>
#include <string>

#include "orchestrator/guestsource/guest_source.hpp"

namespace topolab::cli {

struct GuestSourceArgs {
  std::string disk;
  std::string os = "linux";
};

inline void add_guest_source_options(CLI::App* cmd, GuestSourceArgs& args) {
  cmd->add_option("--disk", args.disk,
                  "boot this disk image (qcow2/raw, agent installed) through a throw-away "
                  "overlay; the image is never written")
      ->type_name("PATH");
  cmd->add_option("--os", args.os, "the disk's OS (base template): linux | windows")
      ->check(CLI::IsMember({"linux", "windows"}));
}

inline guestsource::GuestSource to_guest_source(const GuestSourceArgs& args) {
  guestsource::GuestSource s;
  if (!args.disk.empty()) {
    s.kind = guestsource::GuestKind::kDisk;
    s.disk = args.disk;
    s.os = args.os;
  }
  return s;
}

}  // namespace topolab::cli
