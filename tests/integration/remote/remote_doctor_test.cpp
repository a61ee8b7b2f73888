// `topolab doctor -c URI` and `topolab host -c URI` through libvirtd's TCP listener (issue 16
// item 6). The listener is this machine, so what libvirt can answer must agree with the local
// answer, and what it cannot is skipped with the reason instead of describing this machine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/child_process.hpp"

namespace topolab::testing {
namespace {

using nlohmann::json;

std::string tcp_uri() {
  const char* p = std::getenv("TOPOLAB_TEST_LIBVIRT_TCP_PORT");
  return "qemu+tcp://127.0.0.1:" + std::string(p ? p : "16509") + "/system";
}

// want_exit < 0: doctor exits 1 when a check fails (here: hugepages), as it may elsewhere.
json run_json(std::vector<std::string> args, int want_exit) {
  auto r = run_cli(args, std::chrono::minutes(2));
  if (want_exit >= 0) {
    EXPECT_EQ(r.exit_code, want_exit) << r.err << r.out;
  }
  EXPECT_FALSE(r.timed_out);
  auto j = json::parse(r.out, nullptr, false);
  EXPECT_TRUE(j.is_object()) << r.out << r.err;
  return j.is_object() ? j : json::object();
}

const json* check(const json& doctor, const std::string& name) {
  for (const auto& c : doctor["checks"]) {
    if (c["name"] == name) return &c;
  }
  return nullptr;
}

TEST(RemoteDoctor, SkipsWhatLibvirtCannotSeeAndAgreesOnHugepages) {
  const auto dir = std::filesystem::temp_directory_path() / ("rdoc-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto layout = dir / "hp.toml";
  std::ofstream(layout) << "name = \"hp-2\"\n[guest]\nl3_groups = 1\ncores_per_group = 2\n"
                           "threads_per_core = 1\nmemory_mib = 512\n[expose]\nas = \"flat\"\n"
                           "[placement]\npolicy = \"unpinned\"\n[memory]\nhugepages = \"2M\"\n";
  auto remote = run_json({"doctor", "-c", tcp_uri(), "--layout", layout, "--json"}, -2);
  auto local = run_json({"doctor", "--layout", layout, "--json"}, -2);
  std::filesystem::remove_all(dir);

  ASSERT_NE(check(remote, "libvirt"), nullptr);
  EXPECT_EQ((*check(remote, "libvirt"))["status"], "ok");
  for (const char* name : {"kvm", "iommu", "isolation", "cpufreq", "irq", "thp", "smt"}) {
    const json* c = check(remote, name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_EQ((*c)["status"], "skip") << name;
    const std::string reason = (*c)["reason"];
    EXPECT_EQ(reason.rfind("remote (", 0), 0u) << reason;
    EXPECT_NE(reason.find(tcp_uri()), std::string::npos) << reason;
  }
  // Through libvirt (capabilities + virNodeGetFreePages), the same verdict and numbers as
  // this machine's /sys.
  ASSERT_NE(check(remote, "hugepages"), nullptr);
  ASSERT_NE(check(local, "hugepages"), nullptr);
  EXPECT_EQ((*check(remote, "hugepages"))["status"], (*check(local, "hugepages"))["status"]);
  EXPECT_EQ((*check(remote, "hugepages"))["reason"], (*check(local, "hugepages"))["reason"]);
}

TEST(RemoteHost, TopologyThroughTheRemoteDriverMatchesTheLocalOne) {
  auto remote = run_json({"host", "-c", tcp_uri(), "--json"}, 0);
  auto local = run_json({"host", "--json"}, 0);
  for (const char* key : {"cpus", "packages", "dies", "l3_domains"}) {
    EXPECT_EQ(remote.value(key, json()).dump(), local.value(key, json()).dump()) << key;
  }
  EXPECT_EQ(remote.value("source", ""), "libvirt:" + tcp_uri());
  auto text = run_cli({"host", "-c", tcp_uri()});
  EXPECT_NE(text.out.find("note: read through " + tcp_uri()), std::string::npos) << text.out;
}

}  // namespace
}  // namespace topolab::testing
