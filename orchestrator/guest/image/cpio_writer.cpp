// CpioWriter::finish through libarchive's newc writer (issue 28): the archive format is
// libarchive's, used by cpio(1) and bsdcpio, instead of a hand-written header encoder.
#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <memory>

#include "orchestrator/guest/image/cpio.hpp"

namespace topolab::image {
namespace {

struct ArchiveDeleter {
  void operator()(archive* a) const { archive_write_free(a); }
};
struct EntryDeleter {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};

la_ssize_t append_to_string(archive*, void* out, const void* buffer, size_t length) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

// Writing into memory fails only on a bug (an entry libarchive refuses) or without memory.
void check(archive* a, int rc, const char* what) {
  if (rc == ARCHIVE_OK) return;
  const char* why = archive_error_string(a);
  throw FatalError(std::string("libarchive: ") + what + ": " + (why ? why : "failed"));
}

void write_entry(archive* a, const CpioEntry& e, std::uint32_t ino) {
  std::unique_ptr<archive_entry, EntryDeleter> entry(archive_entry_new());
  archive_entry* x = entry.get();
  archive_entry_set_pathname(x, e.name.c_str());
  archive_entry_set_mode(x, e.mode);
  archive_entry_set_ino(x, ino);
  archive_entry_set_uid(x, 0);  // root
  archive_entry_set_gid(x, 0);
  archive_entry_set_nlink(x, S_ISDIR(e.mode) ? 2 : 1);
  archive_entry_set_mtime(x, 0, 0);  // fixed, so identical inputs give identical bytes
  archive_entry_set_size(x, static_cast<la_int64_t>(e.data.size()));
  if (S_ISCHR(e.mode)) {
    archive_entry_set_rdevmajor(x, e.rdev_major);
    archive_entry_set_rdevminor(x, e.rdev_minor);
  }
  check(a, archive_write_header(a, x), e.name.c_str());
  if (e.data.empty()) return;
  if (archive_write_data(a, e.data.data(), e.data.size()) != static_cast<la_ssize_t>(e.data.size()))
    check(a, ARCHIVE_FATAL, e.name.c_str());
}

}  // namespace

std::string CpioWriter::finish() const {
  std::string out;
  std::unique_ptr<archive, ArchiveDeleter> owner(archive_write_new());
  archive* a = owner.get();
  check(a, archive_write_set_format_cpio_newc(a), "newc format");
  // The kernel reads the archive in 512-byte blocks like cpio(1) writes it.
  check(a, archive_write_set_bytes_per_block(a, 512), "block size");
  check(a, archive_write_set_bytes_in_last_block(a, 512), "last block size");
  check(a, archive_write_open2(a, &out, nullptr, append_to_string, nullptr, nullptr), "open");
  std::uint32_t ino = 1;
  for (const auto& e : entries_) write_entry(a, e, ino++);
  check(a, archive_write_close(a), "close");  // writes the TRAILER!!! entry
  return out;
}

}  // namespace topolab::image
