// The CLI side: a malformed layout file gives a non-zero exit and one line with file:line.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

struct Run {
  int status = -1;
  std::string out;
};

Run run_cli(std::vector<std::string> args) {
  int pipefd[2];
  if (pipe(pipefd) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(pipefd[1], 1);
    dup2(pipefd[1], 2);
    close(pipefd[0]);
    std::vector<char*> argv;
    std::string cli = TOPOLAB_CLI;
    argv.push_back(cli.data());
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(cli.c_str(), argv.data());
    _exit(127);
  }
  close(pipefd[1]);
  Run r;
  char buf[4096];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) > 0) r.out.append(buf, static_cast<size_t>(n));
  close(pipefd[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

TEST(LayoutCli, MalformedFileExitsNonZeroWithFileLine) {
  auto dir =
      std::filesystem::temp_directory_path() / ("topolab-layout-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto file = dir / "bad.toml";
  std::ofstream(file) << "name = \"x\"\n[guest]\nl3_groups = -2\ncores_per_group = 4\n";
  auto r = run_cli({"plan", file.string(), "--caps", "/nonexistent.xml"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find(file.string() + ":3: guest.l3_groups: expected an integer from 1"),
            std::string::npos)
      << r.out;
  std::filesystem::remove_all(dir);
}

TEST(LayoutCli, BadOverrideIsRefused) {
  auto r = run_cli({"plan", "flat-8", "--groups", "0", "--caps", "/nonexistent.xml"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("guest.l3_groups: expected an integer from 1 to 4096, got 0"),
            std::string::npos)
      << r.out;
}

}  // namespace
