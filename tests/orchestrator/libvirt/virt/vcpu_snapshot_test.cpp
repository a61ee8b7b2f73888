// Parsing QEMU's `info registers -a` into which vCPU was where when the boot watchdog fired.
#include "orchestrator/libvirt/virt/vcpu_snapshot.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace topolab::virt {
namespace {

// The shape of QEMU 7.2's HMP output (two vCPUs of a real TCG guest, lines shortened).
const char* kTwoVcpus =
    "CPU#0\n"
    "RAX=0000000000000000 RBX=0000000000000000 RCX=0000000000000001 RDX=0000000000000000\n"
    "RIP=ffffffff81a592eb RFL=00000242 [---Z---] CPL=0 II=0 A20=1 SMM=0 HLT=1\n"
    "ES =0000 0000000000000000 00000000 00000000\n"
    "CPU#1\n"
    "RIP=ffffffff8112a0c4 RFL=00000202 [-------] CPL=0 II=0 A20=1 SMM=0 HLT=0\n"
    "EIP=00000000 junk RIP line above counts\n";

TEST(VcpuSnapshot, ParsesEachVcpusRipPrivilegeAndHaltState) {
  auto v = parse_vcpu_registers(kTwoVcpus);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].cpu, 0);
  EXPECT_EQ(v[0].rip, "ffffffff81a592eb");
  EXPECT_TRUE(v[0].halted);
  EXPECT_EQ(v[0].cpl, 0);
  EXPECT_EQ(v[1].cpu, 1);
  EXPECT_EQ(v[1].rip, "ffffffff8112a0c4");
  EXPECT_FALSE(v[1].halted);
  EXPECT_EQ(summarize_vcpus(v),
            "2 vCPUs; RIP=ffffffff81a592eb CPL=0 on 1 (#0; 1 halted); RIP=ffffffff8112a0c4 CPL=0 "
            "on 1 (#1; 0 halted)");
  // Idle vCPUs share the idle loop's RIP: one group, the odd one out stands apart.
  std::string sixteen;
  for (int i = 0; i < 16; ++i) {
    sixteen += "CPU#" + std::to_string(i) +
               "\nRIP=" + (i == 3 ? "ffffffff8112a0c4" : "ffffffff81a592eb") + " CPL=0 HLT=1\n";
  }
  EXPECT_EQ(summarize_vcpus(parse_vcpu_registers(sixteen)),
            "16 vCPUs; RIP=ffffffff81a592eb CPL=0 on 15 (#0,#1,#2,#4,#5,#6,#7,#8,#9,#10,#11,#12,"
            "#13,#14,#15; 15 halted); RIP=ffffffff8112a0c4 CPL=0 on 1 (#3; 1 halted)");
}

TEST(VcpuSnapshot, HostileOrEmptyTextGivesWhatCanBeRead) {
  EXPECT_EQ(summarize_vcpus(parse_vcpu_registers("")), "no vCPU registers read");
  EXPECT_EQ(summarize_vcpus(parse_vcpu_registers("error: domain is not running\n")),
            "no vCPU registers read");
  // A bad number, a RIP that is not hex, a RIP line before any CPU header.
  auto v =
      parse_vcpu_registers("RIP=ffffffff81000000 HLT=0\nCPU#x\nCPU#7\nRIP=$(reboot) CPL=9 HLT=1\n");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].cpu, 7);
  EXPECT_EQ(v[0].rip, "");
  EXPECT_EQ(v[0].cpl, -1);
  EXPECT_TRUE(v[0].halted);
  std::string many;
  for (int i = 0; i < 3000; ++i) many += "CPU#" + std::to_string(i) + "\nRIP=1 HLT=0\n";
  auto capped = parse_vcpu_registers(many);
  EXPECT_EQ(capped.size(), 1024u);
  EXPECT_LT(summarize_vcpus(capped).size(), 800u) << "the summary stays one short line";
  std::string scattered;  // every vCPU somewhere else: 8 places shown, all counted
  for (int i = 0; i < 40; ++i)
    scattered += "CPU#" + std::to_string(i) + "\nRIP=" + std::to_string(i + 10) + "\n";
  const auto line = summarize_vcpus(parse_vcpu_registers(scattered));
  EXPECT_EQ(line.rfind("40 vCPUs; ", 0), 0u) << line;
  EXPECT_LT(line.size(), 800u);
}

// virsh passes QEMU's HMP text on with CRLF line ends (a real hung guest's vcpus.log): the
// halted count read 0 of 2 for two halted vCPUs before.
TEST(VcpuSnapshot, CrlfLinesFromVirshStillCountHaltedVcpus) {
  const auto v = parse_vcpu_registers(
      "CPU#0\r\nRIP=ffffffff81a592eb RFL=00000252 [---ZA--] CPL=0 II=0 A20=1 SMM=0 HLT=1\r\n"
      "CPU#1\r\nRIP=ffffffff81a592eb RFL=00000256 [---ZAP-] CPL=0 II=0 A20=1 SMM=0 HLT=1\r\n");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].cpu, 1);
  EXPECT_EQ(summarize_vcpus(v), "2 vCPUs; RIP=ffffffff81a592eb CPL=0 on 2 (#0,#1; 2 halted)");
}

TEST(VcpuSnapshot, InspectsTheFirstVcpuOfEachPlace) {
  std::string text;
  for (int i = 0; i < 16; ++i) {
    const char* rip = i == 5   ? "ffffffff81a44ffe"
                      : i == 9 ? "ffffffff81108630"
                               : "ffffffff81a592eb";
    text += "CPU#" + std::to_string(i) + "\nRIP=" + rip + " CPL=0 HLT=0\n";
  }
  EXPECT_EQ(vcpus_to_inspect(parse_vcpu_registers(text)), (std::vector<int>{0, 5, 9}));
  std::string scattered;  // 40 places: the first 8, as in the summary
  for (int i = 0; i < 40; ++i)
    scattered += "CPU#" + std::to_string(i) + "\nRIP=" + std::to_string(i + 10) + "\n";
  EXPECT_EQ(vcpus_to_inspect(parse_vcpu_registers(scattered)).size(), 8u);
  EXPECT_TRUE(vcpus_to_inspect({}).empty());
}

TEST(VcpuSnapshot, MonitorRequestAndReplyText) {
  const auto request = nlohmann::json::parse(hmp_on_vcpu_request(3, "x/16bx $pc"));
  EXPECT_EQ(request["execute"], "human-monitor-command");
  EXPECT_EQ(request["arguments"]["command-line"], "x/16bx $pc");
  EXPECT_EQ(request["arguments"]["cpu-index"], 3);
  // A real reply (QEMU 7.2 through virsh) and what is not one.
  EXPECT_EQ(qmp_return_text("{\"return\":\"ffffc9000009bed8: 0xffffffff81a5918a "
                            "0xffffffff81a59438\\r\\n\",\"id\":\"libvirt-413\"}\n"),
            "ffffc9000009bed8: 0xffffffff81a5918a 0xffffffff81a59438\n");
  EXPECT_EQ(qmp_return_text(""), "");
  EXPECT_EQ(qmp_return_text("error: Requested operation is not valid: domain is not running"), "");
  EXPECT_EQ(qmp_return_text("{\"error\":{\"class\":\"GenericError\"}}"), "");
  EXPECT_EQ(qmp_return_text("{\"return\":{}}"), "");
  EXPECT_EQ(qmp_return_text("{\"return\":\"x\""), "") << "cut JSON";
}

}  // namespace
}  // namespace topolab::virt
