// Issue 30: the machine a boot ran on, read from uname and Slurm's environment (untrusted:
// a value of the wrong shape is left out, never cut to fit).
#include "orchestrator/run/experiment/machine_context.hpp"

#include <gtest/gtest.h>

#include <map>

namespace topolab::experiment {
namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

TEST(MachineContext, OutsideSlurmOnlyTheHostName) {
  const auto m = machine_context("lab-07.example", env_of({}));
  EXPECT_EQ(m, (nlohmann::json{{"hostname", "lab-07.example"}}));
}

TEST(MachineContext, InsideAnArrayTaskTheJobTaskAndNode) {
  const auto m = machine_context("n1", env_of({{"SLURM_JOB_ID", "41"},
                                               {"SLURM_ARRAY_JOB_ID", "40"},
                                               {"SLURM_ARRAY_TASK_ID", "2"},
                                               {"SLURMD_NODENAME", "n1"}}));
  EXPECT_EQ(m["slurm"],
            (nlohmann::json{
                {"job_id", "41"}, {"array_job_id", "40"}, {"array_task_id", "2"}, {"node", "n1"}}));
}

TEST(MachineContext, ValuesOfTheWrongShapeAreLeftOut) {
  const auto m = machine_context("bad host\x1b[31m", env_of({{"SLURM_JOB_ID", "41; rm -rf /"},
                                                             {"SLURM_ARRAY_TASK_ID", "-1"},
                                                             {"SLURMD_NODENAME", "n1"}}));
  EXPECT_FALSE(m.contains("hostname"));
  EXPECT_EQ(m["slurm"], (nlohmann::json{{"node", "n1"}}));
  EXPECT_FALSE(machine_context(std::string(254, 'a'), env_of({})).contains("hostname"));
  EXPECT_FALSE(
      machine_context("n1", env_of({{"SLURM_JOB_ID", std::string(21, '9')}})).contains("slurm"));
}

TEST(MachineContext, ThisMachineHasItsHostName) {
  EXPECT_TRUE(this_machine_context().contains("hostname"));
}

}  // namespace
}  // namespace topolab::experiment
