#include "common/file_io.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/file_identity.hpp"
#include "common/output_file.hpp"

namespace topolab {
namespace {

std::string errno_text(const std::filesystem::path& path, int err) {
  return path.string() + ": " + std::strerror(err);
}

// A failed system call on PATH: not-found for ENOENT (callers tell "absent" from "failed" by
// the kind), io otherwise.
Error errno_error(const std::filesystem::path& path, int err) {
  return make_error(err == ENOENT ? ErrorKind::not_found : ErrorKind::io, errno_text(path, err));
}

const char* file_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "fifo";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISLNK(mode)) return "symbolic link";
  return "special file";
}

Error not_regular(const std::filesystem::path& path, mode_t mode) {
  return make_error(ErrorKind::input,
                    path.string() + ": not a regular file (" + file_kind(mode) + ")");
}

Error too_large(const std::filesystem::path& path, std::size_t max_bytes) {
  return make_error(ErrorKind::input,
                    path.string() + ": larger than " + std::to_string(max_bytes) + " bytes");
}

}  // namespace

Result<OwnedFd> open_regular_file(const std::filesystem::path& path, int flags) {
  // O_NONBLOCK only for the open itself: a FIFO opened for reading returns at once (and one
  // opened for writing fails with ENXIO) instead of waiting for a peer.
  OwnedFd fd(::open(path.c_str(), flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (fd.get() < 0) return errno_error(path, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return errno_error(path, errno);
  if (!S_ISREG(st.st_mode)) return not_regular(path, st.st_mode);
  int fl = ::fcntl(fd.get(), F_GETFL);
  if (fl < 0 || ::fcntl(fd.get(), F_SETFL, fl & ~O_NONBLOCK) != 0) {
    return errno_error(path, errno);
  }
  return fd;
}

Result<OwnedFd> open_private_append(const std::filesystem::path& path) {
  // O_CREAT's mode is 0600, so the file is never readable by others, not even for a moment;
  // the rest is open_regular_file's rule (no blocking on a FIFO, S_ISREG).
  OwnedFd fd(::open(path.c_str(),
                    O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
                    0600));
  if (fd.get() < 0) return errno_error(path, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return errno_error(path, errno);
  if (!S_ISREG(st.st_mode)) return not_regular(path, st.st_mode);
  if (::fchmod(fd.get(), 0600) != 0) return errno_error(path, errno);
  int fl = ::fcntl(fd.get(), F_GETFL);
  if (fl < 0 || ::fcntl(fd.get(), F_SETFL, fl & ~O_NONBLOCK) != 0) {
    return errno_error(path, errno);
  }
  return fd;
}

namespace {

Result<void> check_private_stat(const std::filesystem::path& path, const struct stat& st,
                                bool allow_group_write) {
  if (S_ISLNK(st.st_mode))
    return make_error(ErrorKind::input,
                      path.string() + ": a symbolic link, not a folder of topolab's own");
  if (!S_ISDIR(st.st_mode)) return not_regular(path, st.st_mode);
  if (st.st_uid != ::geteuid())
    return make_error(ErrorKind::input, path.string() + ": owned by uid " +
                                            std::to_string(st.st_uid) +
                                            ", not by this user: not a folder of topolab's own");
  if (!allow_group_write && (st.st_mode & 022) != 0)
    return make_error(ErrorKind::input, path.string() + ": writable by other users");
  return {};
}

}  // namespace

Result<void> check_private_dir(const std::filesystem::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return errno_error(path, errno);
  return check_private_stat(path, st, false);
}

Result<void> make_private_dir(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return errno_error(path, ec ? ec.value() : errno);
  // Our own folder may still be 0755 from an older topolab: the fchmod below fixes that.
  TL_TRY(check_private_stat(path, st, true));
  OwnedFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) return errno_error(path, errno);
  struct stat again {};
  if (::fstat(fd.get(), &again) != 0 || !same_inode(again, st))
    return make_error(ErrorKind::input, path.string() + ": replaced while being checked");
  if (::fchmod(fd.get(), 0700) != 0) return errno_error(path, errno);
  return {};
}

Result<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes) {
  TL_ASSIGN(auto fd, open_regular_file(path));
  struct stat st {};
  if (::fstat(fd.get(), &st) == 0 && static_cast<std::size_t>(st.st_size) > max_bytes) {
    return too_large(path, max_bytes);  // before reading a byte of it
  }
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error(path, errno);
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > max_bytes) return too_large(path, max_bytes);  // procfs sizes read as 0
  }
  return out;
}

Result<void> check_regular_or_absent(const std::filesystem::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return {};
    return errno_error(path, errno);
  }
  TL_TRY(open_regular_file(path));  // follows a link, never blocks
  return {};
}

