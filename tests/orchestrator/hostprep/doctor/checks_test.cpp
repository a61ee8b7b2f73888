#include "orchestrator/hostprep/doctor/checks.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/temp_dir.hpp"

namespace topolab::doctor {
namespace {

SysRoot fixture(const std::string& name) {
  return SysRoot(std::string(TOPOLAB_TESTS_DIR) + "/orchestrator/hostprep/doctor/data/" + name);
}

GuestRequirements guest_on(const std::string& cpus) {
  GuestRequirements g;
  g.name = "test";
  g.guest_cpus = CpuList::parse(cpus).value();
  g.vcpus = static_cast<int>(g.guest_cpus.size());
  g.memory_mib = 4096;
  return g;
}

bool has(const CheckResult& r, const std::string& text) {
  return r.reason.find(text) != std::string::npos;
}

TEST(KvmCheck, BareMetalWithVmxIsOk) {
  auto r = check_kvm(fixture("tuned-host"));
  EXPECT_EQ(r.status, CheckStatus::kOk) << r.reason;
  EXPECT_TRUE(has(r, "kvm_intel")) << r.reason;
  EXPECT_TRUE(has(r, "vmx/svm present")) << r.reason;
  EXPECT_TRUE(has(r, "a KVM guest booted here (accel.json)")) << r.reason;
}

TEST(KvmCheck, NestedVmWarnsWithEverySign) {
  auto r = check_kvm(fixture("nested-vm"));
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_TRUE(has(r, "KVM is not usable")) << r.reason;
  EXPECT_TRUE(has(r, "'hypervisor' flag")) << r.reason;
  EXPECT_TRUE(has(r, "DMI says 'QEMU'")) << r.reason;
  EXPECT_TRUE(has(r, "kvm_pvm")) << r.reason;
  EXPECT_TRUE(has(r, "nested KVM hangs guests")) << r.reason;
  EXPECT_TRUE(has(r, "TCG")) << r.reason;
  EXPECT_TRUE(has(r, "cached verdict tcg: KVM guest did not say hello within 8 s")) << r.reason;
  EXPECT_FALSE(r.fix.empty());
}

TEST(KvmCheck, MissingDevKvmWarns) {
  auto r =
      check_kvm(SysRoot(std::string(TOPOLAB_TESTS_DIR) + "/orchestrator/hostprep/doctor/data"));
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_TRUE(has(r, "no /dev/kvm")) << r.reason;
}

// No /dev/kvm on an AMD host: the fix loads kvm_amd, not kvm_intel (issue 34).
TEST(KvmCheck, MissingDevKvmOnAmdSuggestsKvmAmd) {
  testing::TempDir dir("topolab-doctor-amd");
  std::filesystem::create_directories(dir.path() / "proc");
  std::ofstream(dir.path() / "proc/cpuinfo")
      << "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse2 svm\n";
  auto r = check_kvm(SysRoot(dir.path().string()));
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_EQ(r.fix.rfind("modprobe kvm_amd", 0), 0u) << r.fix;
  EXPECT_EQ(r.fix.find("kvm_intel"), std::string::npos) << r.fix;
}

TEST(IommuCheck, OnWithGroups) {
  auto r = check_iommu(fixture("tuned-host"), nullptr);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].status, CheckStatus::kOk);
  EXPECT_TRUE(has(r[0], "dmar0")) << r[0].reason;
}

TEST(IommuCheck, OffFailsOnlyWhenTheLayoutPassesDevices) {
  auto host_only = check_iommu(fixture("nested-vm"), nullptr);
  ASSERT_EQ(host_only.size(), 1u);
  EXPECT_EQ(host_only[0].status, CheckStatus::kWarn);
  auto g = guest_on("2-3");
  g.hostdevs.push_back({"01:00.0", true});
  auto with_dev = check_iommu(fixture("nested-vm"), &g);
  ASSERT_EQ(with_dev.size(), 2u);
  EXPECT_EQ(with_dev[0].status, CheckStatus::kFail);
  EXPECT_EQ(with_dev[1].name, "hostdev 0000:01:00.0");
  EXPECT_EQ(with_dev[1].status, CheckStatus::kFail);  // no such device in this tree
}

TEST(Isolcpus, FlagsAndListSeparated) {
  auto p = parse_isolcpus("managed_irq,domain,2-3,6-7").value();
  EXPECT_EQ(p.first, (std::vector<std::string>{"managed_irq", "domain"}));
  EXPECT_EQ(p.second.to_string(), "2-3,6-7");
  EXPECT_EQ(parse_isolcpus("4").value().second.to_string(), "4");
  EXPECT_FALSE(parse_isolcpus("domain,x-y").ok());
}

