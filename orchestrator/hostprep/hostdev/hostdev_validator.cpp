#include "orchestrator/hostprep/hostdev/hostdev_validator.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace topolab::hostdev {

using doctor::CheckResult;
using doctor::CheckStatus;

Result<std::string> canonical_pci_address(std::string_view text) {
  std::string s(text);
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s.size() == 7) s = "0000:" + s;
  auto hex = [&](std::size_t from, std::size_t n) {
    for (std::size_t i = from; i < from + n; ++i) {
      if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
    }
    return true;
  };
  bool good = s.size() == 12 && hex(0, 4) && s[4] == ':' && hex(5, 2) && s[7] == ':' && hex(8, 2) &&
              s[10] == '.' && s[11] >= '0' && s[11] <= '7';
  if (!good) {
    return make_error(
        ErrorKind::input,
        "PCI address '" + std::string(text) +
            "': expected DDDD:BB:SS.F or BB:SS.F (hex, function 0-7), e.g. 0000:01:00.0");
  }
  return s;
}

Result<PciDeviceInfo> read_pci_device(const SysRoot& root, const std::string& address) {
  const std::string dir = "/sys/bus/pci/devices/" + address;
  if (!root.exists(dir)) {
    return make_error(ErrorKind::not_found,
                      "PCI device " + address + " not found (no " + root.at(dir).string() + ")");
  }
  PciDeviceInfo info;
  info.address = address;
  info.class_code = root.attr_or_none(dir + "/class").value_or("");
  info.vendor = root.attr_or_none(dir + "/vendor").value_or("");
  info.device = root.attr_or_none(dir + "/device").value_or("");
  info.driver = root.link_name(dir + "/driver").value_or("");
  if (auto group = root.link_name(dir + "/iommu_group")) {
    try {
      info.iommu_group = std::stoi(*group);
    } catch (const std::exception&) {
      return make_error(ErrorKind::input, root.at(dir + "/iommu_group").string() +
                                              ": expected a link to a group "
                                              "number, got '" +
                                              *group + "'");
    }
  }
  return info;
}

std::vector<std::string> iommu_group_members(const SysRoot& root, int group) {
  return root.list("/sys/kernel/iommu_groups/" + std::to_string(group) + "/devices");
}

bool is_pci_bridge(const std::string& class_code) {
  // Base class 0x06 (bridge), sub-class 0x00 host bridge or 0x04 PCI-to-PCI bridge.
  return class_code.rfind("0x0604", 0) == 0 || class_code.rfind("0x0600", 0) == 0;
}

std::string describe_class(const std::string& class_code) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"0x0300", "VGA controller"},   {"0x0302", "3D controller"},
      {"0x0403", "audio device"},     {"0x0c03", "USB controller"},
      {"0x0108", "NVMe controller"},  {"0x0200", "Ethernet controller"},
      {"0x0604", "PCI bridge"},       {"0x0600", "host bridge"},
      {"0x0c05", "SMBus controller"}, {"0x0601", "ISA bridge"},
  };
  for (const auto& [prefix, name] : kNames) {
    if (class_code.rfind(prefix, 0) == 0) return name;
  }
  return class_code.empty() ? "device of unknown class" : "class " + class_code;
}

namespace {

struct Findings {
  CheckStatus status = CheckStatus::kOk;
  std::vector<std::string> problems, notes, fixes;

