#include "orchestrator/hostprep/hostcheck/sys_root.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "common/file_io.hpp"

namespace topolab {

SysRoot::SysRoot(std::filesystem::path root) : root_(root.empty() ? "/" : std::move(root)) {}

bool SysRoot::live() const {
  std::error_code ec;
  return std::filesystem::equivalent(root_, "/", ec);
}

std::filesystem::path SysRoot::at(std::string_view absolute) const {
  std::string_view rel = absolute;
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  return root_ / std::filesystem::path(rel);
}

bool SysRoot::exists(std::string_view absolute) const {
  std::error_code ec;
  return std::filesystem::exists(at(absolute), ec);
}

Result<std::string> SysRoot::attr(std::string_view absolute) const {
  return read_attribute(at(absolute));
}

std::optional<std::string> SysRoot::attr_or_none(std::string_view absolute) const {
  auto v = attr(absolute);
  if (!v) return std::nullopt;
  return *v;
}

Result<CpuList> SysRoot::cpu_list(std::string_view absolute) const {
  TL_ASSIGN(auto text, attr(absolute));
  TL_ASSIGN_CTX(auto list, CpuList::parse(text), at(absolute).string());
  return list;
}

std::vector<std::string> SysRoot::list(std::string_view absolute) const {
  std::vector<std::string> names;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(at(absolute), ec), end; !ec && it != end;
       it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<std::string> SysRoot::link_name(std::string_view absolute) const {
  std::error_code ec;
  auto target = std::filesystem::read_symlink(at(absolute), ec);
  if (ec) return std::nullopt;
  return target.filename().string();
}

Result<void> SysRoot::write_attr(std::string_view absolute, const std::string& value) const {
  auto path = at(absolute);
  auto fd = open_regular_file(path, O_WRONLY | O_TRUNC);  // a FIFO under --root never blocks
  if (!fd) return fd.error().context("cannot open for writing");
  std::string line = value + "\n";
  ssize_t n;
  do {
    n = ::write(fd->get(), line.data(), line.size());
  } while (n < 0 && errno == EINTR);
  int err = errno;
  if (n < 0) {
    return make_error(ErrorKind::io,
                      path.string() + ": writing '" + value + "' failed: " + std::strerror(err));
  }
  return {};
}

Result<CpuList> online_cpus(const SysRoot& root) {
  return root.cpu_list("/sys/devices/system/cpu/online");
}

std::optional<std::string> kernel_param(const std::string& cmdline, std::string_view key) {
  std::optional<std::string> found;
  std::istringstream words(cmdline);
  std::string word;
  while (words >> word) {
    if (word == "--") break;  // the rest belongs to init
    auto eq = word.find('=');
    std::string_view name = std::string_view(word).substr(0, eq);
    if (name != key) continue;
    found = eq == std::string::npos ? std::string() : word.substr(eq + 1);
  }
  return found;
}

std::string cpu_mask_string(const CpuList& cpus) {
  int words = cpus.empty() ? 1 : cpus.last() / 32 + 1;
  std::vector<unsigned> bits(static_cast<std::size_t>(words), 0);
  for (int id : cpus) bits[static_cast<std::size_t>(id / 32)] |= 1u << (id % 32);
  std::string out;
  for (int w = words - 1; w >= 0; --w) {
    char buf[16];
    std::snprintf(buf, sizeof buf, w == words - 1 ? "%x" : "%08x",
                  bits[static_cast<std::size_t>(w)]);
    if (!out.empty()) out += ',';
    out += buf;
  }
  return out;
}

}  // namespace topolab
