#pragma once
// The one way topolab runs another program (qemu-img, xz, xorriso, the host agent, poweroff,
// and the tests' children): argv only, never a shell; an explicit environment; stdin from
// /dev/null unless given; stdout/stderr captured with a bound each (the rest is read and
// dropped, so the child never blocks on a full pipe), or sent to /dev/null, a given fd or ours;
// a wall-clock timeout that stops the child's whole process group (SIGTERM, a grace, SIGKILL).
// The child runs in its own process group (unless new_group is off), sees no descriptor of ours
// but 0-2, and is always reaped. No global state: threads may each run their own processes.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace topolab {

// Where one of the child's output streams goes.
struct Sink {
  enum class Kind { capture, null, inherit, fd, merge };
  Kind kind = Kind::capture;
  int fd = -1;  // Kind::fd: dup'ed onto the stream (the caller keeps owning it)

  static Sink capture() { return {Kind::capture, -1}; }
  static Sink null() { return {Kind::null, -1}; }
  static Sink inherit() { return {Kind::inherit, -1}; }
  static Sink to_fd(int fd) { return {Kind::fd, fd}; }
  // stderr only: into the same captured pipe as stdout (one interleaved text).
  static Sink merge() { return {Kind::merge, -1}; }
};

struct ProcessSpec {
  ProcessSpec() = default;
  explicit ProcessSpec(std::vector<std::string> args) : argv(std::move(args)) {}

  // A tool named by argv[0] and found in PATH (qemu-img, xz), bounded by `timeout`.
  static ProcessSpec in_path(std::vector<std::string> args, std::chrono::milliseconds timeout) {
    ProcessSpec spec(std::move(args));
    spec.search_path = true;
    spec.timeout = timeout;
    return spec;
  }

  std::vector<std::string> argv;  // argv[0]: a path, or a name looked up in PATH (search_path)
  bool search_path = false;       // PATH of `env` when given, else ours; resolved before fork
  // The child's whole environment (NAME=VALUE); nullopt: a copy of ours taken at spawn.
  std::optional<std::vector<std::string>> env;
  std::filesystem::path cwd;  // empty: ours
  int stdin_fd = -1;          // -1: /dev/null; else dup'ed onto 0 (the caller keeps owning it)
  Sink out = Sink::capture();
  Sink err = Sink::capture();
  std::size_t max_output = 1u << 20;  // per captured stream; more is read and dropped
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};  // run_process only
  std::chrono::milliseconds kill_grace{1000};  // SIGTERM to SIGKILL when stopping the group
  // true: the child leads a new process group, which a timeout or stop signals as a whole and
  // which is killed when the child ends. false: the child stays in ours and only it is
  // signalled (for programs that leave daemons on purpose, e.g. wine's wineserver).
  bool new_group = true;
  bool die_with_parent = false;   // PR_SET_PDEATHSIG SIGKILL (fires when the spawning THREAD ends)
  std::size_t address_space = 0;  // RLIMIT_AS in bytes; 0: inherited
};

// How a child ended.
struct ExitStatus {
  int code = -1;   // exit code, or -1 when killed by a signal
  int signal = 0;  // the signal that killed it, or 0
  bool success() const { return signal == 0 && code == 0; }
  // The shell's convention: the exit code, or 128 + the signal.
  int shell_status() const { return signal ? 128 + signal : code; }
  std::string describe() const;  // "exited with status 3" / "was killed by signal 9 (Killed)"
};

struct ProcessResult {
  ExitStatus status;
  std::string out, err;  // captured streams, at most max_output bytes each
  bool out_truncated = false, err_truncated = false;
  bool timed_out = false;  // Process::wait only: the deadline passed and the group was stopped
};

// A started child. Move-only; destroying a running one stops its group and reaps it.
class Process {
 public:
  // Errors: not-found (no such program), io (pipe/fork/exec failed), internal (empty argv).
  static Result<Process> spawn(const ProcessSpec& spec);

  Process(Process&&) noexcept;
  Process& operator=(Process&&) noexcept;
  ~Process();

  pid_t pid() const;
  // Output captured so far.
  const ProcessResult& result() const;
  // True while a captured stream is still open.
  bool reading() const;

  // Reads output for up to `budget`, less when the captured streams close; the child runs on.
  void pump(std::chrono::milliseconds budget);
  // Reads output until the child ends or `timeout` passes; nullopt: still running (left alone).
  std::optional<ExitStatus> wait_for(std::chrono::milliseconds timeout);
  // Reads output until the child ends; at `timeout` stops its group (timed_out set). Always
  // ends with the child reaped and what it left in its group killed.
  const ProcessResult& wait(std::chrono::milliseconds timeout);
  // Stops the group now (SIGTERM, up to `grace`, SIGKILL) and reaps the child.
  const ProcessResult& stop(std::chrono::milliseconds grace);

 private:
  struct State;
  explicit Process(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

// Runs to the end: the child's status and output, whatever its exit code. An error when it
// cannot start or outlives spec.timeout (io: "... did not finish within N ms; killed").
Result<ProcessResult> run_process(const ProcessSpec& spec);

// Runs to the end and returns its stdout; an error (io) when it fails to start, times out, ends
// other than with exit 0 (the message says how, and the first line of its stderr), or prints
// more than spec.max_output.
Result<std::string> run_for_output(const ProcessSpec& spec);

// Our environment with `extra` NAME=VALUE entries added; an entry replaces one of its name.
std::vector<std::string> environment_with(const std::vector<std::string>& extra);

// The first line of stderr, else of stdout, at most 300 bytes: what a failed tool said.
std::string first_line(const ProcessResult& r);
// "argv[0] " + describe() + ": " + first_line(r), for error messages.
std::string failure_text(const ProcessSpec& spec, const ProcessResult& r);

}  // namespace topolab
