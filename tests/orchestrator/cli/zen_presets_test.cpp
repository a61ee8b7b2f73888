// The Ryzen desktop presets (issue 34) planned with `topolab plan --sysfs` on hand-made trees of
// their chips, in both SMT numberings; the 7950X3D's unequal L3 (96 vs 32 MiB) preferred, and
// what housekeeping on the V-Cache CCD costs said in a note; housekeeping that splits SMT pairs
// warned about.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/zen_sysfs.hpp"

namespace topolab {
namespace {

using testing::run_cli;
using testing::SmtNumbering;

nlohmann::json plan_json(const std::filesystem::path& root, std::vector<std::string> args) {
  args.insert(args.begin(), "plan");
  args.insert(args.end(), {"--sysfs", root.string(), "--json"});
  auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

bool any_contains(const nlohmann::json& list, const std::string& text) {
  for (const auto& s : list)
    if (s.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

struct PresetCase {
  std::string preset;
  testing::ZenChip chip;
  std::vector<std::string> group_cpus;  // the host CPUs of each group, in order
};

TEST(ZenPresets, EachPresetOnItsChip) {
  const std::vector<PresetCase> cases = {
      {"ryzen-3900x",
       testing::ryzen_3900x(),
       {"0-2,12-14", "3-5,15-17", "6-8,18-20", "9-11,21-23"}},
      {"ryzen-3900x-ccd", testing::ryzen_3900x(), {"0-2,12-14", "3-5,15-17"}},
      {"ryzen-5900x", testing::ryzen_5900x(), {"0-5,12-17", "6-11,18-23"}},
      {"ryzen-5900x-ccd", testing::ryzen_5900x(), {"0-5,12-17"}},
      {"ryzen-5950x", testing::ryzen_5950x(), {"0-7,16-23", "8-15,24-31"}},
      {"ryzen-5950x-ccd", testing::ryzen_5950x(), {"0-7,16-23"}},
      {"ryzen-7950x", testing::ryzen_5950x(), {"0-7,16-23", "8-15,24-31"}},
      {"ryzen-7950x-ccd", testing::ryzen_5950x(), {"0-7,16-23"}},
      {"ryzen-7950x3d", testing::ryzen_7950x3d(), {"0-7,16-23", "8-15,24-31"}},
      {"ryzen-7950x3d-vcache", testing::ryzen_7950x3d(), {"0-7,16-23"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.preset);
    testing::TempDir dir("topolab-zen-preset");
    const auto root = testing::write_zen_sysfs(dir.path() / "root", c.chip);
    auto j = plan_json(root, {c.preset});
    ASSERT_EQ(j.value("groups", nlohmann::json::array()).size(), c.group_cpus.size());
    for (std::size_t g = 0; g < c.group_cpus.size(); ++g) {
      EXPECT_EQ(j["groups"][g]["host_cpus"], c.group_cpus[g]);
      EXPECT_GE(j["groups"][g]["host_l3"].get<int>(), 0);
    }
    // Each vCPU pair is one host core's two threads (Linux numbering: n and n + cores).
    const int cores = static_cast<int>(c.chip.l3_kib.size()) * c.chip.cores_per_l3;
    for (std::size_t v = 0; v + 1 < j["vcpus"].size(); v += 2) {
      const int a = std::stoi(j["vcpus"][v]["host_cpus"].get<std::string>());
      const int b = std::stoi(j["vcpus"][v + 1]["host_cpus"].get<std::string>());
      EXPECT_EQ(b, a + cores) << v;
    }
  }
}

TEST(ZenPresets, AdjacentSmtNumberingPairsTheSameCores) {
  testing::TempDir dir("topolab-zen-adjacent");
  const auto root =
      testing::write_zen_sysfs(dir.path() / "root", testing::ryzen_5950x(SmtNumbering::kAdjacent));
  auto j = plan_json(root, {"ryzen-5950x-ccd"});
  ASSERT_EQ(j["groups"].size(), 1u);
  EXPECT_EQ(j["groups"][0]["host_cpus"], "0-15");
  EXPECT_EQ(j["vcpus"][0]["host_cpus"], "0");
  EXPECT_EQ(j["vcpus"][1]["host_cpus"], "1");
}

TEST(ZenPresets, X3dGroupLandsOnTheLargerL3WithoutOptions) {
  testing::TempDir dir("topolab-x3d");
  // The V-Cache CCD second in CPU order: the preference, not host order, must pick it.
  testing::ZenChip chip{8, {32768, 98304}};
  const auto root = testing::write_zen_sysfs(dir.path() / "root", chip);
  auto j = plan_json(root, {"ryzen-7950x3d-vcache"});
  ASSERT_EQ(j["groups"].size(), 1u);
  EXPECT_EQ(j["groups"][0]["host_cpus"], "8-15,24-31");
  EXPECT_EQ(j["groups"][0]["host_l3"], 1);
  EXPECT_TRUE(any_contains(j["notes"], "differ in size (96 MiB, 32 MiB)")) << j["notes"];
  EXPECT_FALSE(any_contains(j["notes"], "larger L3 not used")) << j["notes"];
}

TEST(ZenPresets, HousekeepingOnTheVcacheCcdIsNamedInANote) {
  testing::TempDir dir("topolab-x3d-hk");
  const auto root = testing::write_zen_sysfs(dir.path() / "root", testing::ryzen_7950x3d());
  auto j = plan_json(root, {"ryzen-7950x3d-vcache", "--set", "placement.housekeeping_cpus=0,16"});
  ASSERT_EQ(j["groups"].size(), 1u);
  EXPECT_EQ(j["groups"][0]["host_cpus"], "8-15,24-31");  // the 32 MiB CCD
  EXPECT_TRUE(any_contains(j["notes"], "larger L3 not used: host L3 domain 0 (96 MiB"))
      << j["notes"];
  EXPECT_TRUE(any_contains(j["notes"], "housekeeping_cpus 0,16 take CPUs 0,16")) << j["notes"];
  EXPECT_TRUE(any_contains(j["notes"], "the guest gets 32 MiB instead")) << j["notes"];
  EXPECT_FALSE(any_contains(j["warnings"], "split SMT pairs")) << j["warnings"];  // whole core

  // host_cpus keeping the guest off the V-Cache CCD: named the same way.
  j = plan_json(root, {"ryzen-7950x3d-vcache", "--set", "placement.host_cpus=1-31"});
  EXPECT_TRUE(any_contains(j["notes"], "host_cpus 1-31 leave out CPUs 0 of it")) << j["notes"];
}

TEST(ZenPresets, HousekeepingThatSplitsSmtPairsIsWarned) {
  testing::TempDir dir("topolab-5950x-split");
  const auto root = testing::write_zen_sysfs(dir.path() / "root", testing::ryzen_5950x());
  auto j = plan_json(root, {"ryzen-5950x-ccd", "--set", "placement.housekeeping_cpus=0-1,8-9",
                            "--set", "guest.cores_per_group=4"});
  EXPECT_TRUE(any_contains(j["warnings"],
                           "housekeeping_cpus 0-1,8-9 split SMT pairs: their "
                           "siblings 16-17,24-25"))
      << j["warnings"];
  j = plan_json(root, {"ryzen-5950x-ccd", "--set", "placement.housekeeping_cpus=0,16"});
  EXPECT_FALSE(any_contains(j["warnings"], "split SMT pairs")) << j["warnings"];
}

}  // namespace
}  // namespace topolab
