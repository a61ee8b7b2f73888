#pragma once
// Test support shared by every test folder: run a program (the built `topolab` CLI, the agent,
// virsh) as a child through common/process.hpp (argv only, never a shell), collect its output
// while it runs, bound it with a timeout; and list the topolab- domains a test left in libvirt.
#include <fcntl.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/owned_fd.hpp"
#include "common/process.hpp"
#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

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
  bool search_path = false;           // look argv[0] up in PATH
  std::filesystem::path cwd;          // empty: the test's working directory
  bool null_stdin = false;            // stdin from /dev/null instead of the test's
  std::filesystem::path stdin_file;   // stdin read from this file (as libvirt feeds its hooks)
  bool capture_output = true;         // false: the child writes to the test's stdout/stderr (for
                                      // long-running servers whose output nobody pumps)
  std::filesystem::path output_file;  // with capture_output false: stdout and stderr appended
                                      // here instead (a child that can outlive its killed parent
                                      // must not hold ctest's pipes open)
  std::size_t address_space = 0;      // RLIMIT_AS for the child (and what it starts); 0: inherited
  std::vector<std::string> env;       // NAME=VALUE entries added to (or replacing) the environment
};

// A thin test-side face of the one runner (common/process.hpp): streams are captured (bounded
// at 256 MiB each), a deadline kills the child at once (no grace).
class ChildProcess {
 public:
  // argv[0] is the program's path (no PATH search unless `search_path`).
  explicit ChildProcess(std::vector<std::string> argv, bool search_path = false)
      : ChildProcess(std::move(argv), path_search(search_path)) {}

  ChildProcess(std::vector<std::string> argv, const ChildOptions& options) {
    ProcessSpec spec(std::move(argv));
    spec.search_path = options.search_path;
    spec.cwd = options.cwd;
    spec.stdin_fd = options.null_stdin ? -1 : 0;
    if (!options.stdin_file.empty()) {
      input_.reset(::open(options.stdin_file.c_str(), O_RDONLY | O_CLOEXEC));
      if (input_) spec.stdin_fd = input_.get();
    }
    spec.out = spec.err = options.capture_output ? Sink::capture() : Sink::inherit();
    if (!options.capture_output && !options.output_file.empty()) {
      log_.reset(
          ::open(options.output_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
      if (log_) spec.out = spec.err = Sink::to_fd(log_.get());
    }
    spec.max_output = std::size_t{256} << 20;
    spec.kill_grace = std::chrono::milliseconds(0);
    // In our group, only the child signalled, as before the one runner: wine's wineserver must
    // outlive `wine` until the suite's `wineserver -k`.
    spec.new_group = false;
    spec.address_space = options.address_space;
    if (!options.env.empty()) spec.env = environment_with(options.env);
    auto child = Process::spawn(spec);
    if (child) child_.emplace(std::move(*child));
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return child_ ? child_->pid() : -1; }
  const std::string& out() const { return child_ ? child_->result().out : none_.out; }
  const std::string& err() const { return child_ ? child_->result().err : none_.err; }

  // Collects output for up to `budget` (less when both streams close); the child keeps
  // running. Lets a test watch progress lines of a long run.
  void pump(std::chrono::milliseconds budget) {
    if (child_) child_->pump(budget);
  }

  // Pumps until `text` appears in stderr or stdout, the child exits, or `timeout` passes.
  bool wait_for_output(const std::string& text, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (err().find(text) != std::string::npos || out().find(text) != std::string::npos)
        return true;
      if (!child_ || !child_->reading()) return false;  // exited
      pump(std::chrono::milliseconds(200));
    }
    return false;
  }

  // Reads output until the child exits or `timeout` passes (then SIGKILL).
  CliRun wait(std::chrono::milliseconds timeout) {
    if (!child_) return none_;  // never started: exit_code -1
    return to_run(child_->wait(timeout));
  }

  // Waits up to `timeout` for the child to exit, collecting its output; a child still running
  // then is left alone (nullopt).
  std::optional<CliRun> try_wait(std::chrono::milliseconds timeout) {
    if (!child_) return none_;
    if (!child_->wait_for(timeout)) return std::nullopt;
    return to_run(child_->result());
  }

 private:
  static ChildOptions path_search(bool search_path) {
    ChildOptions options;
    options.search_path = search_path;
    return options;
  }
  static CliRun to_run(const ProcessResult& r) {
    CliRun run;
    run.exit_code = r.status.code;
    run.term_signal = r.status.signal;
    run.out = r.out;
    run.err = r.err;
    run.timed_out = r.timed_out;
    return run;
  }
  OwnedFd log_, input_;
  std::optional<Process> child_;
  CliRun none_;
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
