#pragma once
// Runs the built topolab-agent as a child process (fork/exec, no shell) serving a UNIX socket
// in a private temp folder; kills it on destruction so no test path leaves it running.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace topolab::testing {

class AgentProcess {
 public:
  explicit AgentProcess(std::vector<std::string> extra_args = {}) {
    char tmpl[] = "/tmp/topolab-agent-test-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    socket_ = dir_ / "agent.sock";
    std::vector<std::string> args = {TOPOLAB_AGENT, "serve", "--unix", socket_.string()};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      _exit(127);
    }
  }
  ~AgentProcess() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  const std::filesystem::path& socket() const { return socket_; }
  pid_t pid() const { return pid_; }

  // Exit status within timeout, or -1 if still running.
  int wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }

 private:
  std::filesystem::path dir_, socket_;
  pid_t pid_ = -1;
  bool exited_ = false;
};

}  // namespace topolab::testing