Result<void> check_sqlite_paths(const std::filesystem::path& path) {
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
    TL_TRY(check_regular_or_absent(path.string() + suffix));
  }
  return {};
}

void strip_attribute_tail(std::string& s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t' ||
                        s.back() == '\r' || s.back() == '\0')) {
    s.pop_back();
  }
}

Result<std::string> read_attribute(const std::filesystem::path& path) {
  TL_ASSIGN(auto text, read_file(path, 1u << 20));
  strip_attribute_tail(text);
  return text;
}

namespace {

Result<void> write_all(int fd, const std::string& content, const std::filesystem::path& path) {
  std::size_t off = 0;
  while (off < content.size()) {
    ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error(path, errno);
    }
    off += static_cast<std::size_t>(n);
  }
  return {};
}

// An output target may be absent or a regular file. A symlink is refused rather than replaced:
// `-o /dev/stdout` run as root must not turn /dev/stdout into a file, and a link planted where
// an output goes is refused loudly. Devices and FIFOs are refused for the same reason.
Result<void> check_output_target(const std::filesystem::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return {};
    return errno_error(path, errno);
  }
  if (S_ISLNK(st.st_mode)) {
    return make_error(
        ErrorKind::input,
        path.string() + ": is a symbolic link; outputs never follow or replace links");
  }
  if (!S_ISREG(st.st_mode)) return not_regular(path, st.st_mode);
  return {};
}

}  // namespace

Result<void> check_output_is_not_input(const std::filesystem::path& output,
                                       const std::vector<std::filesystem::path>& inputs) {
  struct stat out {};
  if (output.empty() || ::stat(output.c_str(), &out) != 0) return {};
  for (const auto& input : inputs) {
    struct stat in {};
    if (input.empty() || ::stat(input.c_str(), &in) != 0) continue;
    if (same_inode(in, out))
      return make_error(ErrorKind::input, output.string() + ": is the input " + input.string() +
                                              "; an output never replaces an input (name "
                                              "another file)");
  }
  return {};
}

Result<void> write_file_atomic(const std::filesystem::path& path, const std::string& content,
                               unsigned mode) {
  return write_file_atomic(path, content, mode, ExistingFile::kReplace);
}

Result<void> write_file_atomic(const std::filesystem::path& path, const std::string& content,
                               unsigned mode, ExistingFile existing) {
  TL_TRY(check_output_target(path));
  // The replaced file's mode (and, as root, its owner) carry over: a 0600 report rewritten by
  // root came back 0644 and root's, readable by everyone (issue 32 class 7).
  struct stat old {};
  const bool keep = existing == ExistingFile::kKeepModeAndOwner && ::lstat(path.c_str(), &old) == 0;
  if (keep) mode = old.st_mode & 07777;
  // mkstemp: O_CREAT|O_EXCL with a random suffix, so a planted PATH.tmp.* (link or file) is
  // never opened; O_EXCL also refuses to follow a symlink at the final component.
  std::string tmpl = path.string() + ".tmp.XXXXXX";
  int raw = ::mkostemp(tmpl.data(), O_CLOEXEC);
  // Named by the output the user gave (and its folder), not the temporary name (redteam R11).
  if (raw < 0) {
    const int err = errno;
    return make_error(
        ErrorKind::io,
        errno_text(path.string() + ": cannot create a file in " +
                       (path.has_parent_path() ? path.parent_path().string() : std::string(".")),
                   err));
  }
  OwnedFd fd(raw);
  auto fail = [&](Error e) -> Result<void> {
    ::unlink(tmpl.c_str());
    return e;
  };
  if (keep && ::geteuid() == 0 && ::fchown(fd.get(), old.st_uid, old.st_gid) != 0) {
    return fail(errno_error(path, errno));
  }
  // After the chown: it clears set-id bits, which the kept mode may hold.
  if (::fchmod(fd.get(), static_cast<mode_t>(mode)) != 0) {
    return fail(errno_error(path, errno));
  }
  if (auto w = write_all(fd.get(), content, path); !w) return fail(w.error());
  if (::fsync(fd.get()) != 0 || fd.close() != 0) {
    return fail(errno_error(path, errno));
  }
  // rename() replaces whatever is at PATH by now (even a link planted after the check) and
  // never writes through it.
  if (::rename(tmpl.c_str(), path.c_str()) != 0) return fail(errno_error(path, errno));
  return {};
}

std::uintmax_t file_size_or_zero(const std::filesystem::path& path) {
  std::error_code ec;
  auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : n;
}

}  // namespace topolab
