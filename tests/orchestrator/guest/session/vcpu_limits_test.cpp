// Issue 12 class 11: layouts that can never boot are refused at plan time. The hello bound is
// proven here by building the worst-case hello at kMaxHelloVcpus; the machine limit comes from
// the real libvirt (QEMU 7.2's q35: 288) through `topolab plan`.
#include "orchestrator/guest/session/vcpu_limits.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "host/topology_json.hpp"
#include "protocol/protocol.hpp"
#include "tests/support/child_process.hpp"

namespace topolab::session {
namespace {

// A guest topology of n CPUs shaped to make the hello as long as possible: every CPU in its own
// package, die, L3 and NUMA node (an entry each beats a list item), 7-digit ids, 8 scattered
// SMT siblings, offline, three hugepage pools per node with 20-digit counts, all isolated with
// scattered ids, and 4 KiB strings wherever the guest names something.
HostTopology worst_case_topology(int n) {
  constexpr int kBig = 9999999;
  constexpr std::uint64_t kHuge = UINT64_MAX;
  HostTopology t;
  for (int i = 0; i < n; ++i) {
    CpuInfo c;
    c.id = i;
    c.online = false;
    c.package = c.die = c.core = c.l3 = c.node = kBig;
    for (int s = 0; s < 8; ++s) c.siblings.insert((i + 2 * s) % n);
    t.cpus.push_back(c);
    t.packages.push_back({kBig, CpuList{i}});
    t.dies.push_back({kBig, kBig, kBig, CpuList{i}});
    t.l3_domains.push_back({kBig, CpuList{i}, kHuge});
    NumaNode node{kBig, CpuList{i}, kHuge, {}, false, {}};
    for (int p = 0; p < 3; ++p) node.hugepages.push_back({kHuge, kHuge, kHuge});
    t.numa_nodes.push_back(node);
    if (i % 2 == 0) t.isolated.insert(i);
  }
  t.vendor = t.model = t.source = std::string(4096, 'x');
  return t;
}

std::size_t worst_case_hello_bytes(int n) {
  protocol::Hello h;
  h.agent_version = h.kernel = h.cpu_model = std::string(4096, 'x');
  h.uptime_ms = UINT64_MAX;
  h.topology = topology_to_json(worst_case_topology(n));
  return protocol::encode(protocol::hello_message(h)).size();
}

TEST(VcpuLimits, WorstCaseHelloAtTheBoundFitsTheLineCap) {
  const auto at_bound = worst_case_hello_bytes(kMaxHelloVcpus);
  EXPECT_LE(at_bound, protocol::kMaxLineBytes) << at_bound << " bytes";
  // The bound is not loose by more than a third: the figure is real, not a guess.
  EXPECT_GT(worst_case_hello_bytes(kMaxHelloVcpus * 4 / 3), protocol::kMaxLineBytes);
  std::cout << "worst-case hello: " << at_bound << " bytes at " << kMaxHelloVcpus << " vCPUs ("
            << at_bound / kMaxHelloVcpus << " bytes per vCPU)\n";
}

TEST(VcpuLimits, RefusalNamesCountLimitAndSource) {
  Layout l;
  l.name = "big";
  l.l3_groups = 17;
  l.cores_per_group = 17;
  l.threads_per_core = 1;
  VcpuLimit limit{288, "machine q35 allows at most 288 vCPUs"};
  auto r = check_vcpu_limit(l, limit);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("289 vCPUs cannot boot: at most 288 (machine q35"),
            std::string::npos)
      << r.error().message;
  l.cores_per_group = 16;
  l.threads_per_core = 1;
  l.l3_groups = 18;
  EXPECT_TRUE(check_vcpu_limit(l, limit));  // 288
  EXPECT_EQ(static_vcpu_limit().max, kMaxHelloVcpus);
}

TEST(VcpuLimits, DomainCapabilitiesVcpuMax) {
  EXPECT_EQ(*parse_domcaps_vcpu_max("<domainCapabilities><vcpu max='288'/></domainCapabilities>"),
            288);
  EXPECT_FALSE(parse_domcaps_vcpu_max("<domainCapabilities/>"));
  EXPECT_FALSE(parse_domcaps_vcpu_max("<x"));
}

// Through the CLI with the real libvirt: 289 vCPUs (17 x 17) refused naming libvirt's q35
// limit; 288 (16 x 18) plans. Plan only, on a synthetic 2-CPU-free host description.
TEST(VcpuLimits, PlanRefuses289VcpusOnQ35AndAccepts288) {
  // The TSan tree builds this folder's tests but not the CLI (tests/tsan/CMakeLists.txt).
  if (::access(TOPOLAB_CLI, X_OK) != 0) GTEST_SKIP() << "no topolab CLI in this tree";
  auto refused = testing::run_cli({"plan", "ryzen-1700x", "--groups", "17", "--cores", "17",
                                   "--threads", "1", "--policy", "unpinned"},
                                  std::chrono::seconds(60));
  EXPECT_EQ(refused.exit_code, 4) << refused.out << refused.err;  // ExitCode::does_not_fit
  EXPECT_NE(refused.err.find("289 vCPUs cannot boot: at most 288"), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("libvirt domain capabilities of qemu:///system: machine q35"),
            std::string::npos)
      << refused.err;
  auto accepted = testing::run_cli({"plan", "ryzen-1700x", "--groups", "18", "--cores", "16",
                                    "--threads", "1", "--policy", "unpinned"},
                                   std::chrono::seconds(60));
  EXPECT_EQ(accepted.exit_code, 0) << accepted.err;
  // Without libvirt only the hello bound applies, and says so.
  auto sysfs = testing::run_cli({"plan", "ryzen-1700x", "--groups", "64", "--cores", "32",
                                 "--threads", "1", "--policy", "unpinned", "--sysfs", "/"},
                                std::chrono::seconds(60));
  EXPECT_EQ(sysfs.exit_code, 4);  // ExitCode::does_not_fit
  EXPECT_NE(sysfs.err.find("2048 vCPUs cannot boot: at most " + std::to_string(kMaxHelloVcpus)),
            std::string::npos)
      << sysfs.err;
  EXPECT_NE(sysfs.err.find("no libvirt connection"), std::string::npos) << sysfs.err;
}

}  // namespace
}  // namespace topolab::session
