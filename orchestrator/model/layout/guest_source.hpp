#pragma once
// Where a guest comes from (issue 14): the built-in initramfs image (default), the user's disk
// image booted through templates/domains/<os>-disk.xml, or an existing (shut off) libvirt
// domain used as a template. Given on the command line (`--disk PATH --os linux`) or in a layout
// or experiment file's [guest] table (experiment/guest_table.hpp). A model type (issue 28): the
// parsed experiment holds one without reaching into the libvirt stage, which prepares it
// (libvirt/guestsource/).
#include <filesystem>
#include <string>

#include "orchestrator/model/layout/guest_os.hpp"

namespace topolab {

enum class GuestKind { kBuiltin, kDisk, kDomain };

struct GuestSource {
  GuestKind kind = GuestKind::kBuiltin;
  std::filesystem::path disk;    // kDisk
  GuestOs os = GuestOs::kLinux;  // kDisk only: picks the base template <os>-disk.xml
  std::string domain;            // kDomain: the template domain's name
  // Named by a file's [guest] table (files are shared; redteam wave 3): its disk must be a
  // disk image file. A host block device is the user's own choice, on the command line.
  bool from_file = false;
  bool builtin() const { return kind == GuestKind::kBuiltin; }
};

}  // namespace topolab
