#pragma once
// What the image builder must know about the agent binary before it becomes /init.
#include <string>
#include <string_view>

namespace topolab::image {

// The PT_INTERP path of an ELF64 little-endian executable ("" when it has none, i.e. it is
// static, or when the bytes are not such an ELF: the caller checks the magic itself).
// Bounds-checked: headers pointing outside `elf` are ignored.
std::string elf_interpreter(std::string_view elf);

// True when the ELF64 has a Xen PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY), which QEMU's -kernel
// uses to enter an uncompressed vmlinux directly.
bool elf_has_pvh_entry(std::string_view elf);

}  // namespace topolab::image
