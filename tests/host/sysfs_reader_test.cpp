// Specific quirks of the real captures, and hand-made trees for bad input.
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

// A minimal tree: cpu0..cpu3, two SMT pairs, one L3, one node.
fs::path make_tree(const fs::path& root) {
  fs::path cpu = root / "sys/devices/system/cpu";
  for (int i = 0; i < 4; ++i) {
    fs::path c = cpu / ("cpu" + std::to_string(i));
    write_text(c / "topology/physical_package_id", "0\n");
    write_text(c / "topology/thread_siblings_list", i < 2 ? "0-1\n" : "2-3\n");
    write_text(c / "cache/index3/level", "3\n");
    write_text(c / "cache/index3/shared_cpu_list", "0-3\n");
    write_text(c / "cache/index3/size", "16384K\n");
  }
  write_text(cpu / "online", "0-3\n");
  write_text(cpu / "isolated", "2-3\n");
  write_text(root / "sys/devices/system/node/node0/cpulist", "0-3\n");
  write_text(root / "sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:  1048576 kB\n");
  return root;
}

TEST(SysfsReader, ReadsMinimalTreeWithIsolatedCpus) {
  TempDir tmp;
  auto t = read_sysfs_topology(make_tree(tmp.path()));
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

TEST(SysfsBadInput, MissingRoot) {
  auto t = read_sysfs_topology("/nonexistent/topolab-root");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("/nonexistent/topolab-root"), std::string::npos);
}

TEST(SysfsBadInput, TreeWithoutCpus) {
  TempDir tmp;
  fs::create_directories(tmp.path() / "sys/devices/system/cpu/cpufreq");
  auto t = read_sysfs_topology(tmp.path());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("no CPUs"), std::string::npos) << t.error().message;
  EXPECT_NE(t.error().message.find(tmp.path().string()), std::string::npos);

  TempDir empty;
  auto e = read_sysfs_topology(empty.path());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find(empty.path().string()), std::string::npos);
}

struct Garble {
  const char* file;  // relative to the tree root
  const char* text;
};

class SysfsGarbled : public ::testing::TestWithParam<Garble> {};

TEST_P(SysfsGarbled, ErrorNamesPathAndText) {
  TempDir tmp;
  make_tree(tmp.path());
  write_text(tmp.path() / GetParam().file, GetParam().text);
  auto t = read_sysfs_topology(tmp.path());
  ASSERT_FALSE(t.ok());
  const std::string& msg = t.error().message;
  EXPECT_NE(msg.find((tmp.path() / GetParam().file).string()), std::string::npos) << msg;
  EXPECT_NE(msg.find("xyz"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(
    Files, SysfsGarbled,
    ::testing::Values(Garble{"sys/devices/system/cpu/cpu1/topology/physical_package_id", "xyz\n"},
                      Garble{"sys/devices/system/cpu/cpu1/topology/thread_siblings_list", "0-xyz"},
                      Garble{"sys/devices/system/cpu/online", "0-3,xyz\n"},
                      Garble{"sys/devices/system/cpu/isolated", "xyz"},
                      Garble{"sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list", "xyz"},
                      Garble{"sys/devices/system/cpu/cpu0/cache/index3/size", "xyzK"},
                      Garble{"sys/devices/system/cpu/cpu2/online", "xyz"},
                      Garble{"sys/devices/system/node/node0/cpulist", "1,xyz"},
                      Garble{"sys/devices/system/node/node0/meminfo",
                             "Node 0 MemTotal: xyz kB\n"}));

TEST(SysfsBadInput, GarbledHexMask) {
  TempDir tmp;
  make_tree(tmp.path());
  fs::path topo = tmp.path() / "sys/devices/system/cpu/cpu3/topology";
  fs::remove(topo / "thread_siblings_list");
  write_text(topo / "thread_siblings", "0000,zz0c\n");
  auto t = read_sysfs_topology(tmp.path());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find((topo / "thread_siblings").string()), std::string::npos);
  EXPECT_NE(t.error().message.find("zz0c"), std::string::npos) << t.error().message;
}

TEST(SysfsBadInput, UnreadableAttribute) {
  // Runs as root, so permissions do not stop reads: a directory where a file belongs does.
  TempDir tmp;
  make_tree(tmp.path());
  fs::path pkg = tmp.path() / "sys/devices/system/cpu/cpu0/topology/physical_package_id";
  fs::remove(pkg);
  fs::create_directories(pkg);
  auto t = read_sysfs_topology(tmp.path());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find(pkg.string()), std::string::npos) << t.error().message;
}

TEST(SysfsBadInput, BinaryJunkNeverCrashes) {
  std::string junk;
  for (int i = 0; i < 4096; ++i) junk.push_back(static_cast<char>((i * 7919) & 0xff));
  {
    TempDir tmp;
    make_tree(tmp.path());
    write_text(tmp.path() / "sys/devices/system/cpu/cpu0/topology/thread_siblings_list", junk);
    auto t = read_sysfs_topology(tmp.path());
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().message.find('\n'), std::string::npos);
  }
  {
    // meminfo without a MemTotal line: memory unknown, not an error.
    TempDir tmp;
    make_tree(tmp.path());
    write_text(tmp.path() / "sys/devices/system/node/node0/meminfo", junk);
    auto t = read_sysfs_topology(tmp.path());
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->numa_nodes.at(0).memory_kib, 0u);
  }
}

