// Runs the built `topolab host` (TOPOLAB_CLI) as a child process and checks output and exit
// codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/host/test_support.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using testing::run_process;
using testing::TempDir;

const fs::path kHwloc = fs::path(TOPOLAB_FIXTURES_DIR) / "hwloc";

int count_lines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

TEST(HostCli, SysfsFixtureAsJson) {
  TempDir tmp;
  fs::path root = testing::unpack_fixture(kHwloc / "32intel64-2p8co2t+8ve.tar.bz2", tmp.path());
  auto r = run_process({TOPOLAB_CLI, "host", "--sysfs", root.string(), "--json"});
  ASSERT_EQ(r.status(), 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("cpus").size(), 32u);
  EXPECT_EQ(j.at("cpus").at(0).at("siblings"), "0,16");
  EXPECT_EQ(j.at("cpus").at(16).at("core"), 0);
  ASSERT_EQ(j.at("packages").size(), 2u);
  EXPECT_EQ(j.at("packages").at(0).at("cpus"), "0-7,16-23");
  ASSERT_EQ(j.at("l3_domains").size(), 2u);
  EXPECT_EQ(j.at("l3_domains").at(1).at("cpus"), "8-15,24-31");
  EXPECT_EQ(j.at("l3_domains").at(1).at("size_kib"), 11264);
  ASSERT_EQ(j.at("numa_nodes").size(), 2u);
  EXPECT_EQ(j.at("numa_nodes").at(1).at("cpus"), "8-15,24-31");
  EXPECT_EQ(j.at("isolated"), "");
  EXPECT_EQ(j.at("vendor"), "GenuineIntel");
}

TEST(HostCli, CapsFileAsTree) {
  auto r = run_process({TOPOLAB_CLI, "host", "--caps",
                        std::string(TOPOLAB_TESTS_DIR) + "/host/data/caps-sparse-cells.xml"});
  ASSERT_EQ(r.status(), 0) << r.err;
  EXPECT_NE(r.out.find("package 1: CPU 4-5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("node 2: CPU 4-5"), std::string::npos) << r.out;
}

TEST(HostCli, MissingRootFailsWithOneLine) {
  auto r = run_process({TOPOLAB_CLI, "host", "--sysfs", "/nonexistent/topolab", "--json"});
  EXPECT_NE(r.status(), 0);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/topolab"), std::string::npos) << r.err;
}

TEST(HostCli, GarbledFileFailsNamingIt) {
  TempDir tmp;
  fs::path file = tmp.path() / "sys/devices/system/cpu/cpu0/topology/physical_package_id";
  testing::write_text(file, "garbage\n");
  auto r = run_process({TOPOLAB_CLI, "host", "--sysfs", tmp.path().string()});
  EXPECT_NE(r.status(), 0);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(file.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("garbage"), std::string::npos) << r.err;
}

TEST(HostCli, InvalidXmlFailsNamingTheFile) {
  TempDir tmp;
  fs::path file = tmp.path() / "caps.xml";
  testing::write_text(file, "<capabilities><host>");
  auto r = run_process({TOPOLAB_CLI, "host", "--caps", file.string()});
  EXPECT_NE(r.status(), 0);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(file.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("invalid XML"), std::string::npos) << r.err;
}

TEST(HostCli, MissingCapsFile) {
  auto r = run_process({TOPOLAB_CLI, "host", "--caps", "/nonexistent/caps.xml"});
  EXPECT_NE(r.status(), 0);
  EXPECT_NE(r.err.find("/nonexistent/caps.xml"), std::string::npos) << r.err;
}

TEST(HostCli, SeveralSourcesAreRefused) {
  auto r = run_process({TOPOLAB_CLI, "host", "--sysfs", "/", "--caps", "x.xml"});
  EXPECT_NE(r.status(), 0);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("excludes"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace topolab
