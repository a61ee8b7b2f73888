// Issue 14: SIGINT/SIGTERM to `topolab boot --disk IMG` while the guest boots: the signal watcher
// removes the topolab- domain and then the run's qcow2 overlay and base XML (recorded in the
// domain registry), and the process ends by the signal (130 / 143, docs/reliability.md). The
// user's image is unchanged. (SIGKILL + rerun: own_disk_run_test.cpp.)
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"
#include "tests/integration/owndisk/test_disk.hpp"
#include "tests/support/running_domain.hpp"

namespace topolab::testing {
namespace {

using namespace std::chrono_literals;

const std::string kLayout = std::string(TOPOLAB_SOURCE_DIR) + "/examples/layouts/two-groups.toml";

void interrupt_disk_boot(int sig, const char* name) {
  auto image = test_disk_image();
  ASSERT_FALSE(image.empty());
  const auto before = sha256_of(image);
  const std::string marker = "it" + std::to_string(getpid()) + "-" + name;
  CliChild child({"boot", kLayout, "--accel", "tcg", "--set", "expose=sockets", "--disk",
                  image.string(), "--os", "linux", "--json", "--run-id", marker});
  ASSERT_GT(child.pid(), 0);
  const bool running = wait_for_running_domain(marker, 300s);
  const auto overlays_while_booting = overlays_with(marker);
  kill(child.pid(), sig);
  auto r = child.wait(300s);
  ASSERT_TRUE(running) << "the boot never got to a running domain: " << r.err;
  // The overlay and the base XML beside it.
  EXPECT_EQ(overlays_while_booting.size(), 2u);
  EXPECT_EQ(r.term_signal, sig) << "exit " << r.exit_code << ": " << r.err;
  const std::string said =
      std::string("interrupted by ") + name + ": removed 1 domain(s) and 2 overlay file(s)";
  EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
  EXPECT_EQ(overlays_with(marker), std::vector<std::string>{});
  EXPECT_EQ(topolab_domains_with(marker), std::vector<std::string>{});
  EXPECT_EQ(sha256_of(image), before) << "the user's image was written";
}

TEST(OwnDiskInterrupt, SigintDuringBootRemovesDomainAndOverlay) {
  interrupt_disk_boot(SIGINT, "SIGINT");
}

TEST(OwnDiskInterrupt, SigtermDuringBootRemovesDomainAndOverlay) {
  interrupt_disk_boot(SIGTERM, "SIGTERM");
}

}  // namespace
}  // namespace topolab::testing
