#include "orchestrator/image/elf_probe.hpp"

#include <elf.h>

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

}  // namespace topolab::image
