// Issue 14: `topolab boot --disk IMG` boots a real Debian 12 disk (its own boot loader, kernel
// and systemd starting topolab-agent.service) under TCG through a throw-away overlay. The
// image's sha256 and owner are unchanged afterwards and no overlay or topolab- domain remains.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "tests/integration/owndisk/test_disk.hpp"

namespace topolab::testing {
namespace {

const std::string kLayout = std::string(TOPOLAB_SOURCE_DIR) + "/examples/layouts/two-groups.toml";

TEST(OwnDiskBoot, BootsFromItsOwnDiskAndLeavesItUntouched) {
  auto image = test_disk_image();
  ASSERT_FALSE(image.empty());
  const auto before = sha256_of(image);
  struct stat st_before {};
  ASSERT_EQ(stat(image.c_str(), &st_before), 0);
  const std::string marker = "it" + std::to_string(getpid()) + "-owndisk";

  auto r = run_cli({"boot", kLayout, "--accel", "tcg", "--set", "expose=sockets", "--disk",
                    image.string(), "--os", "linux", "--json", "--run-id", marker},
                   std::chrono::minutes(25));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out << r.err;
  EXPECT_TRUE(j.value("match", false)) << j.dump(2);
  EXPECT_EQ(j["guest_source"].value("path", ""), image.string());
  EXPECT_EQ(j["guest_source"].value("format", ""), "qcow2");
  // The boot watchdog is on by default for own disks, armed at the kernel's first line
  // (own_disk_watchdog_bound: 300 s + 15 s per vCPU under TCG).
  EXPECT_EQ(j["timings"].value("watchdog_armed_at", ""), "kernel start") << j["timings"].dump();
  EXPECT_GE(j["timings"].value("watchdog_ms", 0), 315000) << j["timings"].dump();
  EXPECT_GE(j["timings"].value("console_kernel_start_ms", -1), 0) << j["timings"].dump();
  std::cout << "disk image: hello " << j["timings"].value("hello_ms", -1) << " ms after start, "
            << "shutdown " << j["timings"].value("shutdown_ms", -1) << " ms\n";

  EXPECT_EQ(sha256_of(image), before) << "the user's image was written";
  struct stat st_after {};
  ASSERT_EQ(stat(image.c_str(), &st_after), 0);
  EXPECT_EQ(st_after.st_uid, st_before.st_uid) << "libvirt re-owned the user's image";
  EXPECT_EQ(st_after.st_mode, st_before.st_mode);
  EXPECT_EQ(overlays_with(marker), std::vector<std::string>{});
  EXPECT_EQ(topolab_domains_with(marker), std::vector<std::string>{});
}

}  // namespace
}  // namespace topolab::testing
