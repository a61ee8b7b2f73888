// Issue 12 class 5 (parse side): one factor per layout field whatever its spelling, levels
// matched by type, finite numbers only, overrides applied before the size limits; class 3: deep
// TOML and deep factor keys are refused, not recursed into.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/run/experiment/experiment.hpp"
#include "orchestrator/run/experiment/matrix.hpp"

namespace topolab::experiment {
namespace {

using ::testing::HasSubstr;

Result<Experiment> parse(const std::string& text, const Overrides& o = {}) {
  return parse_experiment(text, "k.toml", "/base", o);
}

// Lines 1-3 fixed, [factors] on line 4, factor lines follow; a benchmark at the end.
std::string with_factors(const std::string& factors, const std::string& tail = "") {
  return "name = \"k\"\nlayout = \"l.toml\"\nrepetitions = 1\n[factors]\n" + factors +
         "[[benchmark]]\nname = \"sqrt\"\n" + tail;
}

TEST(FactorKeys, QuotedAndDottedSpellingsOfOneFieldAreRefused) {
  auto e = parse(with_factors("\"guest.l3_groups\" = [1, 2]\nguest.l3_groups = [4]\n"));
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, HasSubstr("k.toml:"));
  EXPECT_THAT(e.error().message, HasSubstr("repeats 'guest.l3_groups'"));
  EXPECT_THAT(e.error().message, HasSubstr("write it once"));
}

TEST(FactorKeys, AnAliasAndTheFileKeyAreOneField) {
  auto e = parse(with_factors("guest.l3_groups = [1, 2]\ngroups = [4]\n"));
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, HasSubstr("k.toml:6: factor 'groups' repeats 'guest.l3_groups' "
                                           "(line 5): both are guest.l3_groups"));
  auto p = parse(with_factors("\"param.sqrt.n\" = [1]\nparam.sqrt.n = [2]\n"));
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.error().message, HasSubstr("repeats 'param.sqrt.n'"));
}

TEST(FactorKeys, TheFieldIsCanonicalAndTheWrittenKeyIsKept) {
  auto e = parse(with_factors("groups = [1, 2]\n", "[baseline]\nguest.l3_groups = 1\n"));
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->factors[0].key, "groups");
  EXPECT_EQ(e->factors[0].field, "guest.l3_groups");
  ASSERT_EQ(e->baseline.count("groups"), 1u) << "baseline stored under the factor's key";
  EXPECT_EQ(e->factor("L3-Groups"), &e->factors[0]);
  auto cells = expand_cells(*e);
  EXPECT_EQ(baseline_cell(*e, cells, cells[1]), 0);
}

TEST(FactorKeys, AnUnknownLayoutFieldIsRefusedAtParseTime) {
  auto e = parse(with_factors("guest.l3_gropus = [1, 2]\n"));
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message,
              HasSubstr("k.toml:5: factor 'guest.l3_gropus': not a layout field"));
}

TEST(FactorKeys, BaselineAndExcludeSpellingsMustNotContradict) {
  auto e = parse(with_factors("guest.l3_groups = [1, 2]\n",
                              "[baseline]\ngroups = 1\n\"guest.l3_groups\" = 2\n"));
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, HasSubstr("k.toml:10: [baseline] 'guest.l3_groups' repeats "
                                           "'groups' (line 9)"));
}

TEST(TypedLevels, AStringBaselineForIntegerLevelsIsRefusedWithTheLevels) {
  auto e = parse(with_factors("\"param.sqrt.threads\" = [1, 2]\n",
                              "[baseline]\n\"param.sqrt.threads\" = \"1\"\n"));
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message,
            "k.toml:9: [baseline] 'param.sqrt.threads' = '1' (a string; that level is an "
            "integer): expected one of 1, 2");
}

TEST(TypedLevels, FloatAndIntegerLevelsDoNotMatchEachOther) {
  auto e = parse(with_factors("\"param.sqrt.threads\" = [1, 2]\n",
                              "[[exclude]]\n\"param.sqrt.threads\" = 1.0\n"));
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, HasSubstr("[[exclude]] 'param.sqrt.threads'"));
  EXPECT_TRUE(same_level(nlohmann::json(1), nlohmann::json(1)));
  EXPECT_FALSE(same_level(nlohmann::json(1), nlohmann::json("1")));
  EXPECT_FALSE(same_level(nlohmann::json(1), nlohmann::json(1.0)));
  EXPECT_FALSE(same_level(nlohmann::json(true), nlohmann::json(1)));
}

TEST(TypedLevels, AMatchingBaselineGivesEveryCellItsBaseline) {
  auto e = parse(with_factors("\"param.sqrt.threads\" = [1, 2]\n",
                              "[baseline]\n\"param.sqrt.threads\" = 1\n"));
  ASSERT_TRUE(e.ok()) << e.error().message;
  auto cells = expand_cells(*e);
  EXPECT_EQ(baseline_cell(*e, cells, cells[0]), 0);
  EXPECT_EQ(baseline_cell(*e, cells, cells[1]), 0);
}

