// `topolab xml threadripper-2990wx --sysfs` on a 2990WX tree and on the dual-socket EPYC 7451
// capture, and `plan --json` naming the host node behind every guest node.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "common/exit_code.hpp"
#include "tests/orchestrator/planning/placement/fixture_hosts.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/tr2990wx_sysfs.hpp"

namespace topolab {
namespace {

using testing::run_cli;

TEST(TwoLevelCli, XmlOnA2990wx) {
  testing::TempDir dir("topolab-2990wx-cli");
  const auto root = testing::write_tr2990wx_sysfs(dir.path() / "root");
  auto r = run_cli({"xml", "threadripper-2990wx", "--sysfs", root.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(r.out.c_str()));
  auto domain = doc.child("domain");
  EXPECT_STREQ(domain.child("os").child("type").attribute("machine").value(), "pc-q35-5.0");
  auto topo = domain.child("cpu").child("topology");
  EXPECT_STREQ(topo.attribute("dies").value(), "8");
  EXPECT_STREQ(topo.attribute("cores").value(), "4");
  int cells = 0, memoryless = 0;
  for (auto cell : domain.child("cpu").child("numa").children("cell")) {
    ++cells;
    if (std::string(cell.attribute("memory").value()) == "0") ++memoryless;
    int siblings = 0;
    for (auto s : cell.child("distances").children("sibling")) {
      ++siblings;
      const bool self = std::string(s.attribute("id").value()) == cell.attribute("id").value();
      EXPECT_STREQ(s.attribute("value").value(), self ? "10" : "16");
    }
    EXPECT_EQ(siblings, 4);
  }
  EXPECT_EQ(cells, 4);
  EXPECT_EQ(memoryless, 2);
  EXPECT_FALSE(domain.child("numatune").child("memnode"));  // libvirt would use backends

  // Each of the 8 groups on one host L3 (4 cores + their siblings), each guest node on one
  // host node: the plan says which.
  r = run_cli({"plan", "threadripper-2990wx", "--sysfs", root.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("groups").size(), 8u);
  for (const auto& g : j.at("groups")) EXPECT_GE(g.at("host_l3").get<int>(), 0) << g.dump();
  EXPECT_EQ(j.at("groups")[2].at("host_cpus"), "8-11,40-43");
  ASSERT_EQ(j.at("nodes").size(), 4u);
  for (int n = 0; n < 4; ++n) EXPECT_EQ(j.at("nodes")[n].at("host_node"), n);
}

// The real 2x EPYC 7451 capture (8 nodes x 2 L3 of 3 cores): the 2990WX's 4-core CCX do not
// fit, refused with the nearest feasible layout; the epyc-7451 preset's 4 nodes land on 4 host
// nodes of socket 0.
TEST(TwoLevelCli, OnTheDualSocketEpyc) {
  testing::TempDir dir("topolab-epyc-cli");
  const auto archive =
      std::filesystem::path(TOPOLAB_FIXTURES_DIR) / "util-linux-epyc7451/x86_64-epyc_7451.tar.gz";
  ASSERT_TRUE(testing::read_fixture(archive, false, dir.path()));
  const auto root = testing::find_fs_root(dir.path());
  ASSERT_FALSE(root.empty());
  auto r = run_cli({"xml", "threadripper-2990wx", "--sysfs", root.string()});
  EXPECT_EQ(r.exit_code, to_int(ExitCode::does_not_fit));
  EXPECT_NE(r.err.find("nearest feasible: cores_per_group=3"), std::string::npos) << r.err;

  r = run_cli({"plan", "epyc-7451", "--sysfs", root.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("nodes").size(), 4u);
  for (int n = 0; n < 4; ++n) EXPECT_EQ(j.at("nodes")[n].at("host_node"), n);
  r = run_cli({"xml", "epyc-7451", "--sysfs", root.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(r.out.c_str()));
  int memnodes = 0;
  for (auto m : doc.child("domain").child("numatune").children("memnode")) {
    EXPECT_STREQ(m.attribute("nodeset").value(), m.attribute("cellid").value());
    ++memnodes;
  }
  EXPECT_EQ(memnodes, 4);
}

}  // namespace
}  // namespace topolab
