#include "orchestrator/guestsource/run_program.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace topolab::guestsource {
namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
  int fd[2] = {-1, -1};
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
};

// Reads the child's output until EOF or the deadline; false on timeout.
bool drain(int fd, Clock::time_point deadline, std::size_t max_output, std::string& out) {
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    if (out.size() < max_output)
      out.append(buf, std::min<std::size_t>(static_cast<std::size_t>(n), max_output - out.size()));
  }
}

}  // namespace

Result<ProgramOutput> run_program(const std::vector<std::string>& argv,
                                  std::chrono::milliseconds timeout, std::size_t max_output) {
  if (argv.empty()) return make_error("run_program: empty argv");
  Pipe p;
  if (pipe2(p.fd, O_CLOEXEC) != 0) return make_error(std::string("pipe: ") + strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, p.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, p.fd[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return make_error("cannot run " + argv[0] + ": " + strerror(rc));
  close(p.fd[1]);
  p.fd[1] = -1;
  ProgramOutput out;
  bool finished = drain(p.fd[0], Clock::now() + timeout, max_output, out.output);
  if (!finished) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished) {
    return make_error(argv[0] + " did not finish within " + std::to_string(timeout.count()) +
                      " ms (killed)");
  }
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

}  // namespace topolab::guestsource
