#pragma once
// Runs the built `topolab` CLI as a child (fork/exec, argv only) and collects its output, and
// checks libvirt for topolab- domains a test left behind.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "orchestrator/virt/domain_lifecycle.hpp"
#include "orchestrator/virt/libvirt_handles.hpp"

namespace topolab::testing {

struct CliRun {
  int exit_code = -1;   // -1 when killed by a signal
  int term_signal = 0;  // the signal that killed it
  std::string out, err;
  bool timed_out = false;
};

class CliChild {
 public:
  explicit CliChild(const std::vector<std::string>& args) {
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      dup2(err[1], 2);
      std::vector<char*> argv;
      std::string cli = TOPOLAB_CLI;
      argv.push_back(cli.data());
      std::vector<std::string> copy = args;
      for (auto& a : copy) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(cli.c_str(), argv.data());
      _exit(127);
    }
    close(out[1]);
    close(err[1]);
    out_fd_ = out[0];
    err_fd_ = err[0];
  }
  ~CliChild() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_fd_ >= 0) close(out_fd_);
    if (err_fd_ >= 0) close(err_fd_);
  }
  pid_t pid() const { return pid_; }

  // Reads output until the child exits or `timeout` passes (then SIGKILL).
  CliRun wait(std::chrono::milliseconds timeout) {
    CliRun r;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (out_fd_ >= 0 || err_fd_ >= 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0) {
        r.timed_out = true;
        kill(pid_, SIGKILL);
        break;
      }
      pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
      poll(fds, 2, static_cast<int>(std::min<long long>(left, 500)));
      drain(out_fd_, fds[0].revents, r.out);
      drain(err_fd_, fds[1].revents, r.err);
    }
    int status = 0;
    waitpid(pid_, &status, 0);
    reaped_ = true;
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
    return r;
  }

 private:
  static void drain(int& fd, short revents, std::string& into) {
    if (fd < 0 || !(revents & (POLLIN | POLLHUP | POLLERR))) return;
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      into.append(buf, static_cast<std::size_t>(n));
    } else {
      close(fd);
      fd = -1;
    }
  }
  pid_t pid_ = -1;
  int out_fd_ = -1, err_fd_ = -1;
  bool reaped_ = false;
};

inline CliRun run_cli(const std::vector<std::string>& args,
                      std::chrono::milliseconds timeout = std::chrono::minutes(5)) {
  CliChild child(args);
  return child.wait(timeout);
}

// Names of all domains (on qemu:///system) whose name starts with "topolab-" and contains
// `marker` (the test's run id).
inline std::vector<std::string> topolab_domains_with(const std::string& marker) {
  std::vector<std::string> out;
  auto conn = virt::open_connection("qemu:///system");
  if (!conn) return {"cannot connect: " + conn.error().message};
  virDomainPtr* doms = nullptr;
  int n = virConnectListAllDomains(conn->get(), &doms, 0);
  for (int i = 0; i < n; ++i) {
    std::string name = virt::domain_name(doms[i]);
    if (name.rfind("topolab-", 0) == 0 && name.find(marker) != std::string::npos) {
      out.push_back(name);
    }
    virDomainFree(doms[i]);
  }
  free(doms);  // NOLINT: libvirt allocates with malloc
  return out;
}

}  // namespace topolab::testing