  void add(CheckStatus s, std::string problem, std::string fix) {
    if (s == CheckStatus::kFail || (s == CheckStatus::kWarn && status == CheckStatus::kOk)) {
      status = s;
    }
    problems.push_back(std::move(problem));
    if (!fix.empty()) fixes.push_back(std::move(fix));
  }
};

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string nodedev_name(const std::string& address) {
  std::string n = "pci_" + address;
  std::replace(n.begin(), n.end(), ':', '_');
  std::replace(n.begin(), n.end(), '.', '_');
  return n;
}

void check_driver(const PciDeviceInfo& dev, bool managed, Findings& f) {
  if (dev.driver == "vfio-pci") {
    f.notes.push_back("bound to vfio-pci");
    return;
  }
  std::string bound = dev.driver.empty() ? "not bound to any driver" : "bound to " + dev.driver;
  std::string fix = "virsh nodedev-detach " + nodedev_name(dev.address);
  if (managed) {
    f.add(CheckStatus::kWarn,
          bound +
              ", not vfio-pci (managed: libvirt rebinds it at start, which fails or takes "
              "the device from the host while the host uses it)",
          fix + "  # or bind early: vfio-pci.ids=" + dev.vendor.substr(dev.vendor.rfind('x') + 1) +
              ":" + dev.device.substr(dev.device.rfind('x') + 1) + " on the kernel cmdline");
  } else {
    f.add(CheckStatus::kFail,
          bound + ", not vfio-pci, and managed=false: libvirt will not detach it, start fails",
          fix);
  }
}

void check_group(const SysRoot& root, const PciDeviceInfo& dev, const std::set<std::string>& passed,
                 Findings& f) {
  if (dev.iommu_group < 0) {
    f.add(CheckStatus::kFail, "no IOMMU group (IOMMU off or device not behind one)",
          "enable VT-d/AMD-Vi in firmware and add intel_iommu=on iommu=pt (Intel) or "
          "amd_iommu=on iommu=pt (AMD) to GRUB_CMDLINE_LINUX, update-grub, reboot");
    return;
  }
  std::vector<std::string> stay, bridges;
  for (const auto& member : iommu_group_members(root, dev.iommu_group)) {
    if (member == dev.address || passed.count(member)) continue;
    auto info = read_pci_device(root, member);
    std::string cls = info ? info->class_code : "";
    if (is_pci_bridge(cls)) {
      bridges.push_back(member);
      continue;
    }
    std::string what = member + " (" + describe_class(cls);
    if (info && !info->driver.empty()) what += ", driver " + info->driver;
    stay.push_back(what + ")");
  }
  std::string group = "IOMMU group " + std::to_string(dev.iommu_group);
  if (!stay.empty()) {
    std::vector<std::string> adds;
    for (const auto& s : stay) adds.push_back("address = \"" + s.substr(0, 12) + "\"");
    f.add(CheckStatus::kFail,
          group + " also holds " + join(stay, ", ") +
              " which is not passed through: a group goes to the guest whole",
          "add [[hostdev]] " + join(adds, " / [[hostdev]] ") +
              " to the layout, or move the card to a slot with its own group");
    return;
  }
  std::string note = group + " complete";
  if (!bridges.empty()) note += " (bridges " + join(bridges, ", ") + " stay on the host)";
  f.notes.push_back(note);
}

}  // namespace

std::vector<CheckResult> validate_hostdevs(const SysRoot& root,
                                           const std::vector<HostdevRequest>& devices) {
  std::set<std::string> passed;
  for (const auto& d : devices) {
    if (auto a = canonical_pci_address(d.pci_address)) passed.insert(*a);
  }
  std::vector<CheckResult> results;
  for (const auto& d : devices) {
    auto address = canonical_pci_address(d.pci_address);
    if (!address) {
      results.push_back(doctor::fail("hostdev " + d.pci_address, address.error().message,
                                     "lspci -D  # lists addresses; fix [[hostdev]] address"));
      continue;
    }
    const std::string name = "hostdev " + *address;
    auto dev = read_pci_device(root, *address);
    if (!dev) {
      results.push_back(doctor::fail(name, dev.error().message,
                                     "lspci -D  # lists addresses; fix [[hostdev]] address"));
      continue;
    }
    Findings f;
    check_driver(*dev, d.managed, f);
    check_group(root, *dev, passed, f);
    std::string what = describe_class(dev->class_code) + " " + dev->vendor + ":" + dev->device;
    if (f.problems.empty()) {
      results.push_back(doctor::ok(name, what + ": " + join(f.notes, ", ")));
    } else {
      results.push_back(
          {name, f.status, what + ": " + join(f.problems, "; "), join(f.fixes, "; ")});
    }
  }
  return results;
}

}  // namespace topolab::hostdev
