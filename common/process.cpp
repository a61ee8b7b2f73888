#include "common/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/owned_fd.hpp"
#include "common/process_child.hpp"

extern char** environ;

namespace topolab {
namespace {

using Clock = std::chrono::steady_clock;
using spawn_child::ChildPlan;
using spawn_child::make_pipe;
using spawn_child::Pipe;
using std::chrono::milliseconds;

constexpr std::size_t kReadChunk = 65536;

Error sys_error(const std::string& what, int err) {
  return make_error(ErrorKind::io, what + ": " + std::strerror(err));
}

std::string path_of(const std::optional<std::vector<std::string>>& env) {
  if (env) {
    for (const auto& e : *env)
      if (e.rfind("PATH=", 0) == 0) return e.substr(5);
    return "";
  }
  const char* p = std::getenv("PATH");
  return p ? p : "/usr/local/bin:/usr/bin:/bin";
}

// PATH lookup in the parent: the child then only calls execve (async-signal-safe).
Result<std::string> resolve_program(const ProcessSpec& spec) {
  const std::string& name = spec.argv[0];
  if (!spec.search_path || name.find('/') != std::string::npos) return name;
  const std::string path = path_of(spec.env);
  std::size_t at = 0;
  while (at <= path.size()) {
    std::size_t end = std::min(path.find(':', at), path.size());
    std::string dir = path.substr(at, end - at);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    at = end + 1;
  }
  return make_error(ErrorKind::not_found,
                    "program '" + name + "' not found in PATH (" + path.substr(0, 200) + ")");
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string ExitStatus::describe() const {
  if (signal == 0) return "exited with status " + std::to_string(code);
  const char* abbrev = ::sigabbrev_np(signal);
  return "was killed by signal " + std::to_string(signal) +
         (abbrev ? " (SIG" + std::string(abbrev) + ")" : "");
}

struct Process::State {
  pid_t pid = -1;
  OwnedFd out, err, pidfd;
  bool exited = false;  // seen ended (waitid WNOWAIT), not yet reaped: its pid stays ours
  bool reaped = false;
  bool own_group = true;  // the child leads its process group: signal the group
  std::size_t max_output = 0;
  milliseconds kill_grace{0};
  ProcessResult r;

  // One read from `fd`: appended within the bound, dropped beyond it; EOF closes it. False
  // when nothing was read (nothing ready, or the end).
  bool read_once(OwnedFd& fd, std::string& into, bool& truncated) {
    char buf[kReadChunk];
    ssize_t n;
    do n = ::read(fd.get(), buf, sizeof buf);
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EAGAIN) return false;
    if (n <= 0) {
      fd.reset();
      return false;
    }
    std::size_t room = max_output - std::min(max_output, into.size());
    std::size_t take = std::min(room, static_cast<std::size_t>(n));
    into.append(buf, take);
    if (take < static_cast<std::size_t>(n)) truncated = true;
    return true;
  }
  // Polls the streams (and the pidfd) for up to `wait`; reads what is ready.
  void poll_once(milliseconds wait) {
    pollfd fds[3] = {{out.get(), POLLIN, 0}, {err.get(), POLLIN, 0}, {pidfd.get(), POLLIN, 0}};
    int rc = ::poll(fds, 3, static_cast<int>(std::max<long long>(wait.count(), 0)));
    if (rc <= 0) return;
    if (out && fds[0].revents) read_once(out, r.out, r.out_truncated);
    if (err && fds[1].revents) read_once(err, r.err, r.err_truncated);
  }
  bool check_exited() {
    if (exited || reaped) return true;
    siginfo_t info{};
    int rc = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    // ECHILD: someone else reaped it; nothing is left to wait for.
    exited = (rc == 0 && info.si_pid == pid) || (rc < 0 && errno == ECHILD);
    return exited;
  }
  void kill_group(int sig) {
    if (own_group) ::kill(-pid, sig);
    ::kill(pid, sig);  // in case setpgid lost a race with exec
  }
  // The child has ended (or is to die now): kill it and what it left in its group (its pid,
  // still unreaped, cannot have been reused), read the rest of its output, reap it.
  void finish() {
    kill_group(SIGKILL);
    for (OwnedFd* fd : {&out, &err}) {
      std::string& into = fd == &out ? r.out : r.err;
      bool& trunc = fd == &out ? r.out_truncated : r.err_truncated;
      // Bounded: a writer that escaped the group could write on forever.
      for (int i = 0; *fd && i < 4096 && read_once(*fd, into, trunc); ++i) {
      }
      fd->reset();
    }
    int status = 0;
    pid_t rc;
    do rc = ::waitpid(pid, &status, 0);
    while (rc < 0 && errno == EINTR);
    reaped = true;
    pidfd.reset();
    if (rc == pid && WIFSIGNALED(status)) {
      r.status = {-1, WTERMSIG(status)};
    } else if (rc == pid) {
      r.status = {WEXITSTATUS(status), 0};
    }
  }
};

Process::Process(std::unique_ptr<State> state) : s_(std::move(state)) {}
Process::Process(Process&&) noexcept = default;
Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    if (s_ && !s_->reaped) stop(milliseconds(0));
    s_ = std::move(other.s_);
  }
  return *this;
}
Process::~Process() {
  if (s_ && !s_->reaped) stop(milliseconds(0));
}

