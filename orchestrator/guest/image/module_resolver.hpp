#pragma once
// Resolves kernel modules and their dependencies from modules.dep into load order.
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace topolab::image {

struct ModuleFile {
  std::string name;            // normalised: "virtio_pci" (dashes become underscores)
  std::filesystem::path path;  // absolute path of the .ko / .ko.xz / ...
};

// Modules built into the kernel (listed in modules.builtin) are left out; a module that is in
// neither file is an error. Dependencies come before their users, in modprobe's order.
Result<std::vector<ModuleFile>> resolve_modules(const std::filesystem::path& modules_dir,
                                                const std::vector<std::string>& wanted);

// The uncompressed module bytes; .xz is decompressed with the xz program (common/process.hpp: no
// shell).
Result<std::string> read_module_bytes(const std::filesystem::path& path);

}  // namespace topolab::image
