// Issue 25: os.* factors and the [os] table are checked against the settings table
// (protocol/guest_settings.hpp) when the file is read, with FILE:LINE; cells that differ only in
// os.* share one boot, and every run carries its cell's settings.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "orchestrator/run/experiment/experiment.hpp"
#include "orchestrator/run/experiment/matrix.hpp"

namespace topolab::experiment {
namespace {

using ::testing::HasSubstr;

Result<Experiment> parse(const std::string& body) {
  return parse_experiment("name = \"os\"\nlayout = \"l.toml\"\nrepetitions = 1\n" + body +
                              "\n[[benchmark]]\nname = \"sqrt\"\n",
                          "os.toml", "/base");
}

TEST(OsFactors, AreParsedAsOneBootForCellsThatDifferOnlyInOs) {
  auto e = parse(R"([factors]
"os.sched_autogroup" = [0, 1]
os.smt = ["on", "off"]
threads_per_core = [2]
[os]
timer_migration = 0)");
  ASSERT_TRUE(e.ok()) << e.error().message;
  ASSERT_EQ(e->factors.size(), 3u);
  EXPECT_EQ(e->factors[0].kind, FactorKind::kOs);
  EXPECT_EQ(e->factors[1].key, "os.smt");
  EXPECT_EQ(e->factors[1].kind, FactorKind::kOs);
  ASSERT_EQ(e->os_constants.size(), 1u);
  EXPECT_EQ(e->os_constants[0].name, "os.timer_migration");
  auto cells = expand_cells(*e);
  ASSERT_EQ(cells.size(), 4u);
  auto configs = group_by_configuration(*e, cells);
  ASSERT_EQ(configs.size(), 1u) << "os.* never needs another boot";
  EXPECT_EQ(configs[0].cells.size(), 4u);
  auto s = os_settings(*e, cells[3]);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.at("os.sched_autogroup"), 1);
  EXPECT_EQ(s.at("os.smt"), "off");
  EXPECT_EQ(s.at("os.timer_migration"), 0);
  EXPECT_EQ(experiment_to_json(*e)["os"]["os.timer_migration"], 0);
}

TEST(OsFactors, AnUnknownNameListsTheNamesOfTheGuestsOs) {
  auto e = parse("[factors]\n\"os.smt_mode\" = [\"on\"]");
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, HasSubstr("os.toml:5: factor 'os.smt_mode': not a guest setting"));
  EXPECT_THAT(e.error().message, HasSubstr("known for Linux: os.smt, os.sched_autogroup"));
  EXPECT_THAT(e.error().message, Not(HasSubstr("os.power_plan")));
}

TEST(OsFactors, AWindowsSettingOnTheBuiltInLinuxGuestIsRefused) {
  auto e = parse("[factors]\n\"os.power_plan\" = [\"balanced\"]");
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message,
              HasSubstr("os.toml:5: factor 'os.power_plan': a Windows setting, but the built-in "
                        "guest runs Linux"));
}

TEST(OsFactors, ValuesOutOfRangeOrEnumOrTypeAreRefusedWithTheLine) {
  auto range = parse("[factors]\n\"os.sched_autogroup\" = [0, 2]");
  ASSERT_FALSE(range.ok());
  EXPECT_THAT(range.error().message, HasSubstr("os.toml:5:"));
  EXPECT_THAT(range.error().message, HasSubstr("expected an integer 0..1, got 2"));
  auto choice = parse("[factors]\n\"os.smt\" = [\"on\", \"half\"]");
  ASSERT_FALSE(choice.ok());
  EXPECT_THAT(choice.error().message, HasSubstr("expected on | off, got 'half'"));
  auto type = parse("[os]\nsched_nr_migrate = \"32\"");
  ASSERT_FALSE(type.ok());
  EXPECT_THAT(type.error().message, HasSubstr("os.toml:5: [os] 'os.sched_nr_migrate'"));
  EXPECT_THAT(type.error().message, HasSubstr("not an integer"));
  auto nan = parse("[os]\nsched_nr_migrate = nan");
  ASSERT_FALSE(nan.ok());
  EXPECT_THAT(nan.error().message, HasSubstr("os.toml:5:"));
  EXPECT_THAT(nan.error().message, HasSubstr("finite"));
}

TEST(OsFactors, ABaselineLevelOfTheWrongTypeIsRefused) {
  auto e = parse(
      "[factors]\n\"os.sched_autogroup\" = [0, 1]\n[baseline]\n\"os.sched_autogroup\" = \"0\"");
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, HasSubstr("os.toml:7: [baseline] 'os.sched_autogroup' = '0' (a "
                                           "string; that level is an integer)"));
}

TEST(OsFactors, ASettingBothInFactorsAndOsIsRefused) {
  auto e = parse("[factors]\n\"os.smt\" = [\"on\", \"off\"]\n[os]\nsmt = \"on\"");
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, HasSubstr("os.smt is also a factor"));
}

TEST(OsFactors, AWindowsDiskGuestTakesWindowsRowsAndRefusesLinuxOnes) {
  const std::string guest = "[guest]\ndisk = \"w.qcow2\"\nos = \"windows\"\n";
  auto ok = parse(guest + "[factors]\n\"os.timer_resolution_ms\" = [0.5, 15.625]");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  auto bad = parse(guest + "[factors]\n\"os.smt\" = [\"on\"]");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("a Linux setting, but this experiment's guest runs "
                                             "windows"));
}

}  // namespace
}  // namespace topolab::experiment

namespace topolab::experiment {
namespace {

// Every study example parses (the Windows one too: its os.* rows match its [guest] os); the
// Linux ones also run on a real guest (tests/integration/experiment/os_settings_test.cpp).
TEST(OsFactors, EveryStudyExampleParses) {
  const std::filesystem::path dir = std::filesystem::path(TOPOLAB_SOURCE_DIR) / "examples/studies";
  int n = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    if (f.path().extension() != ".toml") continue;
    ++n;
    auto e = load_experiment_file(f.path());
    EXPECT_TRUE(e.ok()) << f.path() << ": " << e.error().message;
  }
  EXPECT_GE(n, 5);
}

}  // namespace
}  // namespace topolab::experiment
