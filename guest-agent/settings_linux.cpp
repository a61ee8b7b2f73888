// Linux side of settings.hpp: every Linux row is one file under /proc/sys, /sys or debugfs.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "common/file_io.hpp"
#include "common/owned_fd.hpp"
#include "guest-agent/settings.hpp"

namespace topolab::agent::os {
namespace {

namespace proto = protocol;
using nlohmann::json;

std::string& settings_root() {
  static std::string root = "/";
  return root;
}

std::string path_of(const proto::SettingRow& row) {
  std::string root = settings_root();
  if (root.empty() || root.back() != '/') root += '/';
  return root + std::string(row.linux_file);
}

// The scheduler rows live in debugfs, which a fresh guest (the agent as PID 1) has not mounted.
// Only as PID 1: elsewhere the init system owns the mounts (systemd mounts debugfs itself), and
// an agent in a test on the build machine must not mount anything there.
void mount_debugfs_if_needed(const proto::SettingRow& row) {
  if (::getpid() != 1 || settings_root() != "/" ||
      std::string_view(row.linux_file).rfind("sys/kernel/debug/", 0) != 0)
    return;
  struct stat st {};
  if (::stat(path_of(row).c_str(), &st) == 0) return;
  // EBUSY: mounted already (the file is missing for another reason, reported by the read).
  ::mount("debugfs", "/sys/kernel/debug", "debugfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr);
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

}  // namespace

GuestOs this_os() { return GuestOs::kLinux; }

void set_settings_root(const std::string& root) { settings_root() = root; }

Result<json> read_setting(const proto::SettingRow& row) {
  mount_debugfs_if_needed(row);
  const std::string path = path_of(row);
  auto text = read_file(path, 4096);
  if (!text)
    return make_error(text.error().kind, "not available on this guest: " + text.error().message);
  const std::string v = trimmed(*text);
  if (row.type == proto::SettingType::kChoice) {
    // smt/control also says forceoff, notsupported or notimplemented: nothing to switch.
    for (auto c : row.choices)
      if (v == c) return json(v);
    return make_error(ErrorKind::input,
                      "not available on this guest: " + path + " reads '" + v.substr(0, 64) + "'");
  }
  // The whole text one integer ("-", "1-2" and "--5" are not): a file the agent reads is
  // input, never a reason to abort (std::stoll threw on "-").
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size())
    return make_error(ErrorKind::input,
                      path + ": expected an integer, read '" + v.substr(0, 64) + "'");
  return json(n);
}

Result<void> write_setting(const proto::SettingRow& row, const json& value) {
  const std::string path = path_of(row);
  const std::string text = value.is_string()           ? value.get<std::string>()
                           : value.is_number_integer() ? std::to_string(value.get<std::int64_t>())
                                                       : value.dump();
  OwnedFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_TRUNC));
  if (!fd)
    return make_error(ErrorKind::io, "open " + path + " for writing: " + std::strerror(errno));
  const ssize_t n = ::write(fd.get(), text.data(), text.size());
  if (n != static_cast<ssize_t>(text.size()))
    return make_error(ErrorKind::io, "write '" + text + "' to " + path + ": " +
                                         (n < 0 ? std::strerror(errno) : "short write"));
  return {};
}

Result<void> restore_setting(const proto::SettingRow& row, const json& original) {
  return write_setting(row, original);
}

}  // namespace topolab::agent::os
