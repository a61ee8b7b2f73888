#pragma once
// What changes when a file is written or replaced, as one comparable line: size, mtime and ctime
// (ns), inode, device, then the name. Equal lines from two stat() calls mean the content can be
// taken as unchanged without reading it (the guest image's inputs stamp, the remote upload's
// hash memo). stat() follows symlinks, as the readers of these files do.
#include <filesystem>
#include <optional>
#include <string>

namespace topolab {

struct FileIdentity {
  std::string line;      // "SIZE MTIME_NS CTIME_NS INODE DEVICE NAME"
  bool regular = false;  // a regular file (not a directory, FIFO, device ...)
};

// nullopt when the file cannot be stat()ed.
std::optional<FileIdentity> file_identity(const std::filesystem::path& file);

}  // namespace topolab
