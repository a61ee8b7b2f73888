#include "orchestrator/image/elf_probe.hpp"

#include <elf.h>

#include <cstdint>
#include <cstring>

namespace topolab::image {

std::string elf_interpreter(std::string_view elf) {
  Elf64_Ehdr eh;
  if (elf.size() < sizeof eh) return "";
  std::memcpy(&eh, elf.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_phentsize != sizeof(Elf64_Phdr))
    return "";
  for (std::size_t i = 0; i < eh.e_phnum; ++i) {
    const std::size_t at = eh.e_phoff + i * sizeof(Elf64_Phdr);
    if (eh.e_phoff > elf.size() || at + sizeof(Elf64_Phdr) > elf.size()) return "";
    Elf64_Phdr ph;
    std::memcpy(&ph, elf.data() + at, sizeof ph);
    if (ph.p_type != PT_INTERP) continue;
    if (ph.p_offset > elf.size() || ph.p_filesz > elf.size() - ph.p_offset) return "?";
    std::string path(elf.substr(ph.p_offset, ph.p_filesz));
    path = path.substr(0, path.find('\0'));
    return path.empty() ? "?" : path;
  }
  return "";
}

bool elf_has_pvh_entry(std::string_view elf) {
  constexpr std::uint32_t kPhys32Entry = 18;  // XEN_ELFNOTE_PHYS32_ENTRY
  Elf64_Ehdr eh;
  if (elf.size() < sizeof eh) return false;
  std::memcpy(&eh, elf.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_phentsize != sizeof(Elf64_Phdr))
    return false;
  for (std::size_t i = 0; i < eh.e_phnum; ++i) {
    const std::size_t at = eh.e_phoff + i * sizeof(Elf64_Phdr);
    if (eh.e_phoff > elf.size() || at + sizeof(Elf64_Phdr) > elf.size()) return false;
    Elf64_Phdr ph;
    std::memcpy(&ph, elf.data() + at, sizeof ph);
    if (ph.p_type != PT_NOTE || ph.p_offset > elf.size() || ph.p_filesz > elf.size() - ph.p_offset)
      continue;
    std::string_view notes = elf.substr(ph.p_offset, ph.p_filesz);
    std::size_t pos = 0;
    auto align4 = [](std::size_t n) { return (n + 3) & ~std::size_t{3}; };
    while (pos + sizeof(Elf64_Nhdr) <= notes.size()) {
      Elf64_Nhdr nh;
      std::memcpy(&nh, notes.data() + pos, sizeof nh);
      pos += sizeof nh;
      const std::size_t name_end = pos + align4(nh.n_namesz);
      if (name_end > notes.size()) break;
      std::string_view name = notes.substr(pos, nh.n_namesz);
      if (nh.n_type == kPhys32Entry && name.substr(0, 3) == "Xen") return true;
      pos = name_end + align4(nh.n_descsz);
    }
  }
  return false;
}

}  // namespace topolab::image
