#include "common/process_child.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace topolab::spawn_child {

namespace {

constexpr int kMaxFdFallback = 65536;  // close_range missing (kernel < 5.11): fds marked by hand
constexpr unsigned kCloseRangeCloexec = 1u << 2;  // CLOSE_RANGE_CLOEXEC (linux/close_range.h)

[[noreturn]] void child_fail(int report) {
  int e = errno;
  ssize_t ignored = ::write(report, &e, sizeof e);
  (void)ignored;
  _exit(127);
}

}  // namespace

[[noreturn]] void run_child(const ChildPlan& p) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);  // ignored ones too
  if (p.new_group) ::setpgid(0, 0);
  if (p.die_with_parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != p.parent) _exit(127);  // the parent died before prctl
  }
  // Lift the sources above 2 first, so that one dup2 cannot clobber another's source.
  int src[3] = {p.in, p.out, p.err};
  for (int& s : src)
    if (s >= 0 && (s = ::fcntl(s, F_DUPFD_CLOEXEC, 3)) < 0) child_fail(p.report);
  for (int target = 0; target < 3; ++target)
    if (src[target] >= 0 && ::dup2(src[target], target) < 0) child_fail(p.report);
  if (p.cwd && ::chdir(p.cwd) != 0) child_fail(p.report);
  if (p.limit_address_space && ::setrlimit(RLIMIT_AS, &p.address_space) != 0) child_fail(p.report);
  // No descriptor of ours but 0-2 reaches the program.
  if (::syscall(SYS_close_range, 3u, ~0u, kCloseRangeCloexec) != 0)
    for (int fd = 3; fd < kMaxFdFallback; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(p.program, p.argv, p.envp);
  child_fail(p.report);
}

Result<Pipe> make_pipe() {
  int fd[2];
  if (::pipe2(fd, O_CLOEXEC) != 0)
    return make_error(ErrorKind::io, std::string("pipe: ") + std::strerror(errno));
  return Pipe{OwnedFd(fd[0]), OwnedFd(fd[1])};
}

}  // namespace topolab::spawn_child
