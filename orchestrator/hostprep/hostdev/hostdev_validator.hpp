#pragma once
// Validates the PCI devices a layout passes through ([[hostdev]]) against a sysfs tree: the
// device exists, which driver holds it (vfio-pci or not), and its whole IOMMU group goes to
// the guest too (every other member passed through as well, or a PCI bridge).
#include <string>
#include <vector>

#include "orchestrator/hostprep/hostcheck/check.hpp"
#include "orchestrator/hostprep/hostcheck/sys_root.hpp"

namespace topolab::hostdev {

struct HostdevRequest {
  std::string pci_address;  // "0000:01:00.0" or "01:00.0"
  bool managed = true;      // libvirt detaches/reattaches the driver itself
};

struct PciDeviceInfo {
  std::string address;         // canonical
  std::string class_code;      // "0x030000"
  std::string vendor, device;  // "0x10de"
  std::string driver;          // "" when unbound
  int iommu_group = -1;
};

// "01:00.0" -> "0000:01:00.0"; errors name the text and the expected form.
Result<std::string> canonical_pci_address(std::string_view text);

// Reads /sys/bus/pci/devices/ADDR under root; error when the device does not exist.
Result<PciDeviceInfo> read_pci_device(const SysRoot& root, const std::string& address);

// Members of an IOMMU group (/sys/kernel/iommu_groups/N/devices), sorted.
std::vector<std::string> iommu_group_members(const SysRoot& root, int group);

// "0x0604xx" PCI-to-PCI bridges (and host bridges 0x0600xx) may stay on the host.
bool is_pci_bridge(const std::string& class_code);
std::string describe_class(const std::string& class_code);

// One result per requested device, named "hostdev ADDR".
std::vector<doctor::CheckResult> validate_hostdevs(const SysRoot& root,
                                                   const std::vector<HostdevRequest>& devices);

}  // namespace topolab::hostdev