pid_t Process::pid() const { return s_->pid; }
const ProcessResult& Process::result() const { return s_->r; }
bool Process::reading() const { return s_->out || s_->err; }

void Process::pump(milliseconds budget) {
  const auto deadline = Clock::now() + budget;
  while (s_->out || s_->err) {
    auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return;
    pollfd fds[2] = {{s_->out.get(), POLLIN, 0}, {s_->err.get(), POLLIN, 0}};
    if (::poll(fds, 2, static_cast<int>(left.count())) <= 0) continue;
    if (s_->out && fds[0].revents) s_->read_once(s_->out, s_->r.out, s_->r.out_truncated);
    if (s_->err && fds[1].revents) s_->read_once(s_->err, s_->r.err, s_->r.err_truncated);
  }
}

std::optional<ExitStatus> Process::wait_for(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (s_->reaped) return s_->r.status;
    if (s_->check_exited()) {
      s_->finish();
      return s_->r.status;
    }
    auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return std::nullopt;
    // Without a pidfd (kernel < 5.3) the end is noticed by a short tick.
    s_->poll_once(s_->pidfd ? left : std::min(left, milliseconds(10)));
  }
}

const ProcessResult& Process::wait(milliseconds timeout) {
  if (!wait_for(timeout)) {
    s_->r.timed_out = true;
    stop(s_->kill_grace);
  }
  return s_->r;
}

const ProcessResult& Process::stop(milliseconds grace) {
  if (s_->reaped) return s_->r;
  s_->kill_group(SIGTERM);
  if (grace.count() > 0 && wait_for(grace)) return s_->r;
  s_->finish();  // SIGKILL to the group, then reap
  return s_->r;
}

namespace {

// The child's standard streams: pipes for what we capture, /dev/null for what is dropped.
struct Stdio {
  OwnedFd devnull;
  Pipe out, err;

  // The fd the child gets for `sink`; -1 keeps ours (inherit).
  int target(const Sink& sink, const Pipe& own) const {
    switch (sink.kind) {
      case Sink::Kind::capture:
        return own.write.get();
      case Sink::Kind::merge:
        return out.write.get();
      case Sink::Kind::null:
        return devnull.get();
      case Sink::Kind::fd:
        return sink.fd;
      case Sink::Kind::inherit:
        break;
    }
    return -1;
  }
  // Our copies of the child's ends: closed once it has its own, so EOF means it is done.
  void close_child_ends() {
    out.write.reset();
    err.write.reset();
    devnull.reset();
  }
};

Result<Stdio> open_stdio(const ProcessSpec& spec) {
  Stdio io;
  io.devnull = OwnedFd(::open("/dev/null", O_RDWR | O_CLOEXEC));
  if (!io.devnull) return sys_error("open /dev/null", errno);
  if (spec.out.kind == Sink::Kind::capture || spec.err.kind == Sink::Kind::merge) {
    TL_ASSIGN(io.out, make_pipe());
  }
  if (spec.err.kind == Sink::Kind::capture) {
    TL_ASSIGN(io.err, make_pipe());
  }
  return io;
}

// The strings the plan points into (argv, envp, cwd) must outlive the fork.
struct ChildStrings {
  std::vector<std::string> args, env;
  std::vector<char*> argv, envp;
  std::string cwd;
};

ChildPlan child_plan(const ProcessSpec& spec, const std::string& program, ChildStrings& text,
                     const Stdio& io, int report) {
  ChildPlan plan;
  plan.program = program.c_str();
  plan.argv = text.argv.data();
  plan.envp = text.envp.data();
  plan.cwd = text.cwd.empty() ? nullptr : text.cwd.c_str();
  plan.new_group = spec.new_group;
  plan.die_with_parent = spec.die_with_parent;
  plan.parent = ::getpid();
  if (spec.address_space) {
    plan.limit_address_space = true;
    plan.address_space = {spec.address_space, spec.address_space};
  }
  plan.in = spec.stdin_fd >= 0 ? spec.stdin_fd : io.devnull.get();
  plan.out = io.target(spec.out, io.out);
  plan.err = io.target(spec.err, io.err);
  plan.report = report;
  return plan;
}

// Forks with every signal blocked: no signal handler of ours may run in the child before exec.
// The child's pid, or -1 with `fork_errno` set.
pid_t fork_child(const ChildPlan& plan, int& fork_errno) {
  sigset_t all, old;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t pid = ::fork();
  if (pid == 0) spawn_child::run_child(plan);
  fork_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return pid;
}

// The errno of a failed exec, read from the report pipe; nullopt when exec closed it.
std::optional<int> exec_failure(const OwnedFd& report) {
  int exec_errno = 0;
  ssize_t n;
  do n = ::read(report.get(), &exec_errno, sizeof exec_errno);
  while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof exec_errno)) return exec_errno;
  return std::nullopt;
}

}  // namespace

