// Issue 32 class 7: doctor input that used to abort it or be read silently as something else.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "orchestrator/hostprep/doctor/checks.hpp"
#include "orchestrator/hostprep/doctor/doctor.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab::doctor {
namespace {

namespace fs = std::filesystem;
using topolab::testing::run_cli;

class TempRoot : public topolab::testing::TempDir {
 public:
  TempRoot() : topolab::testing::TempDir("topolab-doctor-trust") {}
};

void add_pool(const TempRoot& root, const std::string& node, const std::string& total,
              const std::string& free) {
  const fs::path pool = fs::path("sys/devices/system/node") / node / "hugepages/hugepages-2048kB";
  root.write(pool / "nr_hugepages", total + "\n");
  root.write(pool / "free_hugepages", free + "\n");
  root.write(fs::path("sys/devices/system/node") / node / "cpulist", "0-3\n");
}

GuestRequirements hugepage_guest() {
  GuestRequirements g;
  g.name = "t";
  g.memory_mib = 8;  // 4 x 2M pages
  g.hugepage_kib = 2048;
  return g;
}

// Before: std::stoi threw out_of_range on the name and the uncaught exception aborted doctor.
TEST(DoctorTrust, HugeNodeIdIsIgnoredAndSaidNotAborted) {
  TempRoot root;
  add_pool(root, "node0", "4", "4");
  add_pool(root, "node99999999999", "100", "100");
  add_pool(root, "node2147483648", "100", "100");
  auto g = hugepage_guest();
  auto r = check_hugepages(SysRoot(root.path()), &g);
  EXPECT_EQ(r.status, CheckStatus::kOk) << r.reason;
  EXPECT_NE(r.reason.find("node0 4/4 free"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("ignored node2147483648, node99999999999: not a node id below 1024"),
            std::string::npos)
      << r.reason;
}

// Before: stoull read "-1" as 2^64-1 free pages, so a negative count passed as plenty.
TEST(DoctorTrust, NegativePageCountIsNotReadAsHuge) {
  TempRoot root;
  add_pool(root, "node0", "-1", "-1");
  auto g = hugepage_guest();
  auto r = check_hugepages(SysRoot(root.path()), &g);
  EXPECT_EQ(r.status, CheckStatus::kFail) << r.reason;
  EXPECT_NE(r.reason.find("node0 0/0 free"), std::string::npos) << r.reason;
}

TEST(DoctorTrust, DoctorCliOnAHugeNodeIdTreeFinishes) {
  TempRoot root;
  add_pool(root, "node99999999999", "1", "1");
  root.write("sys/devices/system/cpu/online", "0-3\n");
  auto run = run_cli({"doctor", "--root", root.path().string(), "--layout",
                      std::string(TOPOLAB_TESTS_DIR) + "/orchestrator/hostprep/doctor/data/layouts/"
                                                       "win-vfio.toml",
                      "--json"});
  EXPECT_EQ(run.term_signal, 0) << run.err;
  EXPECT_EQ(run.exit_code, 1) << run.err;  // hugepages fail: no valid pool
  auto j = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << run.out << run.err;
  bool said = false;
  for (const auto& c : j["checks"]) {
    if (c["name"] == "hugepages") {
      said = c["reason"].get<std::string>().find("ignored node99999999999") != std::string::npos;
    }
  }
  EXPECT_TRUE(said) << run.out;
}

TEST(DoctorTrust, LayoutWithAnUnknownEditionWarnsInsteadOfPassing) {
  GuestRequirements g;
  g.sockets = 1;
  g.guest_os = read_guest_edition("freebsd").value();
  auto r = check_exposure(&g);
  EXPECT_EQ(r.status, CheckStatus::kWarn) << r.reason;
  EXPECT_NE(r.reason.find("'freebsd' is not a known edition"), std::string::npos) << r.reason;
  g.sockets = 2;
  // unknown Windows: the strictest (Home) is assumed, and said
  g.guest_os = read_guest_edition("windows-10").value();
  r = check_exposure(&g);
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_NE(r.reason.find("read as Home"), std::string::npos) << r.reason;
}

TEST(DoctorTrust, CliRefusesUnknownEditionAndMissingRoot) {
  auto os = run_cli({"doctor", "--no-libvirt", "--guest-os", "windows-xp"});
  EXPECT_EQ(os.exit_code, 2) << os.out;
  EXPECT_NE(os.err.find("--guest-os: guest OS 'windows-xp': not a known edition"),
            std::string::npos)
      << os.err;
  EXPECT_TRUE(os.out.empty()) << os.out;
  auto root = run_cli({"doctor", "--root", "/nonexistent/topolab-root", "--json"});
  EXPECT_EQ(root.exit_code, 2);
  EXPECT_NE(root.err.find("--root /nonexistent/topolab-root: no such folder"), std::string::npos)
      << root.err;
  EXPECT_TRUE(root.out.empty()) << root.out;  // before: a report of an empty host, exit 0
  auto file = run_cli({"doctor", "--root", "/etc/hostname"});
  EXPECT_EQ(file.exit_code, 2);
  EXPECT_NE(file.err.find("not a folder"), std::string::npos) << file.err;
  EXPECT_TRUE(check_root_folder("/").ok());
}

}  // namespace
}  // namespace topolab::doctor