TEST(SysfsReader, AsymmetricSiblingListsFormOneCore) {
  TempDir tmp;
  make_tree(tmp.path());
  // cpu2 claims only itself, cpu3 claims 2-3: still one core {2,3}.
  write_text(tmp.path() / "sys/devices/system/cpu/cpu2/topology/thread_siblings_list", "2\n");
  auto t = read_sysfs_topology(tmp.path());
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->cpu(2)->siblings, (CpuList{2, 3}));
  EXPECT_EQ(t->cores().size(), 2u);
}

}  // namespace
// --- issue 12, class 2: limits before expansion ---

TEST(SysfsLimits, ManyFullSiblingListsStopAtTheExpansionBudget) {
  TempDir tmp;
  make_tree(tmp.path());
  fs::path cpu = tmp.path() / "sys/devices/system/cpu";
  // 1100 online CPUs, each claiming all 8192 ids as SMT siblings: 9 million ids, 7 bytes of
  // text each. The first 1024 fit the budget; the next one is refused before it is expanded.
  for (int i = 4; i < 1100; ++i) {
    write_text(cpu / ("cpu" + std::to_string(i)) / "topology/physical_package_id", "0\n");
  }
  for (int i = 0; i < 1100; ++i) {
    write_text(cpu / ("cpu" + std::to_string(i)) / "topology/thread_siblings_list", "0-8191\n");
  }
  write_text(cpu / "online", "0-1099\n");
  auto t = read_sysfs_topology(tmp.path());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("topology/thread_siblings_list: CPU lists together name more "
                                   "than 8388608 CPU ids; refusing to expand them"),
            std::string::npos)
      << t.error().message;
}

TEST(SysfsLimits, AHugeRangeIsRefusedOnItsText) {
  TempDir tmp;
  make_tree(tmp.path());
  fs::path list = tmp.path() / "sys/devices/system/cpu/cpu1/topology/thread_siblings_list";
  write_text(list, "0-4000000000\n");
  auto t = read_sysfs_topology(tmp.path());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, list.string() +
                                   ": invalid CPU list '0-4000000000': CPU id "
                                   "'4000000000' is beyond the maximum 8191");
}

TEST(SysfsLimits, ACpuDirectoryBeyondTheLargestIdIsRefused) {
  TempDir tmp;
  make_tree(tmp.path());
  fs::create_directories(tmp.path() / "sys/devices/system/cpu/cpu8192/topology");
  auto t = read_sysfs_topology(tmp.path());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("CPU id 8192 is outside 0..8191"), std::string::npos)
      << t.error().message;
}

}  // namespace topolab

namespace topolab {
namespace {
namespace fs = std::filesystem;

// Issue 32 class 4: "cpu01" was read as CPU 1 (standing in for, or duplicating, cpu1).
TEST(SysfsAmbiguity, ALeadingZeroCpuDirectoryIsRefused) {
  TempDir tmp;
  make_tree(tmp.path());
  fs::create_directories(tmp.path() / "sys/devices/system/cpu/cpu01/topology");
  auto t = read_sysfs_topology(tmp.path());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("cpu01: a number with a leading zero"), std::string::npos)
      << t.error().message;
}

// A topology/ symlink to itself (ELOOP) or to its CPU directory was read as "no topology/":
// package 0, no siblings, silently.
TEST(SysfsAmbiguity, ALoopingTopologyLinkIsRefused) {
  // cpu3 is online; cpu4 (not in cpu/online) is offline: a loop is refused either way.
  for (const char* cpu : {"cpu3", "cpu4"})
    for (const char* target : {"topology", "."}) {
      TempDir tmp;
      make_tree(tmp.path());
      const fs::path topo = tmp.path() / "sys/devices/system/cpu" / cpu / "topology";
      fs::remove_all(topo);
      fs::create_directories(topo.parent_path());
      fs::create_directory_symlink(target, topo);
      auto t = read_sysfs_topology(tmp.path());
      ASSERT_FALSE(t.ok()) << target;
      EXPECT_NE(t.error().message.find(topo.string() + ": a symlink"), std::string::npos)
          << t.error().message;
    }
}

// Issue 32 class 3: sizes past the bounds are refused, never shown (a MemTotal of INT64_MAX kB,
// a hugepage size of 2^62 kB).
TEST(SysfsNumbers, HugeMemoryAndHugepageSizesAreRefused) {
  {
    TempDir tmp;
    make_tree(tmp.path());
    write_text(tmp.path() / "sys/devices/system/node/node0/meminfo",
               "Node 0 MemTotal:  9223372036854775807 kB\n");
    auto t = read_sysfs_topology(tmp.path());
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.error().message.find("NUMA node 0: memory of 9223372036854775807 KiB is beyond"),
              std::string::npos)
        << t.error().message;
  }
  TempDir tmp;
  make_tree(tmp.path());
  write_text(tmp.path() /
                 "sys/devices/system/node/node0/hugepages/hugepages-4611686018427387904kB/"
                 "nr_hugepages",
             "4\n");
  auto t = read_sysfs_topology(tmp.path());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("hugepage size of 4611686018427387904 KiB"), std::string::npos)
      << t.error().message;
}

TEST(SysfsNumbers, ANodeIdBeyondTheBoundIsRefused) {
  TempDir tmp;
  make_tree(tmp.path());
  write_text(tmp.path() / "sys/devices/system/node/node9999999/cpulist", "\n");
  auto t = read_sysfs_topology(tmp.path());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("NUMA node 9999999: id outside 0..1048576"), std::string::npos)
      << t.error().message;
}

}  // namespace
}  // namespace topolab