Result<Process> Process::spawn(const ProcessSpec& spec) {
  if (spec.argv.empty()) return make_error(ErrorKind::internal, "run: empty argv");
  TL_ASSIGN(const std::string program, resolve_program(spec));
  ChildStrings text{
      spec.argv, spec.env ? *spec.env : environment_with({}), {}, {}, spec.cwd.string()};
  text.argv = pointers(text.args);
  text.envp = pointers(text.env);
  TL_ASSIGN(Stdio io, open_stdio(spec));
  TL_ASSIGN(Pipe report, make_pipe());
  const ChildPlan plan = child_plan(spec, program, text, io, report.write.get());
  int fork_errno = 0;
  const pid_t pid = fork_child(plan, fork_errno);
  if (pid < 0) return sys_error("fork for " + spec.argv[0], fork_errno);
  if (spec.new_group) ::setpgid(pid, pid);  // also here: no race with the child's own setpgid

  auto state = std::make_unique<State>();
  state->pid = pid;
  state->own_group = spec.new_group;
  state->max_output = spec.max_output;
  state->kill_grace = spec.kill_grace;
  state->out = std::move(io.out.read);
  state->err = std::move(io.err.read);
  Process child(std::move(state));  // from here on every path reaps it
  report.write.reset();
  io.close_child_ends();

  if (auto exec_errno = exec_failure(report.read)) {
    child.wait(milliseconds(5000));
    return make_error(*exec_errno == ENOENT ? ErrorKind::not_found : ErrorKind::io,
                      "cannot run " + program + ": " + std::strerror(*exec_errno));
  }
  for (OwnedFd* fd : {&child.s_->out, &child.s_->err})
    if (*fd) ::fcntl(fd->get(), F_SETFL, ::fcntl(fd->get(), F_GETFL) | O_NONBLOCK);
  child.s_->pidfd.reset(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  return child;
}

Result<ProcessResult> run_process(const ProcessSpec& spec) {
  TL_ASSIGN(Process child, Process::spawn(spec));
  const ProcessResult& r = child.wait(spec.timeout);
  if (r.timed_out) {
    return make_error(ErrorKind::io, spec.argv[0] + " did not finish within " +
                                         std::to_string(spec.timeout.count()) + " ms; killed");
  }
  return r;
}

Result<std::string> run_for_output(const ProcessSpec& spec) {
  TL_ASSIGN(ProcessResult r, run_process(spec));
  if (!r.status.success()) return make_error(ErrorKind::io, failure_text(spec, r));
  if (r.out_truncated) {
    return make_error(ErrorKind::io, spec.argv[0] + ": output larger than " +
                                         std::to_string(spec.max_output) + " bytes");
  }
  return std::move(r.out);
}

std::vector<std::string> environment_with(const std::vector<std::string>& extra) {
  auto name_of = [](const std::string& e) { return e.substr(0, e.find('=')); };
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string entry(*e);
    bool replaced = std::any_of(extra.begin(), extra.end(),
                                [&](const std::string& x) { return name_of(x) == name_of(entry); });
    if (!replaced) out.push_back(std::move(entry));
  }
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

std::string first_line(const ProcessResult& r) {
  const std::string& said = r.err.empty() ? r.out : r.err;
  return said.substr(0, std::min(said.find('\n'), std::size_t{300}));
}

std::string failure_text(const ProcessSpec& spec, const ProcessResult& r) {
  std::string text = (spec.argv.empty() ? "?" : spec.argv[0]) + " " + r.status.describe();
  const std::string line = first_line(r);
  return line.empty() ? text : text + ": " + line;
}

}  // namespace topolab
