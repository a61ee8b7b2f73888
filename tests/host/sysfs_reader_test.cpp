// Specific quirks of the real captures and hand-made trees (bad input: sysfs_bad_input_test.cpp).
#include "host/sysfs_reader.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cctype>
#include <fstream>
#include <set>
#include <string>

#include "tests/host/test_support.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::write_text;

const fs::path kHwloc = fs::path(TOPOLAB_FIXTURES_DIR) / "hwloc";

HostTopology read_fixture(const std::string& archive, TempDir& tmp) {
  auto topo = read_sysfs_topology(testing::unpack_fixture(kHwloc / archive, tmp.path()));
  if (!topo) throw std::runtime_error(topo.error().message);
  return *topo;
}

TEST(SysfsQuirks, BulldozerModulePairIsOneCoreWithTwoThreads) {
  // Module pairs share thread_siblings; we keep the kernel/libvirt view (docs/host-topology.md).
  TempDir tmp;
  HostTopology t = read_fixture("64amd64-4s2n4ca2co.tar.bz2", tmp);
  EXPECT_EQ(t.cpu(0)->siblings, (CpuList{0, 1}));
  EXPECT_EQ(t.cpu(0)->core, t.cpu(1)->core);
  // core_id restarts on the second die: cpu0 and cpu8 are both core_id 0 of package 0.
  EXPECT_NE(t.cpu(0)->core, t.cpu(8)->core);
  EXPECT_EQ(t.cores().size(), 32u);
  EXPECT_TRUE(t.has_smt());
  EXPECT_EQ(t.vendor, "AuthenticAMD");
  EXPECT_EQ(t.model, "AMD Opteron(TM) Processor 6276");
}

TEST(SysfsQuirks, PackageIdsOutOfOrderAndNodeIdsNonMonotonic) {
  TempDir tmp;
  HostTopology t = read_fixture("64amd64-4p2n4ca2co.tar.bz2", tmp);
  EXPECT_EQ(t.cpu(16)->package, 3);
  EXPECT_EQ(t.cpu(32)->package, 1);
  EXPECT_EQ(t.cpu(16)->node, 6);
  EXPECT_EQ(t.cpu(32)->node, 2);
  // L3 domains are numbered by first CPU, not by package.
  EXPECT_EQ(t.l3_domains[2].cpus, CpuList::range(16, 23));
  EXPECT_EQ(t.cpu(16)->l3, 2);
}

TEST(SysfsQuirks, SparseNodeNumbersMemoryAndHugepages) {
  TempDir tmp;
  HostTopology t = read_fixture("48amd64-4pa2n6c-sparse.tar.bz2", tmp);
  std::vector<int> ids;
  for (const auto& n : t.numa_nodes) ids.push_back(n.id);
  EXPECT_EQ(ids, (std::vector<int>{0, 1, 2, 33, 34, 45, 72, 73}));
  EXPECT_EQ(t.cpu(18)->node, 33);
  for (const auto& n : t.numa_nodes) EXPECT_GT(n.memory_kib, 0u) << "node " << n.id;
  ASSERT_FALSE(t.numa_nodes[0].hugepages.empty());
  EXPECT_EQ(t.numa_nodes[0].hugepages[0].page_kib, 2048u);
  // core_id repeats on both dies of a package, but every CPU is its own core.
  EXPECT_EQ(t.cores().size(), 48u);
  EXPECT_NE(t.cpu(0)->core, t.cpu(6)->core);
}

TEST(SysfsQuirks, OfflineCpusWithoutTopologyAndStaleLists) {
  TempDir tmp;
  HostTopology t = read_fixture("offline-cpu0-node0.tar.bz2", tmp);
  ASSERT_EQ(t.cpus.size(), 24u);
  EXPECT_FALSE(t.cpu(0)->online);
  EXPECT_FALSE(t.cpu(23)->online);
  EXPECT_TRUE(t.cpu(4)->online);
  EXPECT_EQ(t.online_cpus(), CpuList::range(4, 20));
  // Stale *_list files name offline CPUs: they must not leak into any set.
  ASSERT_EQ(t.numa_nodes.size(), 1u);
  EXPECT_EQ(t.numa_nodes[0].id, 1);
  EXPECT_EQ(t.numa_nodes[0].cpus, (CpuList{5, 7, 9, 11, 13, 15, 17, 19}));
  EXPECT_EQ(t.cpu(4)->node, -1);  // node0 is gone
  EXPECT_EQ(t.l3_domains[0].cpus, (CpuList{4, 6, 8, 10, 12, 14, 16, 18, 20}));
  EXPECT_TRUE(t.isolated.empty());
  EXPECT_EQ(t.numa_nodes[0].memory_kib, 67108864u);
}