TEST(KernelParam, LastWinsAndInitArgumentsIgnored) {
  EXPECT_EQ(kernel_param("a=1 isolcpus=2 b isolcpus=3", "isolcpus").value(), "3");
  EXPECT_FALSE(kernel_param("ro -- isolcpus=0-1", "isolcpus").has_value());
  EXPECT_EQ(kernel_param("quiet nohz_full", "nohz_full").value(), "");
}

TEST(IsolationCheck, KernelIsolatedGuestCpusAreOk) {
  auto g = guest_on("4-7");
  auto r = check_isolated_cpus(fixture("tuned-host"), &g);
  EXPECT_EQ(r.status, CheckStatus::kOk) << r.reason;
  EXPECT_TRUE(has(r, "isolated by the kernel")) << r.reason;
  EXPECT_TRUE(has(r, "isolcpus 4-7, nohz_full 4-7")) << r.reason;
}

TEST(IsolationCheck, PartlyIsolatedWarnsWithFixes) {
  auto g = guest_on("2-5");
  auto r = check_isolated_cpus(fixture("tuned-host"), &g);
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_TRUE(has(r, "isolated CPUs 4-7 miss some")) << r.reason;
  EXPECT_NE(r.fix.find("isolcpus=2-5"), std::string::npos) << r.fix;
  EXPECT_NE(r.fix.find("AllowedCPUs=0-1,6-7"), std::string::npos) << r.fix;
}

TEST(IsolationCheck, Cgroup2SlicesWithoutAllowedCpusWarn) {
  auto g = guest_on("2-3");
  auto r = check_isolated_cpus(fixture("nested-vm"), &g);
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_TRUE(has(r, "isolcpus none")) << r.reason;  // the one after "--" is init's
  EXPECT_TRUE(has(r, "cgroup2 AllowedCPUs: not set")) << r.reason;
  EXPECT_NE(r.fix.find("topolab hook"), std::string::npos);
}

TEST(HugepagesCheck, EnoughOnTheGuestNode) {
  auto g = guest_on("4-7");
  g.memory_mib = 14 * 1024;
  g.hugepage_kib = 2048;
  auto r = check_hugepages(fixture("tuned-host"), &g);
  EXPECT_EQ(r.status, CheckStatus::kOk) << r.reason;
  EXPECT_TRUE(has(r, "needs 7168 x 2M pages")) << r.reason;
}

TEST(HugepagesCheck, OneGigPagesMissingFails) {
  auto g = guest_on("4-7");
  g.hugepage_kib = 1048576;
  auto r = check_hugepages(fixture("tuned-host"), &g);
  EXPECT_EQ(r.status, CheckStatus::kFail) << r.reason;
  EXPECT_TRUE(has(r, "4 x 1G pages")) << r.reason;
  EXPECT_NE(r.fix.find("node0/hugepages/hugepages-1048576kB/nr_hugepages"), std::string::npos);
  // The boot parameter for a size other than the default names the size (issue 34).
  EXPECT_NE(r.fix.find("persistent: hugepagesz=1G hugepages=4 "), std::string::npos) << r.fix;
}

TEST(HugepagesCheck, FreeOnlyOnTheOtherNodeWarnsRemote) {
  auto g = guest_on("0-1");  // node0 has 100 free, node1 1024
  g.memory_mib = 1024;
  g.hugepage_kib = 2048;
  auto r = check_hugepages(fixture("nested-vm"), &g);
  EXPECT_EQ(r.status, CheckStatus::kWarn) << r.reason;
  EXPECT_TRUE(has(r, "only 100 free there")) << r.reason;
  EXPECT_NE(r.fix.find("echo 668 > /sys/devices/system/node/node0/"), std::string::npos) << r.fix;
  EXPECT_NE(r.fix.find("persistent: hugepages=512 "), std::string::npos) << r.fix;  // 2M
  g.memory_mib = 4096;  // 2048 pages: not even on both nodes
  EXPECT_EQ(check_hugepages(fixture("nested-vm"), &g).status, CheckStatus::kFail);
}

TEST(HugepagesCheck, LayoutWithoutHugepagesSkips) {
  auto g = guest_on("4-7");
  EXPECT_EQ(check_hugepages(fixture("tuned-host"), &g).status, CheckStatus::kSkip);
}

