// The experiment file's [boot] table (issue 17): retries and watchdog_ms read into
// Experiment::boot, kept in the stored spec, and out-of-range or unknown keys refused with the
// file's line.
#include "orchestrator/run/experiment/boot_settings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "orchestrator/run/experiment/experiment.hpp"

namespace topolab::experiment {
namespace {

using ::testing::HasSubstr;

constexpr const char* kHead = "name = \"x\"\nlayout = \"l.toml\"\n[[benchmark]]\nname = \"sqrt\"\n";

Result<Experiment> parse(const std::string& tail) {
  return parse_experiment(std::string(kHead) + tail, "exp.toml", "/base/dir");
}

TEST(BootSettings, ReadIntoTheExperimentAndItsStoredSpec) {
  auto e = parse("[boot]\nretries = 2\nwatchdog_ms = 4000\n");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->boot.retries, 2);
  EXPECT_EQ(e->boot.watchdog_ms, 4000);
  auto j = experiment_to_json(*e);
  EXPECT_EQ(j["boot"]["retries"], 2);
  EXPECT_EQ(j["boot"]["watchdog_ms"], 4000);
}

TEST(BootSettings, AbsentMeansTheCommandLineOrDefaultDecides) {
  auto e = parse("");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_FALSE(e->boot.retries);
  EXPECT_FALSE(e->boot.watchdog_ms);
  EXPECT_FALSE(experiment_to_json(*e).contains("boot")) << "stored specs without [boot] unchanged";
  auto off = parse("[boot]\nwatchdog_ms = -1\nretries = 0\n");
  ASSERT_TRUE(off.ok()) << off.error().message;
  EXPECT_EQ(off->boot.watchdog_ms, -1);
  EXPECT_EQ(off->boot.retries, 0);
}

TEST(BootSettings, BadValuesAreRefusedWithTheirLine) {
  struct Bad {
    const char* tail;
    const char* where;
    const char* what;
  };
  for (auto b : {Bad{"[boot]\nretries = 6\n", "exp.toml:6:", "'boot.retries': expected"},
                 Bad{"[boot]\nretries = \"1\"\n", "exp.toml:6:", "an integer 0..5"},
                 Bad{"[boot]\nwatchdog_ms = 999\n", "exp.toml:6:", "1000..3600000 ms"},
                 Bad{"[boot]\nwatchdog_ms = -2\n", "exp.toml:6:", "'boot.watchdog_ms'"},
                 Bad{"[boot]\nwatchdog_ms = 3600001\n", "exp.toml:6:", "'boot.watchdog_ms'"},
                 Bad{"[boot]\nretry = 1\n", "exp.toml:6:", "unknown key 'boot.retry'"}}) {
    auto e = parse(b.tail);
    ASSERT_FALSE(e.ok()) << b.tail;
    EXPECT_THAT(e.error().message, HasSubstr(b.where)) << b.tail;
    EXPECT_THAT(e.error().message, HasSubstr(b.what)) << b.tail;
  }
}

TEST(BootSettings, ANonTableIsRefused) {
  auto e = parse_experiment(std::string("boot = 1\n") + kHead, "exp.toml", "/base/dir");
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, HasSubstr("exp.toml:1: 'boot': expected a table"));
}

TEST(BootSettings, OneWatchdogRuleForFileAndCommandLine) {
  EXPECT_TRUE(valid_watchdog_ms(-1));
  EXPECT_TRUE(valid_watchdog_ms(0));
  EXPECT_TRUE(valid_watchdog_ms(1000));
  EXPECT_TRUE(valid_watchdog_ms(3600000));
  EXPECT_FALSE(valid_watchdog_ms(1));
  EXPECT_FALSE(valid_watchdog_ms(-2));
}

}  // namespace
}  // namespace topolab::experiment
