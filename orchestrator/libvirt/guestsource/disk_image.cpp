#include "orchestrator/libvirt/guestsource/disk_image.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "common/file_identity.hpp"
#include "common/owned_fd.hpp"
#include "common/process.hpp"
#include "common/safe_name.hpp"
#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"

namespace topolab::guestsource {
namespace {

using namespace std::chrono_literals;

// Every file a live domain XML's disks open for writing. Backing files and read-only disks are
// only read: topolab's own overlays share the user's image that way, and that is safe.
std::vector<std::filesystem::path> disk_files(const std::string& xml) {
  std::vector<std::filesystem::path> out;
  pugi::xml_document doc;
  if (!doc.load_string(xml.c_str())) return out;
  for (auto disk : doc.select_nodes("/domain/devices/disk")) {
    if (disk.node().child("readonly")) continue;
    auto src = disk.node().child("source");
    for (const char* attr : {"file", "dev"}) {
      auto a = src.attribute(attr);
      if (a) {
        std::error_code ec;
        auto p = std::filesystem::weakly_canonical(a.as_string(), ec);
        out.push_back(ec ? std::filesystem::path(a.as_string()) : p);
      }
    }
  }
  return out;
}

// Kernel pseudo file systems hold no disk images; /proc/kcore is a "regular file" of 128 TiB
// whose bytes are kernel memory.
bool on_pseudo_fs(int fd) {
  struct statfs fs {};
  if (fstatfs(fd, &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
    case DEBUGFS_MAGIC:
    case TRACEFS_MAGIC:
    case SECURITYFS_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
    case BPF_FS_MAGIC:
    case EFIVARFS_MAGIC:
      return true;
    default:
      return false;
  }
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "directory";
  if (S_ISFIFO(mode)) return "fifo";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISSOCK(mode)) return "socket";
  return "special file";
}

// The user's disk, opened once: what is checked is the file the descriptor holds, and `path`
// is that file's real name (every symlink resolved by the open itself).
struct OpenedDisk {
  OwnedFd fd;
  struct stat st {};
  std::filesystem::path path;
};

// O_NONBLOCK: a FIFO (or a file swapped for one) must not block the check; O_NOCTTY: a tty
// must not become our terminal.
Result<OpenedDisk> open_disk(const std::filesystem::path& path, const std::string& shown) {
  OpenedDisk d;
  d.fd.reset(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!d.fd) {
    const int err = errno;
    return make_error(err == ENOENT ? ErrorKind::not_found : ErrorKind::io,
                      shown + ": " + strerror(err));
  }
  if (fstat(d.fd.get(), &d.st) != 0)
    return make_error(ErrorKind::io, shown + ": " + strerror(errno));
  if (!S_ISREG(d.st.st_mode) && !S_ISBLK(d.st.st_mode))
    return make_error(ErrorKind::input, shown + ": not a regular file or block device (" +
                                            kind_of(d.st.st_mode) + ")");
  if (on_pseudo_fs(d.fd.get()))
    return make_error(ErrorKind::input,
                      shown + ": a kernel pseudo file (/proc, /sys), not a disk image");
  if (S_ISREG(d.st.st_mode) && d.st.st_size == 0)
    return make_error(ErrorKind::input, shown + ": empty file");
  if (S_ISBLK(d.st.st_mode)) {  // O_EXCL on a block device fails while it is mounted or held
    OwnedFd excl(::open(path.c_str(), O_RDONLY | O_EXCL | O_NONBLOCK | O_CLOEXEC));
    if (!excl && errno == EBUSY)
      return make_error(ErrorKind::input,
                        shown + ": block device in use by the host (mounted or held)");
  }
  char byte = 0;
  ssize_t n = pread(d.fd.get(), &byte, 1, 0);
  if (n < 0) return make_error(ErrorKind::io, shown + ": not readable: " + strerror(errno));
  if (n == 0) return make_error(ErrorKind::input, shown + ": empty file");
  std::error_code ec;
  d.path = std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(d.fd.get()), ec);
  if (ec || !d.path.is_absolute())
    return make_error(ErrorKind::io, shown + ": cannot name the opened file");
  // The name goes into libvirt XML and qemu-img's argv: a control character (a newline in a
  // name, or in a symlink's target) would need XML escapes libvirt refuses or normalizes.
  if (has_control_chars(d.path.string()))
    return make_error(ErrorKind::input,
                      shown + ": its real name holds a control character; rename it");
  return d;
}

// The name qemu-img (and later the overlay and libvirt) opened must still be the file checked,
// unchanged: a file swapped or rewritten meanwhile is refused, not booted.
Result<void> still_the_same(const OpenedDisk& d, const std::string& shown) {
  struct stat now {};
  struct stat by_name {};
  if (fstat(d.fd.get(), &now) != 0 || stat(d.path.c_str(), &by_name) != 0 ||
      !same_inode(by_name, d.st) || now.st_size != d.st.st_size ||
      now.st_mtim.tv_sec != d.st.st_mtim.tv_sec || now.st_mtim.tv_nsec != d.st.st_mtim.tv_nsec)
    return make_error(ErrorKind::io,
                      shown +
                          ": changed while it was being checked (replaced or written); "
                          "try again when nothing writes it");
  return {};
}

}  // namespace

Result<DiskImage> inspect_disk(const std::filesystem::path& path) {
  const std::string shown = "disk " + path.string();
  auto opened = open_disk(path, shown);
  if (!opened) return opened.error();
  DiskImage d;
  d.path = opened->path;
  d.size_bytes = static_cast<std::uint64_t>(opened->st.st_size);
  d.mtime_s = opened->st.st_mtim.tv_sec;
  d.block_device = S_ISBLK(opened->st.st_mode);
  // -U: read even if a VM has it open (the in-use check below says so more clearly).
  auto info = run_process(
      ProcessSpec::in_path({"qemu-img", "info", "-U", "--output=json", d.path.string()}, 30s));
  if (!info) return info.error().context(shown);
  // qemu-img refuses what it cannot read as an image ("Image is too big"): the disk's fault.
  if (!info->status.success())
    return make_error(ErrorKind::input, shown + ": qemu-img info failed: " + first_line(*info));
  TL_TRY(still_the_same(*opened, shown));
  TL_TRY(check_image_info(nlohmann::json::parse(info->out, nullptr, false), shown, d));
  return d;
}

Result<void> check_not_in_use(virConnectPtr conn, const DiskImage& disk) {
  virDomainPtr* doms = nullptr;
  int n = virConnectListAllDomains(conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
  if (auto e = virt::failed(n)) return e->context("listing running domains");
  std::string user;
  for (int i = 0; i < n; ++i) {
    if (user.empty()) {
      auto xml = virt::domain_xml(doms[i], /*live=*/true);
      if (xml) {
        // One file under two names (a hard link, a bind mount, a spelling weakly_canonical
        // cannot undo) is one disk.
        for (const auto& f : disk_files(*xml))
          if (same_file(f, disk.path)) user = virt::domain_name(doms[i]);
      }
    }
    virDomainFree(doms[i]);
  }
  free(doms);  // NOLINT: libvirt allocates with malloc
  if (!user.empty()) {
    return make_error(ErrorKind::input,
                      "disk " + disk.path.string() + ": in use by running domain '" + user +
                          "' (shut it down first; topolab never boots a disk another VM has open)");
  }
  return {};
}

}  // namespace topolab::guestsource
