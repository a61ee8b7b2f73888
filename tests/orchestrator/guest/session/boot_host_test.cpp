// The host's accelerator, decided once before planning (boot_host.hpp): `--accel tcg` is
// checked on the connection and never probed, so it needs no image and leaves no probe files.
#include "orchestrator/guest/session/boot_host.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace topolab::session {
namespace {

TEST(DecideBootHost, TcgIsNeverProbedAndNeedsNoImage) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "decide-boot-host";
  std::filesystem::remove_all(dir);
  GuestImage missing;
  missing.kernel = dir / "no-such-kernel";
  missing.initrd = dir / "no-such-initrd";
  BootHostRequest req("", virt::AccelMode::kTcg, missing);
  req.accel_cache = dir / "accel.json";
  req.probe_root = dir / "probe";
  auto host = decide_boot_host(req);
  ASSERT_TRUE(host.ok()) << host.error().message;
  EXPECT_EQ(host->accel.accel, Accelerator::kTcg);
  EXPECT_FALSE(host->accel.probed) << host->accel.reason;
  EXPECT_EQ(host->accel.probes, 0);
  EXPECT_FALSE(host->accel.reason.empty());
  EXPECT_FALSE(std::filesystem::exists(req.probe_root)) << "no probe ran";
}

TEST(DecideBootHost, ABadUriIsTheConnectionsErrorNotAVerdict) {
  BootHostRequest req("qemu:///nonsense-path", virt::AccelMode::kAuto, GuestImage{});
  auto host = decide_boot_host(req);
  ASSERT_FALSE(host.ok());
  EXPECT_NE(host.error().message.find("qemu:///nonsense-path"), std::string::npos)
      << host.error().message;
}

}  // namespace
}  // namespace topolab::session
