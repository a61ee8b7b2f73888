#pragma once
// What changes when a file is written or replaced, as one comparable line: size, mtime and ctime
// (ns), inode, device, then the name. Equal lines from two stat() calls mean the content can be
// taken as unchanged without reading it (the guest image's inputs stamp, the remote upload's
// hash memo). stat() follows symlinks, as the readers of these files do.
// Whether two names are one file is decided here too (same_file), by what they open.
#include <filesystem>
#include <optional>
#include <string>

struct stat;  // <sys/stat.h>

namespace topolab {

struct FileIdentity {
  std::string line;      // "SIZE MTIME_NS CTIME_NS INODE DEVICE NAME"
  bool regular = false;  // a regular file (not a directory, FIFO, device ...)
};

// nullopt when the file cannot be stat()ed.
std::optional<FileIdentity> file_identity(const std::filesystem::path& file);

// One file: the same device and inode (of two stat()/fstat() results).
bool same_inode(const struct stat& a, const struct stat& b);
// Two spellings of one file (a symlink, "./a.db", a hard link, a bind mount) are one: compared
// by device and inode after stat(), by name only when either cannot be stat()ed.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace topolab