TEST(SysfsQuirks, HexMasksOnlyWithOfflineCpus) {
  TempDir tmp;
  HostTopology t = read_fixture("16em64t-4s2c2t-offlines.tar.bz2", tmp);
  EXPECT_EQ(t.cpu(0)->siblings, (CpuList{0, 8}));
  EXPECT_EQ(t.cpu(6)->siblings, (CpuList{6}));  // sibling 14 is offline
  EXPECT_FALSE(t.cpu(2)->online);
  EXPECT_EQ(t.l3_domains.size(), 4u);
  EXPECT_EQ(t.l3_domains[0].size_kib, 4096u);
}

TEST(SysfsQuirks, DiesAreUniqueMachineWide) {
  TempDir tmp;
  HostTopology t = read_fixture("fakecpuid1f-64intel64-2p4d2n2c2t.tar.bz2", tmp);
  ASSERT_EQ(t.dies.size(), 8u);
  EXPECT_EQ(t.dies[3].package, 1);
  EXPECT_EQ(t.dies[3].die_id, 1);
  EXPECT_EQ(t.dies[3].cpus, CpuList::range(24, 31));
  EXPECT_EQ(t.cpu(24)->die, 3);
  EXPECT_EQ(t.cpu(8)->die, 1);
}

TEST(SysfsQuirks, NoL3AndMissingCacheDirectories) {
  TempDir a, b;
  HostTopology k8 = read_fixture("16amd64-8n2c.tar.bz2", a);
  EXPECT_TRUE(k8.l3_domains.empty());
  EXPECT_EQ(k8.cpu(0)->l3, -1);
  HostTopology asym = read_fixture("8em64t-2s4c-asymcaches.tar.bz2", b);
  EXPECT_TRUE(asym.l3_domains.empty());
  EXPECT_EQ(asym.cores().size(), 8u);
}

TEST(SysfsReader, ReadsMinimalTreeWithIsolatedCpus) {
  TempDir tmp;
  auto t = read_sysfs_topology(testing::make_minimal_sysfs_tree(tmp.path()));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->isolated, (CpuList{2, 3}));
  EXPECT_EQ(t->cores().size(), 2u);
  EXPECT_EQ(t->l3_domains.at(0).size_kib, 16384u);
  EXPECT_EQ(t->numa_nodes.at(0).memory_kib, 1048576u);
  EXPECT_EQ(t->dies.size(), 1u);
  EXPECT_EQ(t->source, "sysfs:" + tmp.path().string());
}

// A sysfs attribute's text without its newline ("" when unreadable).
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  std::getline(in, text);
  return text;
}

TEST(SysfsReader, ReadsThisMachine) {
  auto t = read_sysfs_topology("/");
  ASSERT_TRUE(t.ok()) << t.error().message;
  // Each fact against this machine's sysfs read here, file by file (not "not empty").
  const std::string cpu_dir = "/sys/devices/system/cpu/";
  auto online = CpuList::parse(slurp(cpu_dir + "online"));
  ASSERT_TRUE(online.ok()) << online.error().message;
  EXPECT_EQ(t->online_cpus(), *online);
  std::set<int> packages;
  for (int c : *online) {
    const std::string topo = cpu_dir + "cpu" + std::to_string(c) + "/topology/";
    const int package = std::stoi(slurp(topo + "physical_package_id"));
    packages.insert(package);
    ASSERT_NE(t->cpu(c), nullptr) << c;
    EXPECT_EQ(t->cpu(c)->package, package) << "cpu " << c;
    auto siblings = CpuList::parse(slurp(topo + "thread_siblings_list"));
    ASSERT_TRUE(siblings.ok()) << siblings.error().message;
    EXPECT_EQ(t->cpu(c)->siblings, *siblings) << "cpu " << c;
  }
  EXPECT_EQ(t->packages.size(), packages.size());
  std::size_t nodes = 0;
  for (const auto& e : fs::directory_iterator("/sys/devices/system/node")) {
    const auto name = e.path().filename().string();
    if (name.rfind("node", 0) == 0 && name.size() > 4 && std::isdigit(name[4])) ++nodes;
  }
  EXPECT_EQ(t->numa_nodes.size(), nodes);
}

}  // namespace
}  // namespace topolab