TEST(CpufreqCheck, PerformanceOnGuestCpus) {
  auto g = guest_on("4-7");
  auto r = check_cpufreq(fixture("tuned-host"), &g);
  EXPECT_EQ(r.status, CheckStatus::kOk) << r.reason;
  EXPECT_TRUE(has(r, "performance on 4-7, turbo on")) << r.reason;
}

TEST(CpufreqCheck, PowersaveWarnsWithCpupowerFix) {
  auto g = guest_on("2-5");
  auto r = check_cpufreq(fixture("tuned-host"), &g);
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_EQ(r.fix.rfind("cpupower -c 2-3 frequency-set -g performance", 0), 0u) << r.fix;
}

TEST(CpufreqCheck, NoCpufreqSkips) {
  auto r = check_cpufreq(fixture("nested-vm"), nullptr);
  EXPECT_EQ(r.status, CheckStatus::kSkip);
  EXPECT_TRUE(has(r, "CPUs 0-3")) << r.reason;
}

TEST(IrqCheck, BannedIrqbalanceAndIrqsOffGuestIsOk) {
  auto g = guest_on("4-7");
  auto r = check_irq_affinity(fixture("tuned-host"), &g);
  EXPECT_EQ(r.status, CheckStatus::kOk) << r.reason;
  EXPECT_TRUE(has(r, "banned CPUs 4-7")) << r.reason;
}

TEST(IrqCheck, IrqsOnGuestCpusWarn) {
  auto g = guest_on("0-1");
  auto tuned = check_irq_affinity(fixture("tuned-host"), &g);
  EXPECT_EQ(tuned.status, CheckStatus::kWarn);
  EXPECT_TRUE(has(tuned, "irqbalance running (banned CPUs 4-7) and will move IRQs"))
      << tuned.reason;
  auto g2 = guest_on("2-3");
  auto nested = check_irq_affinity(fixture("nested-vm"), &g2);
  EXPECT_EQ(nested.status, CheckStatus::kWarn);
  EXPECT_TRUE(has(nested, "2 of 3 IRQs may fire on guest CPUs 2-3")) << nested.reason;
}

TEST(ThpCheck, NeverWarnsUnlessHugepagesUsed) {
  EXPECT_EQ(check_thp(fixture("tuned-host"), nullptr).status, CheckStatus::kOk);
  auto r = check_thp(fixture("nested-vm"), nullptr);
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_TRUE(has(r, "THP never")) << r.reason;
  auto g = guest_on("0-1");
  g.hugepage_kib = 2048;
  EXPECT_EQ(check_thp(fixture("nested-vm"), &g).status, CheckStatus::kOk);
}

TEST(SmtCheck, GuestThreadsNeedHostSmt) {
  auto g = guest_on("0-3");
  g.threads_per_core = 2;
  auto r = check_smt(fixture("nested-vm"), &g);
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_EQ(r.fix, "echo on > /sys/devices/system/cpu/smt/control");
  EXPECT_EQ(check_smt(fixture("tuned-host"), &g).status, CheckStatus::kOk);
}

TEST(ExposureCheck, WindowsHomeWithTwoSocketsWarns) {
  auto g = guest_on("0-7");
  g.sockets = 2;
  g.guest_os = read_guest_edition("windows-home").value();
  auto r = check_exposure(&g);
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_TRUE(has(r, "uses at most 1")) << r.reason;
  g.guest_os = read_guest_edition("windows-pro").value();
  EXPECT_EQ(check_exposure(&g).status, CheckStatus::kOk);
  g.sockets = 4;
  EXPECT_EQ(check_exposure(&g).status, CheckStatus::kWarn);
  g.guest_os = read_guest_edition("windows-pro-workstations").value();
  EXPECT_EQ(check_exposure(&g).status, CheckStatus::kOk);
  g.guest_os = read_guest_edition("linux").value();
  EXPECT_EQ(check_exposure(&g).status, CheckStatus::kOk);
  g.guest_os.reset();
  EXPECT_EQ(check_exposure(&g).status, CheckStatus::kWarn);  // unknown OS, several sockets
}

TEST(CpuMask, SysfsWordFormat) {
  EXPECT_EQ(cpu_mask_string(CpuList{0, 1, 2, 3}), "f");
  EXPECT_EQ(cpu_mask_string(CpuList{}), "0");
  EXPECT_EQ(cpu_mask_string(CpuList{0, 35}), "8,00000001");
  EXPECT_EQ(CpuList::parse_mask(cpu_mask_string(CpuList{1, 33, 64})).value().to_string(),
            "1,33,64");
}

}  // namespace
}  // namespace topolab::doctor
