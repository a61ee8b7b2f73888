// `--accel auto` on this host: libvirt offers KVM (/dev/kvm exists), but nested KVM hangs
// guests; the real probe must notice quickly and the verdict must be cached.
#include <gtest/gtest.h>
#include <unistd.h>

#include "orchestrator/guest/image/guest_image.hpp"
#include "orchestrator/guest/session/kvm_probe.hpp"
#include "orchestrator/libvirt/virt/accelerator.hpp"
#include "tests/support/child_process.hpp"

namespace topolab::testing {
namespace {

using Clock = std::chrono::steady_clock;

TEST(AccelAuto, RealProbeDecidesQuicklyAndTheVerdictIsCached) {
  auto image = build_guest_image({});
  ASSERT_TRUE(image.ok()) << image.error().message;
  auto conn = virt::open_connection("qemu:///system");
  ASSERT_TRUE(conn.ok()) << conn.error().message;
  auto dir =
      std::filesystem::temp_directory_path() / ("topolab-accel-it-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  auto cache = dir / "accel.json";
  std::string run_id = "it" + std::to_string(getpid()) + "-probe";
  session::KvmProbeOptions opts{*image, dir / "probe", run_id};
  int probes = 0;
  auto probe = [&] {
    ++probes;
    return session::probe_kvm(conn->get(), opts);
  };

  auto t0 = Clock::now();
  auto first = virt::choose_accelerator(conn->get(), virt::AccelMode::kAuto, probe, cache);
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_GE(probes, 1);
  EXPECT_LE(probes, virt::kKvmProbeAttempts);
  EXPECT_EQ(first->probes, probes);
  EXPECT_TRUE(first->probed);
  EXPECT_EQ(first->reason.find("libvirt streams"), std::string::npos)
      << "a local probe reads its own files: " << first->reason;
  std::cout << "[figures] local KVM probe: " << took.count() << " ms, " << probes
            << " probe(s): " << first->reason << "\n";
  if (first->accel == Accelerator::kKvm) {
    EXPECT_NE(first->reason.find("said hello"), std::string::npos) << first->reason;
  } else {
    EXPECT_NE(first->reason.find("using TCG"), std::string::npos) << first->reason;
    // Quickly: within the probe's own bound (8 s) per probe (a hung one is probed again) plus
    // a loaded host's define, start and destroy (3.6 s in all on a quiet machine; 60 s leaves
    // a slower CI machine ~15x), not a boot's hello timeout (minutes).
    const auto quickly = virt::kKvmProbeBound * probes + std::chrono::seconds(60);
    EXPECT_LT(took, quickly) << "auto must land on TCG quickly: " << first->reason;
  }
  EXPECT_EQ(topolab_domains_with(run_id), std::vector<std::string>{}) << "probe guest left";

  auto second = virt::choose_accelerator(conn->get(), virt::AccelMode::kAuto, probe, cache);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(probes, first->probes) << "the cached verdict must be used";
  EXPECT_TRUE(second->from_cache);
  EXPECT_EQ(second->accel, first->accel);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace topolab::testing
