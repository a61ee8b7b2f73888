// The real `topolab hook` binary, dry-run on a fixture tree (which it must not change).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

struct CliRun {
  int exit_code = -1;
  std::string out;
};

CliRun run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), TOPOLAB_CLI);
  int pipefd[2];
  if (::pipe(pipefd) != 0) return {};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipefd[1], 1);
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(pipefd[1]);
  CliRun run;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(pipefd[0], buf, sizeof buf)) > 0) run.out.append(buf, static_cast<size_t>(n));
  ::close(pipefd[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

const std::string kRoot =
    std::string(TOPOLAB_TESTS_DIR) + "/orchestrator/isolation/data/cgroup2-host";

TEST(HookCli, DryRunJsonPrintsThePlan) {
  auto run =
      run_cli({"hook", "win10", "prepare", "-", "-", "--root", kRoot, "--dry-run", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.out;
  auto j = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << run.out;
  EXPECT_EQ(j["action"], "apply");
  EXPECT_EQ(j["plan"]["guest_cpus"], "4-7");
  EXPECT_EQ(j["plan"]["actions"].size(), 10u);
  EXPECT_FALSE(j.contains("report"));
}

TEST(HookCli, TextDryRunAndOtherDomainsAndOperations) {
  auto text = run_cli({"hook", "win10", "prepare", "--root", kRoot, "--dry-run"});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("irq-affinity  /proc/irq/24/smp_affinity_list: '0-7' -> '0-3'"),
            std::string::npos)
      << text.out;
  auto other = run_cli({"hook", "someone-else", "prepare", "--root", kRoot, "--dry-run"});
  EXPECT_EQ(other.exit_code, 0);
  EXPECT_NE(other.out.find("none (dry run): no layout registered"), std::string::npos) << other.out;
  auto started = run_cli({"hook", "win10", "started", "--root", kRoot});
  EXPECT_EQ(started.exit_code, 0);
  EXPECT_NE(started.out.find("needs nothing"), std::string::npos) << started.out;
}

TEST(HookCli, MissingArgumentsAndBadNamesFail) {
  EXPECT_EQ(run_cli({"hook"}).exit_code, 2);
  EXPECT_EQ(run_cli({"hook", "../x", "prepare", "--root", kRoot, "--dry-run"}).exit_code, 1);
}

}  // namespace
