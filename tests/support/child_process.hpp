#pragma once
// Test support shared by every test folder: run a program (the built `topolab` CLI, the agent,
// virsh) as a child with fork/exec (argv only, never a shell), collect its output while it
// runs, bound it with a timeout; and list the topolab- domains a test left in libvirt.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
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

// How a child starts, beyond its argv.
struct ChildOptions {
  bool search_path = false;      // look argv[0] up in PATH
  std::filesystem::path cwd;     // empty: the test's working directory
  bool null_stdin = false;       // stdin from /dev/null instead of the test's
  bool capture_output = true;    // false: the child writes to the test's stdout/stderr (for
                                 // long-running servers whose output nobody pumps)
  rlim_t address_space = 0;      // RLIMIT_AS for the child (and what it starts); 0: inherited
  std::vector<std::string> env;  // NAME=VALUE entries added to (or replacing) the environment
};

class ChildProcess {
 public:
  // argv[0] is the program's path (no PATH search unless `search_path`).
  explicit ChildProcess(std::vector<std::string> argv, bool search_path = false)
      : ChildProcess(std::move(argv), path_search(search_path)) {}

  ChildProcess(std::vector<std::string> argv, const ChildOptions& options) {
    int out[2] = {-1, -1}, err[2] = {-1, -1};
    if (argv.empty()) return;
    if (options.capture_output && (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0))
      return;
    std::vector<char*> args;  // built before fork: the child only calls async-signal-safe code
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    std::vector<std::string> env_strings = merged_environment(options.env);
    std::vector<char*> envp;
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      if (options.capture_output) {
        dup2(out[1], 1);
        dup2(err[1], 2);
      }
      if (options.null_stdin) {
        int in = open("/dev/null", O_RDONLY);
        if (in < 0 || dup2(in, 0) < 0) _exit(126);
      }
      if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(126);
      if (options.address_space != 0) {
        struct rlimit limit = {options.address_space, options.address_space};
        if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(126);
      }
      if (options.search_path)
        execvpe(args[0], args.data(), envp.data());
      else
        execve(args[0], args.data(), envp.data());
      _exit(127);
    }
    if (!options.capture_output) return;
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
    if (pid_ <= 0) return run_;  // never started: exit_code -1
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (out_fd_ >= 0 || err_fd_ >= 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        run_.timed_out = true;
        kill(pid_, SIGKILL);
        break;
      }
      pump(std::chrono::milliseconds(500));
    }
    // Output not captured, or closed while the child runs on: the deadline still holds.
    if (!run_.timed_out && !reap_by(deadline)) {
      run_.timed_out = true;
      kill(pid_, SIGKILL);
    }
    if (!reaped_) {
      int status = 0;
      waitpid(pid_, &status, 0);
      record_exit(status);
    }
    return run_;
  }

  // Waits up to `timeout` for the child to exit, collecting its output; a child still running
  // then is left alone (nullopt).
  std::optional<CliRun> try_wait(std::chrono::milliseconds timeout) {
    if (pid_ <= 0) return run_;  // never started: exit_code -1
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!reaped_) {
      if (out_fd_ >= 0 || err_fd_ >= 0) pump(std::chrono::milliseconds(20));
      if (reap_by(std::chrono::steady_clock::now())) break;
      if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
      if (out_fd_ < 0 && err_fd_ < 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // The exited child's last output is already in the pipes.
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pump(std::max(left, std::chrono::milliseconds(100)));
    return run_;
  }

 private:
  // The test's environment with `extra` entries added; an entry replaces one of the same name.
  static std::vector<std::string> merged_environment(const std::vector<std::string>& extra) {
    std::vector<std::string> out;
    auto name_of = [](const std::string& e) { return e.substr(0, e.find('=')); };
    for (char** e = environ; e && *e; ++e) {
      std::string entry(*e);
      bool replaced = std::any_of(extra.begin(), extra.end(), [&](const std::string& x) {
        return name_of(x) == name_of(entry);
      });
      if (!replaced) out.push_back(std::move(entry));
    }
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
  }
  static ChildOptions path_search(bool search_path) {
    ChildOptions options;
    options.search_path = search_path;
    return options;
  }
  // Reaps the child if it exits by `deadline` (polls; output is not read meanwhile).
  bool reap_by(std::chrono::steady_clock::time_point deadline) {
    while (!reaped_) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        record_exit(status);
        break;
      }
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
  }
  void record_exit(int status) {
    reaped_ = true;
    if (WIFEXITED(status)) run_.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) run_.term_signal = WTERMSIG(status);
  }
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

inline CliRun run_process(std::vector<std::string> argv, const ChildOptions& options,
                          std::chrono::milliseconds timeout = std::chrono::minutes(5)) {
  ChildProcess child(std::move(argv), options);
  return child.wait(timeout);
}

#ifdef TOPOLAB_CLI
// The built `topolab` with `args`.
class CliChild : public ChildProcess {
 public:
  explicit CliChild(const std::vector<std::string>& args) : ChildProcess(with_cli(args)) {}
  CliChild(const std::vector<std::string>& args, const ChildOptions& options)
      : ChildProcess(with_cli(args), options) {}

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

inline CliRun run_cli(const std::vector<std::string>& args, const ChildOptions& options,
                      std::chrono::milliseconds timeout = std::chrono::minutes(5)) {
  CliChild child(args, options);
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
