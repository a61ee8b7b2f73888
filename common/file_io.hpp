#pragma once
#include <fcntl.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/owned_fd.hpp"
#include "common/result.hpp"

namespace topolab {

// The one way topolab opens a file named by a user, a file or a root folder (issue 12, class 4).
// A FIFO, device, socket or directory is refused without blocking: the open is
// O_NONBLOCK|O_NOCTTY|O_CLOEXEC (a FIFO with no writer would otherwise block forever, a tty
// would become our controlling terminal), fstat must say S_ISREG, then O_NONBLOCK is cleared.
// Symlinks are followed; a link to a FIFO is refused by the same fstat. `flags` is O_RDONLY or,
// for attributes written in place (sysfs, cgroupfs), O_WRONLY with O_TRUNC/O_APPEND.
// Errors: "PATH: not a regular file (fifo)", "PATH: <strerror>".
Result<OwnedFd> open_regular_file(const std::filesystem::path& path, int flags = O_RDONLY);

// Opens PATH for appending, creating it with mode 0600 (a private log in a run folder), never
// through a planted link: O_NOFOLLOW refuses a symlink at PATH (ELOOP), the non-blocking fstat
// rule refuses a FIFO or device, and an existing file is chmod'ed to 0600.
Result<OwnedFd> open_private_append(const std::filesystem::path& path);

// A folder topolab writes private files into (a run folder: topolab.log, domain.xml, the agent
// socket): "" when PATH itself (not a link to one) is a directory owned by this user and not
// writable by group or others; otherwise why not (redteam wave 2: a run folder planted as a
// symlink, or pre-created by another user, received topolab's files and its chmod).
Result<void> check_private_dir(const std::filesystem::path& path);

// Creates PATH (and its parents) if missing, then applies check_private_dir's rule and makes it
// 0700 through a descriptor opened with O_NOFOLLOW (a link swapped in meanwhile is not chmod'ed).
Result<void> make_private_dir(const std::filesystem::path& path);

// Reads a whole regular file through open_regular_file, refusing anything larger than
// max_bytes ("PATH: larger than N bytes") before reading when the size is known and while
// reading for files whose size is not (procfs reports 0).
// A file's size, 0 when it is missing or unreadable (a log that may not exist yet).
std::uintmax_t file_size_or_zero(const std::filesystem::path& path);

Result<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes = 64u << 20);

// Fails unless `path` is absent or a regular file (the same non-blocking fstat rule), for
// libraries that open a path themselves (SQLite). Absent is fine: the caller may create it.
Result<void> check_regular_or_absent(const std::filesystem::path& path);

// The same for a SQLite database and the siblings SQLite opens by name: PATH-journal (a FIFO
// there made `report` hang reading a "hot journal"), PATH-wal and PATH-shm.
Result<void> check_sqlite_paths(const std::filesystem::path& path);

// Reads a one-line sysfs/procfs attribute and strips the trailing newline and blanks.
Result<std::string> read_attribute(const std::filesystem::path& path);

// Strips what follows a sysfs/procfs attribute's value: newlines, blanks, CRs and NULs.
void strip_attribute_tail(std::string& text);

// An output that is one of the command's inputs (`report r.db -o r.db` replaced the results
// store with its own report, exit 0; `xml L.toml -o L.toml` the layout with XML): refused when
// `output` exists and is the same file (device and inode, links followed) as an input that
// exists. Called before the command reads anything (redteam wave 4).
Result<void> check_output_is_not_input(const std::filesystem::path& output,
                                       const std::vector<std::filesystem::path>& inputs);

// Writes atomically and never through a planted link (issue 12, class 7): the content goes to a
// fresh, unpredictable sibling "PATH.tmp.XXXXXX" created with O_EXCL|O_NOFOLLOW (mkstemp), is
// fsynced, chmod'ed to `mode` and renamed over PATH. rename() replaces a symlink at PATH
// itself, it never follows it, so the link's target is left untouched. Refuses a PATH that is
// a directory or another non-regular file (not a symlink) with a clear error.
Result<void> write_file_atomic(const std::filesystem::path& path, const std::string& content,
                               unsigned mode = 0644);

}  // namespace topolab
