#pragma once
// Every file the doctor, isolation and hostdev code reads or writes is addressed by its live
// absolute path ("/proc/cmdline") and resolved under a root folder, so the same code runs on
// the live machine (root "/") and on small fixture trees in tests.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/cpu_list.hpp"
#include "common/result.hpp"

namespace topolab {

class SysRoot {
 public:
  explicit SysRoot(std::filesystem::path root = "/");

  const std::filesystem::path& root() const { return root_; }
  bool live() const;  // root is "/": ioctls, processes and libvirt may be asked too

  // "/proc/cmdline" -> ROOT/proc/cmdline.
  std::filesystem::path at(std::string_view absolute) const;
  bool exists(std::string_view absolute) const;
  // One-line attribute, trailing blanks stripped.
  Result<std::string> attr(std::string_view absolute) const;
  std::optional<std::string> attr_or_none(std::string_view absolute) const;
  Result<CpuList> cpu_list(std::string_view absolute) const;
  // Names of the entries of a folder, sorted; empty when it does not exist.
  std::vector<std::string> list(std::string_view absolute) const;
  // Final component of a symlink target ("driver" -> "vfio-pci"); none when not a link.
  std::optional<std::string> link_name(std::string_view absolute) const;
  // Writes a sysfs/procfs attribute in place (no rename: these files cannot be replaced).
  Result<void> write_attr(std::string_view absolute, const std::string& value) const;

 private:
  std::filesystem::path root_;
};

// Online CPUs of the machine under root (/sys/devices/system/cpu/online).
Result<CpuList> online_cpus(const SysRoot&);

// The value of key=value on the kernel command line, or none. The last occurrence wins, as
// in the kernel.
std::optional<std::string> kernel_param(const std::string& cmdline, std::string_view key);

// Formats a CPU list as a sysfs hex mask, comma-separated 32-bit words ("ff,0000000f").
std::string cpu_mask_string(const CpuList&);

}  // namespace topolab
