#include "orchestrator/libvirt/guestsource/overlay.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <charconv>

#include "common/process.hpp"
#include "orchestrator/base/logging/log.hpp"
#include "orchestrator/libvirt/virt/domain_registry.hpp"
#include "orchestrator/libvirt/virt/run_identity.hpp"

namespace topolab::guestsource {
namespace {

using namespace std::chrono_literals;

// "ov-<pid>-<start>-..." -> the owner; nullopt for names not made by overlay_file_name.
std::optional<virt::RunOwner> owner_of(const std::string& name) {
  if (name.rfind("ov-", 0) != 0) return std::nullopt;
  virt::RunOwner o;
  const char* p = name.data() + 3;
  const char* end = name.data() + name.size();
  auto r1 = std::from_chars(p, end, o.pid);
  if (r1.ec != std::errc() || r1.ptr == end || *r1.ptr != '-') return std::nullopt;
  auto r2 = std::from_chars(r1.ptr + 1, end, o.start_time);
  if (r2.ec != std::errc() || r2.ptr == end || *r2.ptr != '-') return std::nullopt;
  return o;
}

}  // namespace

std::string overlay_file_name(const std::string& run_id, int index, const std::string& suffix) {
  auto owner = virt::current_run_owner(run_id);
  return "ov-" + std::to_string(owner.pid) + "-" + std::to_string(owner.start_time) + "-" + run_id +
         "-" + std::to_string(index) + suffix;
}

Result<OwnedFile> create_overlay(const DiskImage& backing, const std::string& run_id, int index,
                                 const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(ErrorKind::io, "overlay folder " + dir.string() + ": " + ec.message());
  // QEMU runs as its own user: it must reach the overlay (libvirt relabels the file itself).
  chmod(dir.c_str(), 0711);
  auto path = dir / overlay_file_name(run_id, index);
  OwnedFile overlay(path);  // from here on, every failure deletes whatever qemu-img left
  if (!overlay.registered())
    return make_error(ErrorKind::failed, "not creating " + path.string() + ": interrupted");
  auto r =
      run_process(ProcessSpec::in_path({"qemu-img", "create", "-q", "-f", "qcow2", "-b",
                                        backing.path.string(), "-F", backing.format, path.string()},
                                       60s));
  if (!r) return r.error().context("qemu-img create " + path.string());
  if (!r->status.success())
    return make_error(ErrorKind::io,
                      "qemu-img create " + path.string() + " failed: " + first_line(*r));
  return overlay;
}

OwnedFile::OwnedFile(std::filesystem::path p) : path_(std::move(p)) {
  // Before the file exists: a SIGINT/SIGTERM from here on removes it (domain_registry.hpp).
  virt::DomainRegistry::install_signal_handlers();
  registered_ = virt::DomainRegistry::instance().add_file(path_).ok();
}

void OwnedFile::remove() {
  if (path_.empty()) return;
  unlink(path_.c_str());
  if (registered_) virt::DomainRegistry::instance().forget_file(path_);
  path_.clear();
}

OwnedFile& OwnedFile::operator=(OwnedFile&& o) noexcept {
  if (this != &o) {
    remove();
    path_ = std::move(o.path_);
    registered_ = o.registered_;
    o.path_.clear();
  }
  return *this;
}

OwnedFile::~OwnedFile() { remove(); }

std::vector<std::filesystem::path> cleanup_stale_overlays(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> removed;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    auto owner = owner_of(it->path().filename().string());
    if (!owner || virt::run_owner_alive(*owner)) continue;
    if (unlink(it->path().c_str()) == 0) removed.push_back(it->path());
  }
  return removed;
}

// A warning, not info: the overlay is a killed run's leftover that topolab deletes, which the
// user sees even under --quiet (as when it was printed past the logger).
void clean_stale_overlays(const std::filesystem::path& dir) {
  for (const auto& stale : cleanup_stale_overlays(dir))
    logging::warn("removed stale overlay {} (its run is gone)", stale.string());
}

}  // namespace topolab::guestsource
