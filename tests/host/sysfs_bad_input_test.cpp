// Hand-made sysfs trees with bad input: every refusal names its file, stays one line and has
// the kind the CLI maps to an exit code (input for malformed text, not-found for a missing root).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "host/sysfs_reader.hpp"
#include "tests/host/test_support.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using testing::make_minimal_sysfs_tree;
using testing::TempDir;
using testing::write_text;

TEST(SysfsBadInput, MissingRoot) {
  auto t = read_sysfs_topology("/nonexistent/topolab-root");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("/nonexistent/topolab-root"), std::string::npos);
  EXPECT_TRUE(t.error().is(ErrorKind::not_found)) << to_string(t.error().kind);
}

TEST(SysfsBadInput, TreeWithoutCpus) {
  TempDir tmp;
  fs::create_directories(tmp.path() / "sys/devices/system/cpu/cpufreq");
  auto t = read_sysfs_topology(tmp.path());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("no CPUs"), std::string::npos) << t.error().message;
  EXPECT_NE(t.error().message.find(tmp.path().string()), std::string::npos);
  EXPECT_TRUE(t.error().is(ErrorKind::input)) << to_string(t.error().kind);

  TempDir empty;
  auto e = read_sysfs_topology(empty.path());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find(empty.path().string()), std::string::npos);
  EXPECT_TRUE(e.error().is(ErrorKind::not_found)) << to_string(e.error().kind);
}

struct Garble {
  const char* file;  // relative to the tree root
  const char* text;
};

class SysfsGarbled : public ::testing::TestWithParam<Garble> {};

TEST_P(SysfsGarbled, ErrorNamesPathAndText) {
  TempDir tmp;
  make_minimal_sysfs_tree(tmp.path());
  write_text(tmp.path() / GetParam().file, GetParam().text);
  auto t = read_sysfs_topology(tmp.path());
  ASSERT_FALSE(t.ok());
  const std::string& msg = t.error().message;
  EXPECT_NE(msg.find((tmp.path() / GetParam().file).string()), std::string::npos) << msg;
  EXPECT_NE(msg.find("xyz"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_TRUE(t.error().is(ErrorKind::input)) << to_string(t.error().kind);
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
  make_minimal_sysfs_tree(tmp.path());
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
  make_minimal_sysfs_tree(tmp.path());
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
    make_minimal_sysfs_tree(tmp.path());
    write_text(tmp.path() / "sys/devices/system/cpu/cpu0/topology/thread_siblings_list", junk);
    auto t = read_sysfs_topology(tmp.path());
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().message.find('\n'), std::string::npos);
  }
  {
    // meminfo without a MemTotal line: memory unknown, not an error.
    TempDir tmp;
    make_minimal_sysfs_tree(tmp.path());
    write_text(tmp.path() / "sys/devices/system/node/node0/meminfo", junk);
    auto t = read_sysfs_topology(tmp.path());
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->numa_nodes.at(0).memory_kib, 0u);
  }
}

TEST(SysfsReader, AsymmetricSiblingListsFormOneCore) {
  TempDir tmp;
  make_minimal_sysfs_tree(tmp.path());
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
  make_minimal_sysfs_tree(tmp.path());
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
  make_minimal_sysfs_tree(tmp.path());
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
  make_minimal_sysfs_tree(tmp.path());
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
  make_minimal_sysfs_tree(tmp.path());
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
      make_minimal_sysfs_tree(tmp.path());
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
    make_minimal_sysfs_tree(tmp.path());
    write_text(tmp.path() / "sys/devices/system/node/node0/meminfo",
               "Node 0 MemTotal:  9223372036854775807 kB\n");
    auto t = read_sysfs_topology(tmp.path());
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.error().message.find("NUMA node 0: memory of 9223372036854775807 KiB is beyond"),
              std::string::npos)
        << t.error().message;
  }
  TempDir tmp;
  make_minimal_sysfs_tree(tmp.path());
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
  make_minimal_sysfs_tree(tmp.path());
  write_text(tmp.path() / "sys/devices/system/node/node9999999/cpulist", "\n");
  auto t = read_sysfs_topology(tmp.path());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("NUMA node 9999999: id outside 0..1048576"), std::string::npos)
      << t.error().message;
}

}  // namespace
}  // namespace topolab
