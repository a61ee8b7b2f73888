// SIGINT while `topolab boot -c qemu+tcp://...` uploads the guest image into a fresh pool (the
// signal sweep's remote case, bench/signal_sweep.py): the process ends by the signal with the
// watcher's report and no error of its own, no domain is left, and what the upload left is
// harmless: a volume without its ".complete" marker is deleted and sent again by the next boot
// (remote/storage_upload.hpp), which exits 0 and leaves only complete volumes.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"
#include "tests/integration/remote/test_pool.hpp"
#include "tests/support/child_process.hpp"

namespace topolab::testing {
namespace {

using namespace std::chrono_literals;

std::string tcp_uri() {
  const char* p = std::getenv("TOPOLAB_TEST_LIBVIRT_TCP_PORT");
  return "qemu+tcp://127.0.0.1:" + std::string(p ? p : "16509") + "/system";
}

// Volumes of the pool that are neither a marker nor marked complete.
std::vector<std::string> unmarked(const std::vector<std::string>& vols) {
  std::vector<std::string> out;
  for (const auto& v : vols) {
    const bool is_marker = v.size() > 9 && v.compare(v.size() - 9, 9, ".complete") == 0;
    if (!is_marker && std::find(vols.begin(), vols.end(), v + ".complete") == vols.end())
      out.push_back(v);
  }
  return out;
}

class RemoteSignal : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = virt::open_connection("qemu:///system");
    ASSERT_TRUE(c.ok()) << c.error().message;
    local_ = std::move(*c);
    pool_ = "topolab-it-" + std::to_string(getpid()) + "-sig";
    ASSERT_FALSE(remote::pool_defined(local_.get(), pool_)) << "leftover test pool";
  }
  void TearDown() override {
    for (const auto& name : topolab_domains_with(marker_)) {
      if (auto d = virt::lookup_domain(local_.get(), name); d && *d)
        (void)virt::destroy_and_undefine(d->get());
      ADD_FAILURE() << "domain left behind: " << name;
    }
    remote::remove_pool(local_.get(), pool_);
  }
  std::vector<std::string> boot_args(const std::string& run_id) const {
    return {"boot",     "ryzen-1700x", "--policy",
            "unpinned", "--accel",     "tcg",
            "-c",       tcp_uri(),     "--pool",
            pool_,      "--pool-path", "/var/lib/libvirt/" + pool_,
            "--run-id", run_id,        "--hello-timeout",
            "300000"};
  }

  virt::ConnectPtr local_;
  std::string pool_;
  const std::string marker_ = "it" + std::to_string(getpid()) + "-sigup";
};

TEST_F(RemoteSignal, SigintDuringTheUploadThenTheNextBootReplacesWhatItLeft) {
  auto args = boot_args(marker_ + "a");
  args.push_back("-v");
  CliChild child(args);
  // The first lookup that misses: its upload starts now.
  ASSERT_TRUE(child.wait_for_output("no storage vol with matching name", 180s)) << child.err();
  kill(child.pid(), SIGINT);
  auto r = child.wait(120s);
  EXPECT_EQ(r.term_signal, SIGINT) << "exit " << r.exit_code << ": " << r.err;
  EXPECT_NE(r.err.find("interrupted by SIGINT: removed "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("topolab boot: "), std::string::npos) << r.err;
  EXPECT_EQ(topolab_domains_with(marker_), std::vector<std::string>{});

  auto next = run_cli(boot_args(marker_ + "b"), 6min);
  ASSERT_EQ(next.exit_code, 0) << next.err;
  const auto vols = remote::pool_volumes(local_.get(), pool_);
  EXPECT_EQ(vols.size(), 4u) << "kernel and initrd with their markers";
  EXPECT_EQ(unmarked(vols), std::vector<std::string>{});
}

}  // namespace
}  // namespace topolab::testing
