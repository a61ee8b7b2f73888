// Every archive in ../shared/fixtures is unpacked and read; packages, L3 domains, NUMA nodes,
// core and PU counts must match its NAME.expected.txt.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "host/sysfs_reader.hpp"
#include "host/topology_json.hpp"
#include "tests/host/expected_file.hpp"
#include "tests/host/test_support.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using testing::ExpectedTopology;
using testing::TempDir;

const fs::path kFixtures = TOPOLAB_FIXTURES_DIR;

std::string archive_stem(const fs::path& archive) {
  std::string name = archive.filename().string();
  return name.substr(0, name.find(".tar"));
}

std::vector<fs::path> all_archives() {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(kFixtures, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.ends_with(".tar.bz2") || name.ends_with(".tar.gz")) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Bulldozer/Piledriver (AMD family 15h) captures: the kernel lists the two cores of a module as
// thread siblings. We take the kernel's (and libvirt's) view: a module is one core with two
// threads, because the pair shares the front end, FPU and L2 like an SMT pair does, and because
// libvirt capabilities report the same siblings, so sysfs and libvirt sources agree. hwloc
// counts two cores per module instead; the expected files give hwloc's numbers.
bool is_bulldozer(const std::string& stem) { return stem.rfind("64amd64-", 0) == 0; }

std::map<int, int> threads_histogram(const HostTopology& topo) {
  std::map<int, int> h;
  for (const auto& core : topo.cores()) h[static_cast<int>(core.size())]++;
  return h;
}

class SysfsFixture : public ::testing::TestWithParam<fs::path> {};

TEST_P(SysfsFixture, MatchesExpectedFile) {
  const fs::path archive = GetParam();
  const std::string stem = archive_stem(archive);
  fs::path expected_path = archive.parent_path() / (stem + ".expected.txt");
  ASSERT_TRUE(fs::exists(expected_path)) << expected_path;
  ExpectedTopology want = testing::read_expected_file(expected_path);

  TempDir tmp;
  fs::path root = testing::unpack_fixture(archive, tmp.path());
  auto topo = read_sysfs_topology(root);
  ASSERT_TRUE(topo.ok()) << topo.error().message;

  EXPECT_EQ(topo->online_cpus(), want.pus);
  EXPECT_EQ(static_cast<int>(topo->online_cpus().size()), want.counts.at("PU"));

  std::map<int, CpuList> packages;
  for (const auto& p : topo->packages) packages[p.id] = p.cpus;
  EXPECT_EQ(packages, want.packages);
  EXPECT_EQ(static_cast<int>(topo->packages.size()), want.counts.at("Package"));

  std::map<int, CpuList> nodes;
  for (const auto& n : topo->numa_nodes) nodes[n.id] = n.cpus;
  EXPECT_EQ(nodes, want.numa_nodes);

  std::set<std::pair<CpuList, std::uint64_t>> l3, want_l3;
  for (const auto& d : topo->l3_domains) l3.insert({d.cpus, d.size_kib});
  for (const auto& d : want.l3_domains) want_l3.insert({d.cpus, d.size_kib});
  EXPECT_EQ(l3, want_l3);
  EXPECT_EQ(static_cast<int>(topo->l3_domains.size()),
            want.counts.count("L3Cache") ? want.counts.at("L3Cache") : 0);

  if (want.counts.count("Die")) {
    EXPECT_EQ(static_cast<int>(topo->dies.size()), want.counts.at("Die"));
  }

  int pus = want.counts.at("PU");
  if (is_bulldozer(stem)) {
    EXPECT_EQ(static_cast<int>(topo->cores().size()), pus / 2);
    EXPECT_EQ(threads_histogram(*topo), (std::map<int, int>{{2, pus / 2}}));
  } else {
    EXPECT_EQ(static_cast<int>(topo->cores().size()), want.counts.at("Core"));
    EXPECT_EQ(threads_histogram(*topo), want.threads_per_core);
  }
}

// Model invariants every reader output must keep, whatever the machine.
TEST_P(SysfsFixture, KeepsModelInvariants) {
  TempDir tmp;
  auto topo = read_sysfs_topology(testing::unpack_fixture(GetParam(), tmp.path()));
  ASSERT_TRUE(topo.ok()) << topo.error().message;
  for (std::size_t i = 0; i < topo->l3_domains.size(); ++i) {
    EXPECT_EQ(topo->l3_domains[i].id, static_cast<int>(i));
    if (i > 0) {
      EXPECT_LT(topo->l3_domains[i - 1].cpus.first(), topo->l3_domains[i].cpus.first());
    }
  }
  std::set<std::pair<int, int>> die_keys;
  for (std::size_t i = 0; i < topo->dies.size(); ++i) {
    EXPECT_EQ(topo->dies[i].id, static_cast<int>(i));
    EXPECT_TRUE(die_keys.insert({topo->dies[i].package, topo->dies[i].die_id}).second);
  }
  CpuList seen;
  for (const auto& core : topo->cores()) {
    EXPECT_FALSE(core.intersects(seen)) << "cores overlap at " << core.to_string();
    seen = seen.united(core);
  }
  EXPECT_EQ(seen, topo->online_cpus());
  for (const auto& c : topo->cpus) {
    if (!c.online) {
      EXPECT_EQ(c.core, -1);
      EXPECT_EQ(c.l3, -1);
      continue;
    }
    EXPECT_TRUE(c.siblings.contains(c.id));
    EXPECT_GE(c.core, 0);
    ASSERT_GE(c.die, 0);
    EXPECT_TRUE(topo->dies[static_cast<std::size_t>(c.die)].cpus.contains(c.id));
    EXPECT_EQ(topo->dies[static_cast<std::size_t>(c.die)].package, c.package);
    if (c.l3 >= 0) {
      EXPECT_TRUE(topo->l3_domains[static_cast<std::size_t>(c.l3)].cpus.contains(c.id));
    }
    for (int s : c.siblings) EXPECT_EQ(topo->cpu(s)->core, c.core);
  }
  // The JSON shape carries everything: a round trip gives the same model back.
  auto back = topology_from_json(topology_to_json(*topo));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(topology_to_json(*back), topology_to_json(*topo));
}

std::string test_name(const ::testing::TestParamInfo<fs::path>& info) {
  std::string name = archive_stem(info.param);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllArchives, SysfsFixture, ::testing::ValuesIn(all_archives()), test_name);

TEST(SysfsFixtures, AllKnownArchivesArePresent) {
  std::set<std::string> stems;
  for (const auto& a : all_archives()) stems.insert(archive_stem(a));
  for (const char* name :
       {"64amd64-4s2n4ca2co", "64amd64-4p2n4ca2co", "48amd64-4pa2n6c-sparse",
        "32intel64-2p8co2t+8ve", "memorysidecaches", "offline-cpu0-node0",
        "16em64t-4s2c2t-offlines", "20em64t-hybrid-1p6c2t+2ca4co1t", "96em64t-4no4pa3ca2co",
        "fakecpuid1f-64intel64-2p4d2n2c2t", "16amd64-8n2c", "40intel64-2g2n4c+pcilocality",
        "8em64t-2s4c-asymcaches", "x86_64-epyc_7451"}) {
    EXPECT_TRUE(stems.count(name)) << name << " missing from " << kFixtures;
  }
}

}  // namespace
}  // namespace topolab
