// `topolab apply --live` on a real running guest (the VFIO user's path: patch the pinning of a
// VM that is up): the running vCPUs are re-pinned now, the persistent definition is rewritten,
// a backup of the old XML is kept; without --live a running domain is refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/cpu_list.hpp"
#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"
#include "tests/support/child_process.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::run_cli;

const std::string kLayout = std::string(TOPOLAB_SOURCE_DIR) + "/examples/layouts/two-groups.toml";

// The live CPU affinity of each vCPU, as CPU lists ("0-1").
std::vector<std::string> live_pins(virDomainPtr dom, int vcpus) {
  const int host_cpus = 64;
  const int maplen = VIR_CPU_MAPLEN(host_cpus);
  std::vector<unsigned char> maps(static_cast<std::size_t>(vcpus * maplen));
  int n = virDomainGetVcpuPinInfo(dom, vcpus, maps.data(), maplen, VIR_DOMAIN_AFFECT_LIVE);
  std::vector<std::string> out;
  for (int v = 0; v < n; ++v) {
    std::vector<int> cpus;
    for (int c = 0; c < host_cpus; ++c)
      if (VIR_CPU_USABLE(maps.data(), maplen, v, c)) cpus.push_back(c);
    out.push_back(CpuList::from_vector(cpus).to_string());
  }
  return out;
}

class ApplyLive : public ::testing::Test {
 protected:
  void TearDown() override {
    auto conn = virt::open_connection("qemu:///system");
    if (!conn) return;
    if (auto dom = virt::lookup_domain(conn->get(), domain_); dom)
      (void)virt::destroy_and_undefine(dom->get());
    fs::remove_all(backups_);
  }
  std::string run_id_ = "applylive-" + std::to_string(getpid());
  std::string domain_ = "topolab-two-groups-" + run_id_;
  fs::path backups_ = fs::temp_directory_path() / ("topolab-apply-live-" + run_id_);
};

TEST_F(ApplyLive, RunningGuestIsRepinnedNowWithABackupAndRefusedWithoutLive) {
  // Booted unpinned and kept running: every vCPU may run on every host CPU.
  auto boot = run_cli({"boot", kLayout, "--policy", "unpinned", "--accel", "tcg", "--run-id",
                       run_id_, "--keep", "--json"},
                      5min);
  ASSERT_TRUE(boot.exit_code == 0 || boot.exit_code == 3) << boot.err;
  auto conn = virt::open_connection("qemu:///system");
  ASSERT_TRUE(conn.ok());
  auto dom = virt::lookup_domain(conn->get(), domain_);
  ASSERT_TRUE(dom.ok()) << "the kept guest is gone: " << boot.err;
  ASSERT_EQ(virDomainIsActive(dom->get()), 1);
  const long host_cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const std::string all = CpuList::parse("0-" + std::to_string(host_cpus - 1))->to_string();
  EXPECT_EQ(live_pins(dom->get(), 2), (std::vector<std::string>{all, all}));

  // What compact placement wants, from the planner itself.
  auto plan = run_cli({"plan", kLayout, "--policy", "compact", "--json"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  auto plan_json = nlohmann::json::parse(plan.out);
  std::vector<std::string> wanted;
  for (const auto& v : plan_json["vcpus"]) wanted.push_back(v["host_cpus"].get<std::string>());
  ASSERT_EQ(wanted.size(), 2u);

  auto refused = run_cli(
      {"apply", domain_, kLayout, "--policy", "compact", "--backup-dir", backups_.string()});
  EXPECT_EQ(refused.exit_code, 65);  // ExitCode::data_error: refused input
  EXPECT_NE(refused.err.find("is running; refusing without --live"), std::string::npos)
      << refused.err;
  EXPECT_EQ(live_pins(dom->get(), 2), (std::vector<std::string>{all, all})) << "changed anyway";

  auto before = virt::domain_xml(dom->get(), /*live=*/false);
  ASSERT_TRUE(before.ok());
  auto applied = run_cli({"apply", domain_, kLayout, "--policy", "compact", "--live",
                          "--backup-dir", backups_.string(), "--json"});
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  auto result = nlohmann::json::parse(applied.out);
  EXPECT_TRUE(result["changed"].get<bool>());
  EXPECT_NE(result["notes"].dump().find("pins applied now"), std::string::npos) << result.dump();

  EXPECT_EQ(live_pins(dom->get(), 2), wanted) << "the running vCPUs were not re-pinned";
  auto after = virt::domain_xml(dom->get(), /*live=*/false);
  ASSERT_TRUE(after.ok());
  EXPECT_NE(after->find("<vcpupin"), std::string::npos) << "the definition has no pins";
  std::ifstream backup(result["backup"].get<std::string>());
  std::stringstream saved;
  saved << backup.rdbuf();
  EXPECT_EQ(saved.str(), *before) << "the backup is not the definition before apply";
  EXPECT_EQ(virDomainIsActive(dom->get()), 1) << "apply --live must not stop the guest";
}

}  // namespace
}  // namespace topolab
