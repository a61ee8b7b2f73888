#pragma once
// Runs the built topolab-agent as a child process (fork/exec, no shell) serving a UNIX socket
// in a private temp folder; kills it on destruction so no test path leaves it running.
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/child_process.hpp"

namespace topolab::testing {

class AgentProcess {
 public:
  explicit AgentProcess(std::vector<std::string> extra_args = {}) {
    char tmpl[] = "/tmp/topolab-agent-test-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    socket_ = dir_ / "agent.sock";
    std::vector<std::string> args = {TOPOLAB_AGENT, "serve", "--unix", socket_.string()};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    ChildOptions options;
    options.capture_output = false;  // its log goes to the test's log; nobody pumps it
    child_.emplace(std::move(args), options);
  }
  ~AgentProcess() {
    child_.reset();  // killed before its socket folder goes
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  const std::filesystem::path& socket() const { return socket_; }
  pid_t pid() const { return child_->pid(); }

  // Exit status within timeout, or -1 if still running.
  int wait_exit(std::chrono::milliseconds timeout) {
    auto run = child_->try_wait(timeout);
    return run ? run->status() : -1;
  }

 private:
  std::filesystem::path dir_, socket_;
  std::optional<ChildProcess> child_;
};

}  // namespace topolab::testing
