#include "orchestrator/run/experiment/experiment.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/orchestrator/run/experiment/designs.hpp"

namespace topolab::experiment {
namespace {

using ::testing::HasSubstr;

Result<Experiment> parse(const std::string& text) {
  return parse_experiment(text, "exp.toml", "/base/dir");
}

TEST(ExperimentParse, ReadsEveryField) {
  auto e = parse(kCcxDesign);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->name, "ccx-exposure");
  EXPECT_EQ(e->layout_path, std::filesystem::path("/base/layouts/two.toml"));
  EXPECT_EQ(e->repetitions, 5);
  EXPECT_EQ(e->seed, 7u);
  ASSERT_EQ(e->factors.size(), 4u);
  EXPECT_EQ(e->factors[0].key, "expose");
  EXPECT_EQ(e->factors[0].kind, FactorKind::kLayout);
  EXPECT_EQ(e->factors[2].kind, FactorKind::kParam);
  EXPECT_EQ(e->factors[2].levels[1], 2);
  EXPECT_EQ(e->factors[3].key, "cmdline.nohz");
  EXPECT_EQ(e->factors[3].kind, FactorKind::kCmdline);
  ASSERT_EQ(e->benchmarks.size(), 2u);
  EXPECT_EQ(e->benchmarks[0].params["n"], 1000);
  EXPECT_TRUE(e->benchmarks[1].params.empty());
  ASSERT_EQ(e->excludes.size(), 1u);
  EXPECT_EQ(e->excludes[0].match.at("policy"), "unpinned");
  EXPECT_EQ(e->baseline.at("expose"), "flat");
  ASSERT_TRUE(e->adaptive.has_value());
  EXPECT_DOUBLE_EQ(e->adaptive->cv_threshold.value_or(0), 0.1);
  EXPECT_EQ(e->adaptive->max_repetitions, 9);
}

TEST(ExperimentParse, DottedFactorKeysBecomeLayoutFieldPaths) {
  auto e = parse(R"(
name = "x"
layout = "l.toml"
[factors]
guest.l3_groups = [1, 2]
[[benchmark]]
name = "sqrt"
[baseline]
guest.l3_groups = 1
)");
  ASSERT_TRUE(e.ok()) << e.error().message;
  ASSERT_EQ(e->factors.size(), 1u);
  EXPECT_EQ(e->factors[0].key, "guest.l3_groups");
  EXPECT_EQ(e->baseline.at("guest.l3_groups"), 1);
}

TEST(ExperimentParse, DefaultsWithoutFactors) {
  auto e = parse("name = \"x\"\nlayout = \"l.toml\"\n[[benchmark]]\nname = \"sqrt\"\n");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->repetitions, 3);
  EXPECT_EQ(e->backend, BackendKind::kGuest);
  EXPECT_TRUE(e->factors.empty());
  EXPECT_FALSE(e->adaptive.has_value());
}

struct BadCase {
  const char* text;
  const char* where;
  const char* what;
};

class ExperimentParseErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(ExperimentParseErrors, NameFileLineAndExpectation) {
  auto e = parse(GetParam().text);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, HasSubstr(GetParam().where));
  EXPECT_THAT(e.error().message, HasSubstr(GetParam().what));
}

constexpr const char* kHead = "name = \"x\"\nlayout = \"l.toml\"\n[[benchmark]]\nname = \"sqrt\"\n";

INSTANTIATE_TEST_SUITE_P(
    Cases, ExperimentParseErrors,
    ::testing::Values(
        BadCase{"name = \"x\"\nrepetitions = 0\n", "exp.toml:2:", "expected an integer 1..1000"},
        BadCase{"name = \"x\"\nlayout = \"l\"\n\nfoo = 1\n[[benchmark]]\nname=\"s\"\n",
                "exp.toml:4:", "unknown key 'foo'"},
        BadCase{"name = \"x\"\nbackend = \"cloud\"\n",
                "exp.toml:2:", "expected \"guest\" or \"host\""},
        BadCase{"name = [\n", "exp.toml:", "TOML syntax error"},
        BadCase{"layout = \"l.toml\"\n[[benchmark]]\nname = \"sqrt\"\n",
                "exp.toml:1:", "missing 'name'"},
        BadCase{"name = \"x\"\nlayout = \"l.toml\"\n", "exp.toml:1:", "missing [[benchmark]]"},
        BadCase{"name = \"x\"\nlayout = \"l.toml\"\n[[benchmark]]\nname = \"sqrt\"\n[factors]\n"
                "expose = \"flat\"\n",
                "exp.toml:6:", "expected an array of levels"},
        BadCase{"name = \"x\"\nlayout = \"l.toml\"\n[[benchmark]]\nname = \"sqrt\"\n[factors]\n"
                "expose = [\"flat\", \"flat\"]\n",
                "exp.toml:6:", "duplicate level 'flat'"},
        BadCase{"name = \"x\"\nlayout = \"l.toml\"\n[[benchmark]]\nname = \"sqrt\"\n[factors]\n"
                "expose = [\"flat\"]\n[baseline]\nexpose = \"dies\"\n",
                "exp.toml:8:", "expected one of flat"},
        BadCase{"name = \"x\"\nlayout = \"l.toml\"\n[[benchmark]]\nname = \"sqrt\"\n[factors]\n"
                "expose = [\"flat\"]\n[[exclude]]\npolicy = \"unpinned\"\n",
                "exp.toml:8:", "'policy' is not a factor"},
        BadCase{"name = \"x\"\nlayout = \"l.toml\"\n[[benchmark]]\nname = \"sqrt\"\n[factors]\n"
                "\"param.fio.n\" = [1]\n",
                "exp.toml:6:", "no [[benchmark]] named 'fio'"},
        BadCase{"name = \"x\"\nlayout = \"l.toml\"\n[[benchmark]]\nname = \"sqrt\"\nfoo = 1\n",
                "exp.toml:5:", "unknown key 'benchmark.foo'"},
        BadCase{"name = \"x\"\nlayout = \"l.toml\"\n[[benchmark]]\nname = \"sqrt\"\n[adaptive]\n"
                "cv_threshold = -1\n",
                "exp.toml:6:", "expected a number in (0, 10)"},
        BadCase{"name = \"x\"\nlayout = \"l.toml\"\nrepetitions = 5\n[[benchmark]]\nname = \"s\"\n"
                "[adaptive]\nmax_repetitions = 2\n",
                "exp.toml:1:", "must be >= repetitions"}));

TEST(ExperimentJson, RoundTripsTheDesign) {
  auto e = parse(kCcxDesign);
  ASSERT_TRUE(e.ok());
  auto j = experiment_to_json(*e);
  EXPECT_EQ(j["baseline"]["expose"], "flat");
  EXPECT_EQ(j["factors"][0]["levels"].size(), 3u);
  EXPECT_EQ(j["seed"], 7);
  EXPECT_EQ(j["adaptive"]["max_repetitions"], 9);
}

}  // namespace
}  // namespace topolab::experiment
