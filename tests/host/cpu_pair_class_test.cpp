// Core-to-core classes with the die level (issue 26): every CPU pair of three machines is
// classified from the topology the sysfs reader builds, and checked pair by pair against the
// class computed independently from each machine's known numbering (not from the reader).
#include "host/cpu_pair_class.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "host/sysfs_reader.hpp"
#include "tests/host/test_support.hpp"
#include "tests/support/tr2990wx_sysfs.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using Expected = std::function<CpuPairClass(int, int)>;

// Classifies every pair, compares each with `expected`, returns the counts per class.
std::map<std::string, int> classify_all(const HostTopology& topo, const Expected& expected) {
  std::map<std::string, int> counts;
  const auto ids = topo.online_cpus().ids();
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t j = i + 1; j < ids.size(); ++j) {
      const CpuPairClass got = classify_cpu_pair(topo, ids[i], ids[j]);
      EXPECT_EQ(to_string(got), to_string(expected(ids[i], ids[j])))
          << "CPUs " << ids[i] << " and " << ids[j];
      ++counts[std::string(to_string(got))];
    }
  return counts;
}

// The 2990WX numbering: core = id % 32, CCX = core / 4, die = NUMA node = core / 8, one
// package (sysfs says die_id 0 everywhere, as the real chip's kernel does).
CpuPairClass tr2990wx_class(int a, int b) {
  const int ca = a % 32, cb = b % 32;
  if (ca == cb) return CpuPairClass::kSmt;
  if (ca / 4 == cb / 4) return CpuPairClass::kSameL3;
  if (ca / 8 == cb / 8) return CpuPairClass::kSameDie;
  return CpuPairClass::kSamePackage;
}

TEST(CpuPairClass, Threadripper2990wxEveryPair) {
  testing::TempDir tmp;
  auto topo = read_sysfs_topology(testing::write_tr2990wx_sysfs(tmp.path()));
  ASSERT_TRUE(topo) << topo.error().message;
  const auto counts = classify_all(*topo, tr2990wx_class);
  // 2016 pairs: 32 SMT, 8 CCX x (28 - 4), 4 dies x (120 - 2 x 28), the rest across dies.
  EXPECT_EQ(counts, (std::map<std::string, int>{
                        {"smt", 32}, {"same_l3", 192}, {"same_die", 256}, {"same_package", 1536}}));
}

// A Threadripper 1950X written like the 2990WX fixture: 2 dies x 2 CCX x 4 cores, SMT n/n+16.
fs::path write_tr1950x_sysfs(const fs::path& root) {
  const auto cpu = root / "sys/devices/system/cpu";
  auto range = [](int a, int b) { return std::to_string(a) + "-" + std::to_string(b); };
  testing::write_sysfs_file(cpu / "online", "0-31");
  testing::write_sysfs_file(cpu / "possible", "0-31");
  for (int id = 0; id < 32; ++id) {
    const int core = id % 16, ccx = core / 4;
    const auto dir = cpu / ("cpu" + std::to_string(id));
    const std::string siblings = std::to_string(core) + "," + std::to_string(core + 16);
    testing::write_sysfs_file(dir / "topology/physical_package_id", "0");
    testing::write_sysfs_file(dir / "topology/die_id", std::to_string(core / 8));
    testing::write_sysfs_file(dir / "topology/core_id", std::to_string(core));
    testing::write_sysfs_file(dir / "topology/core_cpus_list", siblings);
    testing::write_sysfs_file(dir / "topology/thread_siblings_list", siblings);
    testing::write_sysfs_file(dir / "cache/index3/level", "3");
    testing::write_sysfs_file(dir / "cache/index3/type", "Unified");
    testing::write_sysfs_file(dir / "cache/index3/size", "8192K");
    testing::write_sysfs_file(
        dir / "cache/index3/shared_cpu_list",
        range(ccx * 4, ccx * 4 + 3) + "," + range(ccx * 4 + 16, ccx * 4 + 19));
  }
  return root;
}

CpuPairClass tr1950x_class(int a, int b) {
  const int ca = a % 16, cb = b % 16;
  if (ca == cb) return CpuPairClass::kSmt;
  if (ca / 4 == cb / 4) return CpuPairClass::kSameL3;
  if (ca / 8 == cb / 8) return CpuPairClass::kSameDie;
  return CpuPairClass::kSamePackage;
}

TEST(CpuPairClass, Threadripper1950xEveryPair) {
  testing::TempDir tmp;
  auto topo = read_sysfs_topology(write_tr1950x_sysfs(tmp.path()));
  ASSERT_TRUE(topo) << topo.error().message;
  ASSERT_EQ(topo->dies.size(), 2u);
  const auto counts = classify_all(*topo, tr1950x_class);
  // 496 pairs: 16 SMT, 4 CCX x (28 - 4), 2 dies x (120 - 2 x 28), 8 x 8 x 4 across dies.
  EXPECT_EQ(counts, (std::map<std::string, int>{
                        {"smt", 16}, {"same_l3", 96}, {"same_die", 128}, {"same_package", 256}}));
}

// Four Opteron 6100 (Magny-Cours) from hwloc's captures: package = id / 12, L3 = die = NUMA node
// = id / 6, no SMT. The kernel names no dies; the NUMA nodes tell them apart.
CpuPairClass magny_cours_class(int a, int b) {
  if (a / 6 == b / 6) return CpuPairClass::kSameL3;
  if (a / 12 == b / 12) return CpuPairClass::kSamePackage;
  return CpuPairClass::kOtherPackage;
}

TEST(CpuPairClass, OpteronMagnyCoursEveryPair) {
  testing::TempDir tmp;
  const fs::path archive =
      fs::path(TOPOLAB_FIXTURES_DIR) / "hwloc" / "48amd64-4pa2n6c-sparse.tar.bz2";
  auto topo = read_sysfs_topology(testing::unpack_fixture(archive, tmp.path()));
  ASSERT_TRUE(topo) << topo.error().message;
  const auto counts = classify_all(*topo, magny_cours_class);
  // 1128 pairs: 8 L3 x 15, 4 packages x 36 across its two L3, the rest across packages.
  EXPECT_EQ(counts, (std::map<std::string, int>{
                        {"same_l3", 120}, {"same_package", 144}, {"other_package", 864}}));
}

TEST(CpuPairClass, UnknownCpusAndNames) {
  HostTopology empty;
  EXPECT_EQ(classify_cpu_pair(empty, 0, 1), CpuPairClass::kUnknown);
  std::vector<std::string> names;
  for (auto c : all_pair_classes()) names.emplace_back(to_string(c));
  EXPECT_EQ(names, (std::vector<std::string>{"smt", "same_l3", "same_die", "same_package",
                                             "other_package", "unknown"}));
}

}  // namespace
}  // namespace topolab
