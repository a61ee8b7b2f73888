// Issue 32 classes 5 and 6: an experiment file's benchmarks are checked against the agent's own
// table when the file is read (a misspelt name or a string where an integer belongs failed in
// every run, in the guest, after the boots); list parameters can be written as arrays; a
// cmdline.* factor is one kernel parameter or refused (a blank split it into several).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/run/experiment/experiment.hpp"
#include "orchestrator/run/experiment/matrix.hpp"

namespace topolab::experiment {
namespace {

using ::testing::HasSubstr;

Result<Experiment> parse(const std::string& body) {
  return parse_experiment("name = \"x\"\nlayout = \"l.toml\"\n" + body, "exp.toml", "/base");
}

std::string error_of(const std::string& body) {
  auto e = parse(body);
  return e ? std::string("(accepted)") : e.error().message;
}

TEST(BenchmarkCheck, AnUnknownBenchmarkIsRefusedWhenTheFileIsRead) {
  const std::string m = error_of("[[benchmark]]\nname = \"sqrtt\"\n");
  EXPECT_THAT(m, HasSubstr("exp.toml:3:"));
  EXPECT_THAT(m, HasSubstr("unknown benchmark (known: c2c-latency,"));
  EXPECT_THAT(m, HasSubstr("sqrt"));
}

TEST(BenchmarkCheck, AParameterOfTheWrongTypeIsRefusedWithItsLine) {
  const std::string m = error_of("[[benchmark]]\nname = \"sqrt\"\nparams = { n = \"many\" }\n");
  EXPECT_THAT(m, HasSubstr("exp.toml:3:"));
  EXPECT_THAT(m, HasSubstr("parameter 'n' must be an integer"));
  EXPECT_THAT(error_of("[[benchmark]]\nname = \"sqrt\"\nparams = { nn = 5 }\n"),
              HasSubstr("unknown parameter 'nn' (known: "));
  EXPECT_THAT(error_of("[[benchmark]]\nname = \"sqrt\"\nparams = { threads = 100000 }\n"),
              HasSubstr("parameter 'threads' = 100000 is outside [0, 256]"));
}

TEST(BenchmarkCheck, AParamFactorLevelIsCheckedForEveryBenchmarkItReaches) {
  const std::string m = error_of(
      "[factors]\n\"param.sqrt.pin\" = [\"none\", \"spread\"]\n[[benchmark]]\nname = \"sqrt\"\n");
  EXPECT_THAT(m, HasSubstr("exp.toml:4:"));  // the factor's line
  EXPECT_THAT(m, HasSubstr("parameter 'pin' = 'spread' is not one of"));
  // param.<name> reaches every benchmark: topology has no 'threads'.
  EXPECT_THAT(error_of("[factors]\n\"param.threads\" = [1, 2]\n[[benchmark]]\nname = \"sqrt\"\n"
                       "[[benchmark]]\nname = \"topology\"\n"),
              HasSubstr("benchmark 'topology': unknown parameter 'threads'"));
  EXPECT_TRUE(parse("[factors]\n\"param.sqrt.threads\" = [1, 2]\n[[benchmark]]\nname = \"sqrt\"\n"
                    "[[benchmark]]\nname = \"topology\"\n")
                  .ok());
}

TEST(BenchmarkCheck, ListParametersAreArraysInTheFile) {
  auto e = parse(
      "[[benchmark]]\nname = \"mem-latency\"\nparams = { sizes_kib = [16, 256], repeats = 1 }\n");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->benchmarks[0].params["sizes_kib"], nlohmann::json::array({16, 256}));
  EXPECT_THAT(error_of("[[benchmark]]\nname = \"mem-latency\"\nparams = { sizes_kib = [16, "
                       "\"big\"] }\n"),
              HasSubstr("parameter 'sizes_kib' must be an integer, got \"big\""));
  EXPECT_THAT(error_of("[[benchmark]]\nname = \"mem-latency\"\nparams = { sizes_kib = [[16]] }\n"),
              HasSubstr("expected an array of scalars"));
  // cpus as an array of CPU ids, as the agent accepts it.
  EXPECT_TRUE(parse("[[benchmark]]\nname = \"c2c-latency\"\nparams = { cpus = [0, 1] }\n").ok());
}

TEST(CmdlineFactor, AKeyOrLevelThatWouldBeSeveralKernelParametersIsRefused) {
  const std::string bench = "[[benchmark]]\nname = \"sqrt\"\n";
  EXPECT_THAT(error_of("[factors]\n\"cmdline.nohz init=/bin/sh\" = [true]\n" + bench),
              HasSubstr("expected cmdline.<option>, the option of letters"));
  EXPECT_THAT(error_of("[factors]\n\"cmdline.a\\u001b\" = [true]\n" + bench),
              HasSubstr("expected cmdline.<option>"));
  const std::string m =
      error_of("[factors]\n\"cmdline.isolcpus\" = [\"1 init=/bin/sh\"]\n" + bench);
  EXPECT_THAT(m, HasSubstr("exp.toml:4:"));
  EXPECT_THAT(m, HasSubstr("expected one kernel parameter value"));
  EXPECT_THAT(error_of("[factors]\n\"cmdline.x\" = [\"a\\nb\"]\n" + bench),
              HasSubstr("expected one kernel parameter value"));
  EXPECT_THAT(error_of("[factors]\n\"cmdline.x\" = [\"\\\"q\\\"\"]\n" + bench),
              HasSubstr("expected one kernel parameter value"));
}

TEST(CmdlineFactor, OneParameterPerLevelStillWorks) {
  auto e = parse(
      "[factors]\n\"cmdline.isolcpus\" = [\"1-3,5\", \"nohz,domain,2\"]\n"
      "cmdline.intel_idle.max_cstate = [1]\ncmdline.nosmt = [true, false]\n"
      "[[benchmark]]\nname = \"sqrt\"\n");
  ASSERT_TRUE(e.ok()) << e.error().message;
  Configuration c;
  c.levels = {
      {"cmdline.isolcpus", "1-3,5"}, {"cmdline.intel_idle.max_cstate", 1}, {"cmdline.nosmt", true}};
  EXPECT_EQ(cmdline_extra(c), "isolcpus=1-3,5 intel_idle.max_cstate=1 nosmt");
}

}  // namespace
}  // namespace topolab::experiment
