#include "orchestrator/guest/image/elf_probe.hpp"

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace topolab::image {
namespace {

// The program headers of an ELF64 little-endian file whose header table lies inside `elf`;
// empty for anything else.
std::vector<Elf64_Phdr> program_headers(std::string_view elf) {
  Elf64_Ehdr eh;
  if (elf.size() < sizeof eh) return {};
  std::memcpy(&eh, elf.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_phentsize != sizeof(Elf64_Phdr))
    return {};
  std::vector<Elf64_Phdr> out;
  for (std::size_t i = 0; i < eh.e_phnum; ++i) {
    const std::size_t at = eh.e_phoff + i * sizeof(Elf64_Phdr);
    if (eh.e_phoff > elf.size() || at + sizeof(Elf64_Phdr) > elf.size()) return {};
    out.emplace_back();
    std::memcpy(&out.back(), elf.data() + at, sizeof(Elf64_Phdr));
  }
  return out;
}

bool segment_inside(const Elf64_Phdr& ph, std::string_view elf) {
  return ph.p_offset <= elf.size() && ph.p_filesz <= elf.size() - ph.p_offset;
}

}  // namespace

std::string elf_interpreter(std::string_view elf) {
  for (const auto& ph : program_headers(elf)) {
    if (ph.p_type != PT_INTERP) continue;
    if (!segment_inside(ph, elf)) return "?";
    std::string path(elf.substr(ph.p_offset, ph.p_filesz));
    path = path.substr(0, path.find('\0'));
    return path.empty() ? "?" : path;
  }
  return "";
}

bool elf_has_pvh_entry(std::string_view elf) {
  constexpr std::uint32_t kPhys32Entry = 18;  // XEN_ELFNOTE_PHYS32_ENTRY
  auto align4 = [](std::size_t n) { return (n + 3) & ~std::size_t{3}; };
  for (const auto& ph : program_headers(elf)) {
    if (ph.p_type != PT_NOTE || !segment_inside(ph, elf)) continue;
    std::string_view notes = elf.substr(ph.p_offset, ph.p_filesz);
    std::size_t pos = 0;
    while (pos + sizeof(Elf64_Nhdr) <= notes.size()) {
      Elf64_Nhdr nh;
      std::memcpy(&nh, notes.data() + pos, sizeof nh);
      pos += sizeof nh;
      const std::size_t name_end = pos + align4(nh.n_namesz);
      if (name_end > notes.size()) break;
      if (nh.n_type == kPhys32Entry && notes.substr(pos, nh.n_namesz).substr(0, 3) == "Xen")
        return true;
      pos = name_end + align4(nh.n_descsz);
    }
  }
  return false;
}

}  // namespace topolab::image