TEST(FiniteNumbers, NanAndInfAreRefusedWherever) {
  for (const std::string v : {"nan", "+nan", "-nan", "inf", "-inf", "+inf"}) {
    auto cv = parse(with_factors("", "[adaptive]\ncv_threshold = " + v + "\n"));
    ASSERT_FALSE(cv.ok()) << v;
    EXPECT_THAT(cv.error().message, HasSubstr("k.toml:8: 'adaptive.cv_threshold'")) << v;
    auto level = parse(with_factors("\"param.sqrt.x\" = [1.5, " + v + "]\n"));
    ASSERT_FALSE(level.ok()) << v;
    EXPECT_THAT(level.error().message, HasSubstr("expected a finite number")) << v;
    auto param = parse(
        "name = \"k\"\nbackend = \"host\"\n[[benchmark]]\nname = \"sqrt\"\n"
        "params = { n = " +
        v + " }\n");
    ASSERT_FALSE(param.ok()) << v;
    EXPECT_THAT(param.error().message,
                HasSubstr("k.toml:5: benchmark.params.n: expected a finite"));
  }
  auto zero = parse(with_factors("", "[adaptive]\ncv_threshold = 0.0\n"));
  EXPECT_FALSE(zero.ok());
}

TEST(Overrides, RepetitionsAreAppliedBeforeTheRunLimit) {
  // 1000 cells x 10 benchmarks: 10 000 runs in the file, 10^7 with --repetitions 1000.
  std::string text = "name = \"o\"\nbackend = \"host\"\nrepetitions = 1\n[factors]\n";
  // Real parameters of a real benchmark: the file is checked against the agent's table.
  for (const char* f : {"threads", "cpus", "n"})
    text += "\"param.sqrt." + std::string(f) + "\" = [1,2,3,4,5,6,7,8,9,10]\n";
  for (int b = 0; b < 10; ++b) text += "[[benchmark]]\nname = \"sqrt\"\n";
  auto file = parse(text);
  ASSERT_TRUE(file.ok()) << file.error().message;
  auto big = parse(text, Overrides{1000, std::nullopt, {}});
  ASSERT_FALSE(big.ok());
  EXPECT_THAT(big.error().message,
              HasSubstr("10000000 runs (1000 cells × 10 benchmarks × 1000 repetitions (with "
                        "--repetitions))"));
  auto fits = parse(text, Overrides{100, 42, {}});
  ASSERT_TRUE(fits.ok()) << fits.error().message;
  EXPECT_EQ(fits->repetitions, 100);
  EXPECT_EQ(fits->seed, 42u);
  auto bad = parse(text, Overrides{0, std::nullopt, {}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("--repetitions 0"));
}

TEST(Overrides, RepetitionsRaiseTheAdaptiveMaximumBeforeItIsChecked) {
  std::string text =
      "name = \"o\"\nbackend = \"host\"\nrepetitions = 2\n[[benchmark]]\nname = "
      "\"sqrt\"\n[adaptive]\nmax_repetitions = 3\n";
  auto e = parse(text, Overrides{5, std::nullopt, {}});
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->adaptive->max_repetitions, 5);
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(Depth, DeepFactorKeysAreRefusedWithoutRecursion) {
  // 16 000 segments (32 KB) overflowed the stack in collect_factors.
  auto deep = parse(with_factors("a" + repeat(".a", 15999) + " = [1]\n"));
  ASSERT_FALSE(deep.ok());
  EXPECT_THAT(deep.error().message, HasSubstr("k.toml:5: TOML nested deeper than 64 levels"));
  // Within the TOML limit, the factor walk has its own (8 segments).
  auto nine = parse(with_factors("param" + repeat(".a", 9) + " = [1]\n"));
  ASSERT_FALSE(nine.ok());
  EXPECT_THAT(nine.error().message, HasSubstr("expected at most 8 key segments"));
  auto base =
      parse(with_factors("guest.l3_groups = [1]\n", "[baseline]\n" + repeat("a.", 20) + "b = 1\n"));
  ASSERT_FALSE(base.ok());
  EXPECT_THAT(base.error().message, HasSubstr("is not a factor of this experiment"));
}

TEST(Depth, DeepValuesAreRefusedBeforeToml) {
  auto e = parse("name = \"d\"\nx = " + repeat("[", 40000) + repeat("]", 40000) + "\n");
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, HasSubstr("k.toml:2: TOML nested deeper than 64 levels"));
}

// A layout level is checked by its field (the layout field table) when the file is read, with
// its line: a bad last level must not wait until the run plans its configurations.
TEST(FactorKeys, LayoutLevelsAreCheckedByTheirFieldWithTheirLine) {
  auto e = parse(with_factors("groups = [2,\n  0]\n"));
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message,
              HasSubstr("k.toml:6: factor 'groups' level '0': guest.l3_groups: expected an "
                        "integer from 1 to 4096, got 0"));
  auto typed = parse(with_factors("expose = [\"flat\", \"hexagonal\"]\n"));
  ASSERT_FALSE(typed.ok());
  EXPECT_THAT(typed.error().message, HasSubstr("k.toml:5: factor 'expose' level 'hexagonal'"));
  EXPECT_TRUE(parse(with_factors("groups = [1, 2]\nhyperv = [true, false]\n")).ok());
}

}  // namespace
}  // namespace topolab::experiment
