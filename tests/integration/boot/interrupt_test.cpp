// A SIGINT while `topolab boot` waits for the guest must leave no topolab- domain behind, and
// domains of a SIGKILLed run are removed by the next run's stale cleanup.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

#include "orchestrator/libvirt/virt/run_identity.hpp"
#include "orchestrator/libvirt/virt/stale_domains.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/running_domain.hpp"

namespace topolab::testing {
namespace {

using namespace std::chrono_literals;

TEST(Interrupt, SigintDuringBootLeavesNoDomain) {
  std::string marker = "it" + std::to_string(getpid()) + "-sigint";
  CliChild child({"boot", "ryzen-1700x", "--policy", "unpinned", "--accel", "tcg", "--run-id",
                  marker, "--json", "--hello-timeout", "300000"});
  ASSERT_GT(child.pid(), 0);
  // Image, accelerator, define and start: seconds when quiet; minutes on a loaded CI machine.
  bool running = wait_for_running_domain(marker, 180s);
  kill(child.pid(), SIGINT);
  auto r = child.wait(60s);
  ASSERT_TRUE(running) << "the boot never got to a running domain: " << r.err;
  EXPECT_EQ(r.term_signal, SIGINT) << "exit " << r.exit_code << ": " << r.err;
  EXPECT_NE(r.err.find("interrupted by SIGINT: removed 1 domain(s)"), std::string::npos) << r.err;
  EXPECT_EQ(topolab_domains_with(marker), std::vector<std::string>{});
}

// Removes this test's leftovers even when an assertion ends the test early.
struct StaleGuard {
  std::string marker;
  ~StaleGuard() {
    if (auto conn = virt::open_connection("qemu:///system"); conn) {
      (void)virt::cleanup_stale_domains(conn->get(), virt::kDomainPrefix, marker);
    }
  }
};

TEST(Interrupt, SigkilledRunsDomainIsRemovedByTheNextRunsStaleCleanup) {
  std::string marker = "it" + std::to_string(getpid()) + "-sigkill";
  StaleGuard guard{marker};
  {
    CliChild child({"boot", "ryzen-1700x", "--policy", "unpinned", "--accel", "tcg", "--run-id",
                    marker, "--json", "--hello-timeout", "300000"});
    ASSERT_TRUE(wait_for_running_domain(marker, 180s));  // as above
    kill(child.pid(), SIGKILL);
    auto r = child.wait(30s);
    EXPECT_EQ(r.term_signal, SIGKILL);
  }
  ASSERT_EQ(topolab_domains_with(marker).size(), 1u) << "SIGKILL cannot clean up";
  auto conn = virt::open_connection("qemu:///system");
  ASSERT_TRUE(conn.ok());
  auto removed = virt::cleanup_stale_domains(conn->get(), virt::kDomainPrefix, marker);
  ASSERT_TRUE(removed.ok()) << removed.error().message;
  EXPECT_EQ(removed->size(), 1u);
  EXPECT_EQ(topolab_domains_with(marker), std::vector<std::string>{});
}

}  // namespace
}  // namespace topolab::testing
