// Issue 14, point 3: an own guest's lifecycle on a real Debian disk under TCG.
//  - shutdown: agent, then the ACPI power button, then destroy. A guest whose agent acknowledges
//    the shutdown but does not power off (serving without --poweroff) is powered off by ACPI
//    (systemd-logind), and the boot's timings say so.
//  - hello timeout: a guest without the agent fails with what to check and its console kept.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "tests/integration/owndisk/test_disk.hpp"

namespace topolab::testing {
namespace {

const std::string kLayout = std::string(TOPOLAB_SOURCE_DIR) + "/examples/layouts/two-groups.toml";

TEST(OwnDiskLifecycle, AgentThatDoesNotPowerOffIsShutDownByAcpi) {
  auto image = derived_test_disk("no-poweroff");
  ASSERT_FALSE(image.empty());
  const auto before = sha256_of(image);
  const std::string marker = "it" + std::to_string(getpid()) + "-acpi";
  auto r = run_cli({"boot", kLayout, "--accel", "tcg", "--set", "expose=sockets", "--disk",
                    image.string(), "--os", "linux", "--json", "--run-id", marker},
                   std::chrono::minutes(25));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out << r.err;
  EXPECT_TRUE(j.value("match", false)) << j.dump(2);
  const auto& t = j["timings"];
  EXPECT_EQ(t.value("shutdown_by", ""), "acpi") << t.dump() << r.err;
  // The agent step waited its full bound first (60 s), then ACPI ended it within its own.
  EXPECT_GE(t.value("shutdown_ms", 0), 60000) << t.dump();
  EXPECT_LT(t.value("shutdown_ms", 0), 120000) << t.dump();
  EXPECT_FALSE(j.contains("shutdown_error")) << j.dump(2);
  EXPECT_NE(r.err.find("pressing its ACPI power button"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("powered off after the ACPI power button"), std::string::npos) << r.err;
  std::cout << "no-poweroff disk: hello " << t.value("hello_ms", -1) << " ms, shutdown "
            << t.value("shutdown_ms", -1) << " ms by " << t.value("shutdown_by", "?") << "\n";

  EXPECT_EQ(sha256_of(image), before) << "the user's image was written";
  EXPECT_EQ(overlays_with(marker), std::vector<std::string>{});
  EXPECT_EQ(topolab_domains_with(marker), std::vector<std::string>{});
}

TEST(OwnDiskLifecycle, HelloTimeoutSaysWhatToCheckAndKeepsTheConsole) {
  auto image = derived_test_disk("no-agent");
  ASSERT_FALSE(image.empty());
  const std::string marker = "it" + std::to_string(getpid()) + "-nohello";
  auto r =
      run_cli({"boot", kLayout, "--accel", "tcg", "--set", "expose=sockets", "--disk",
               image.string(), "--os", "linux", "--run-id", marker, "--hello-timeout", "45000"},
              std::chrono::minutes(10));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 76) << "a guest failure: ExitCode::guest\n" << r.err << r.out;
  for (const char* part : {"no hello from the agent within 45000 ms", "topolab-agent.service",
                           "the topolab-agent service", "virtio-serial port 'org.topolab.agent.0'",
                           "the domain's virtio channels: 'org.topolab.agent.0' (unix /",
                           "virtio_console", "vioser", "the console log is kept: "}) {
    EXPECT_NE(r.err.find(part), std::string::npos) << "missing '" << part << "' in: " << r.err;
  }
  // The disk template has the agent channel: nothing was added or renamed.
  EXPECT_EQ(r.err.find("topolab added"), std::string::npos) << r.err;
  std::cout << r.err;
  auto at = r.err.find("the console log is kept: ");
  ASSERT_NE(at, std::string::npos);
  auto path = r.err.substr(at + 25);
  path = path.substr(0, path.find_first_of("\n "));
  EXPECT_NE(path.find(marker), std::string::npos) << path;
  EXPECT_TRUE(std::filesystem::exists(path)) << path;
  EXPECT_EQ(overlays_with(marker), std::vector<std::string>{});
  EXPECT_EQ(topolab_domains_with(marker), std::vector<std::string>{});
}

}  // namespace
}  // namespace topolab::testing
