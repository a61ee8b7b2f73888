#include "orchestrator/hostprep/hostdev/hostdev_validator.hpp"

#include <gtest/gtest.h>

namespace topolab::hostdev {
namespace {

using doctor::CheckStatus;

SysRoot fixture(const std::string& name) {
  return SysRoot(std::string(TOPOLAB_TESTS_DIR) + "/orchestrator/hostprep/hostdev/data/" + name);
}

TEST(CanonicalPciAddress, AddsDomainAndLowercases) {
  EXPECT_EQ(canonical_pci_address("01:00.0").value(), "0000:01:00.0");
  EXPECT_EQ(canonical_pci_address("0000:0A:1F.7").value(), "0000:0a:1f.7");
}

TEST(CanonicalPciAddress, RejectsMalformed) {
  for (const char* bad :
       {"", "1:0.0", "0000:01:00.8", "0000-01-00.0", "zz:00.0", "0000:01:00.0x"}) {
    auto r = canonical_pci_address(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("expected DDDD:BB:SS.F"), std::string::npos);
  }
}

TEST(ReadPciDevice, ReadsDriverClassAndGroup) {
  auto dev = read_pci_device(fixture("gpu-host"), "0000:01:00.1");
  ASSERT_TRUE(dev.ok()) << dev.error().message;
  EXPECT_EQ(dev->driver, "snd_hda_intel");
  EXPECT_EQ(dev->class_code, "0x040300");
  EXPECT_EQ(dev->iommu_group, 1);
  EXPECT_EQ(iommu_group_members(fixture("gpu-host"), 1),
            (std::vector<std::string>{"0000:00:01.0", "0000:01:00.0", "0000:01:00.1"}));
}

TEST(ValidateHostdevs, WholeGroupPassedThroughBridgeStays) {
  auto results = validate_hostdevs(fixture("gpu-host"), {{"01:00.0", true}, {"01:00.1", true}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].name, "hostdev 0000:01:00.0");
  EXPECT_EQ(results[0].status, CheckStatus::kOk) << results[0].reason;
  EXPECT_NE(results[0].reason.find("vfio-pci"), std::string::npos);
  EXPECT_NE(results[0].reason.find("bridges 0000:00:01.0 stay on the host"), std::string::npos);
  // The audio function is still on snd_hda_intel: managed, so a warning with the fix.
  EXPECT_EQ(results[1].status, CheckStatus::kWarn) << results[1].reason;
  EXPECT_NE(results[1].reason.find("bound to snd_hda_intel"), std::string::npos);
  EXPECT_NE(results[1].fix.find("virsh nodedev-detach pci_0000_01_00_1"), std::string::npos);
  EXPECT_NE(results[1].fix.find("vfio-pci.ids=10de:10f0"), std::string::npos);
}

TEST(ValidateHostdevs, GroupMemberLeftOnHostFails) {
  auto results = validate_hostdevs(fixture("gpu-host"), {{"0000:01:00.0", true}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, CheckStatus::kFail);
  EXPECT_NE(results[0].reason.find("IOMMU group 1 also holds 0000:01:00.1 (audio device, driver "
                                   "snd_hda_intel)"),
            std::string::npos)
      << results[0].reason;
  EXPECT_NE(results[0].fix.find("[[hostdev]] address = \"0000:01:00.1\""), std::string::npos);
}

TEST(ValidateHostdevs, SharedChipsetGroupNamesEveryOtherMember) {
  auto results = validate_hostdevs(fixture("gpu-host"), {{"00:1f.3", true}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, CheckStatus::kFail);
  EXPECT_NE(results[0].reason.find("0000:00:1f.4 (SMBus controller, driver i801_smbus)"),
            std::string::npos)
      << results[0].reason;
}

TEST(ValidateHostdevs, UnmanagedDeviceOnHostDriverFails) {
  auto results = validate_hostdevs(fixture("gpu-host"), {{"02:00.0", false}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, CheckStatus::kFail);
  EXPECT_NE(results[0].reason.find("bound to nvme"), std::string::npos);
  EXPECT_NE(results[0].reason.find("managed=false"), std::string::npos);
}

TEST(ValidateHostdevs, UnboundDeviceAloneInGroupWarns) {
  auto results = validate_hostdevs(fixture("gpu-host"), {{"03:00.0", true}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, CheckStatus::kWarn);
  EXPECT_NE(results[0].reason.find("not bound to any driver"), std::string::npos);
  EXPECT_NE(results[0].reason.find("USB controller"), std::string::npos);
}

TEST(ValidateHostdevs, MissingDeviceAndBadAddressFail) {
  auto results = validate_hostdevs(fixture("gpu-host"), {{"05:00.0", true}, {"nonsense", true}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, CheckStatus::kFail);
  EXPECT_NE(results[0].reason.find("PCI device 0000:05:00.0 not found"), std::string::npos);
  EXPECT_EQ(results[1].status, CheckStatus::kFail);
  EXPECT_EQ(results[1].name, "hostdev nonsense");
}

TEST(ValidateHostdevs, NoIommuGroupFailsWithKernelParameterFix) {
  auto results = validate_hostdevs(fixture("iommu-off"), {{"01:00.0", true}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, CheckStatus::kFail);
  EXPECT_NE(results[0].reason.find("no IOMMU group"), std::string::npos);
  EXPECT_NE(results[0].reason.find("bound to amdgpu"), std::string::npos);
  EXPECT_NE(results[0].fix.find("iommu=pt"), std::string::npos);
}

TEST(PciClass, BridgesRecognised) {
  EXPECT_TRUE(is_pci_bridge("0x060400"));
  EXPECT_TRUE(is_pci_bridge("0x060000"));
  EXPECT_FALSE(is_pci_bridge("0x060100"));  // ISA bridge: a real device
  EXPECT_FALSE(is_pci_bridge("0x030000"));
}

}  // namespace
}  // namespace topolab::hostdev
