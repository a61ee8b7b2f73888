#pragma once
// Test support shared by every test folder: run a program (the built `topolab` CLI, the agent,
// virsh) as a child with fork/exec (argv only, never a shell), collect its output while it
// runs, bound it with a timeout; and list the topolab- domains a test left in libvirt.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
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
  // The shell's convention: the exit code, or 128 + the signal.
  int status() const { return term_signal ? 128 + term_signal : exit_code; }
};

class ChildProcess {
 public:
  // argv[0] is the program's path (no PATH search unless `search_path`).
  explicit ChildProcess(std::vector<std::string> argv, bool search_path = false) {
    int out[2], err[2];
    if (argv.empty() || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      dup2(err[1], 2);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      if (search_path)
        execvp(args[0], args.data());
      else
        execv(args[0], args.data());
      _exit(127);
    }
    close(out[1]);
    close(err[1]);
    out_fd_ = out[0];
    err_fd_ = err[0];
  }
  ~ChildProcess() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_fd_ >= 0) close(out_fd_);
    if (err_fd_ >= 0) close(err_fd_);
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& out() const { return run_.out; }
  const std::string& err() const { return run_.err; }

  // Collects output for up to `budget` (less when both streams close); the child keeps
  // running. Lets a test watch progress lines of a long run.
  void pump(std::chrono::milliseconds budget) {
    auto deadline = std::chrono::steady_clock::now() + budget;
    while (out_fd_ >= 0 || err_fd_ >= 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0) return;
      pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
      poll(fds, 2, static_cast<int>(std::min<long long>(left, 200)));
      drain(out_fd_, fds[0].revents, run_.out);
      drain(err_fd_, fds[1].revents, run_.err);
    }
  }

  // Pumps until `text` appears in stderr or stdout, the child exits, or `timeout` passes.
  bool wait_for_output(const std::string& text, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (run_.err.find(text) != std::string::npos || run_.out.find(text) != std::string::npos)
        return true;
      if (out_fd_ < 0 && err_fd_ < 0) return false;  // exited
      pump(std::chrono::milliseconds(200));
    }
    return false;
  }

  // Reads output until the child exits or `timeout` passes (then SIGKILL).
  CliRun wait(std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (out_fd_ >= 0 || err_fd_ >= 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        run_.timed_out = true;
        kill(pid_, SIGKILL);
        break;
      }
      pump(std::chrono::milliseconds(500));
    }
    int status = 0;
    waitpid(pid_, &status, 0);
    reaped_ = true;
    if (WIFEXITED(status)) run_.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) run_.term_signal = WTERMSIG(status);
    return run_;
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
  CliRun run_;
};

inline CliRun run_process(std::vector<std::string> argv,
                          std::chrono::milliseconds timeout = std::chrono::minutes(5)) {
  ChildProcess child(std::move(argv));
  return child.wait(timeout);
}

#ifdef TOPOLAB_CLI
// The built `topolab` with `args`.
class CliChild : public ChildProcess {
 public:
  explicit CliChild(const std::vector<std::string>& args) : ChildProcess(with_cli(args)) {}

 private:
  static std::vector<std::string> with_cli(const std::vector<std::string>& args) {
    std::vector<std::string> argv{TOPOLAB_CLI};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
};

inline CliRun run_cli(const std::vector<std::string>& args,
                      std::chrono::milliseconds timeout = std::chrono::minutes(5)) {
  CliChild child(args);
  return child.wait(timeout);
}
#endif

// Names of all domains (on qemu:///system) whose name starts with "topolab-" and contains
// `marker` (the test's run id or layout name).
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
