#include "common/file_identity.hpp"

#include <sys/stat.h>

namespace topolab {

namespace {
long long ns_of(const timespec& t) { return t.tv_sec * 1000000000LL + t.tv_nsec; }
}  // namespace

std::optional<FileIdentity> file_identity(const std::filesystem::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::nullopt;
  FileIdentity id;
  id.line = std::to_string(st.st_size) + " " + std::to_string(ns_of(st.st_mtim)) + " " +
            std::to_string(ns_of(st.st_ctim)) + " " + std::to_string(st.st_ino) + " " +
            std::to_string(st.st_dev) + " " + file.string();
  id.regular = S_ISREG(st.st_mode);
  return id;
}

bool same_inode(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  struct stat sa {};
  struct stat sb {};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return a == b;
  return same_inode(sa, sb);
}

}  // namespace topolab
