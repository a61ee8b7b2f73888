// The one process runner (common/process.hpp) against real programs. /bin/sh -c appears here
// only to make children that misbehave (ignore SIGTERM, fork a grandchild, flood, close stdout).
#include "common/process.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "common/owned_fd.hpp"

namespace topolab {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

ProcessSpec sh(const std::string& script) { return ProcessSpec({"/bin/sh", "-c", script}); }

// True once `pid` is gone or a zombie of someone else (reparented; not ours to reap).
bool gone_within(pid_t pid, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    auto close = line.rfind(')');
    if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z')
      return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

bool reaped(pid_t pid) { return ::waitpid(pid, nullptr, WNOHANG) < 0 && errno == ECHILD; }

TEST(Process, ExitCodeAndOutputs) {
  auto r = run_process(sh("echo out; echo err >&2; exit 7"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status.code, 7);
  EXPECT_EQ(r->status.signal, 0);
  EXPECT_FALSE(r->status.success());
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_EQ(r->status.describe(), "exited with status 7");
  auto ok = run_process(ProcessSpec({"/bin/true"}));
  ASSERT_TRUE(ok);
  EXPECT_TRUE(ok->status.success());
}

TEST(Process, ArgvIsNeverAShell) {
  auto r = run_process(ProcessSpec({"/bin/echo", "a;b $(x) `y` | z"}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out, "a;b $(x) `y` | z\n");
}

TEST(Process, SignalDeathIsTyped) {
  auto r = run_process(sh("kill -KILL $$"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status.signal, SIGKILL);
  EXPECT_EQ(r->status.code, -1);
  EXPECT_EQ(r->status.shell_status(), 128 + SIGKILL);
  EXPECT_EQ(r->status.describe(), "was killed by signal 9 (SIGKILL)");
}

TEST(Process, MissingProgramIsNotFound) {
  auto abs = run_process(ProcessSpec({"/nonexistent/tool"}));
  ASSERT_FALSE(abs);
  EXPECT_TRUE(abs.error().is(ErrorKind::not_found)) << abs.error().message;
  EXPECT_NE(abs.error().message.find("/nonexistent/tool"), std::string::npos);
  ProcessSpec searched({"topolab-no-such-program"});
  searched.search_path = true;
  auto s = run_process(searched);
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is(ErrorKind::not_found)) << s.error().message;
  auto not_exec = run_process(ProcessSpec({"/etc/hostname"}));
  ASSERT_FALSE(not_exec);
  EXPECT_TRUE(not_exec.error().is(ErrorKind::io)) << not_exec.error().message;
  auto empty = run_process(ProcessSpec{});
  ASSERT_FALSE(empty);
  EXPECT_TRUE(empty.error().is(ErrorKind::internal));
}

TEST(Process, SearchPathUsesTheGivenEnvironment) {
  ProcessSpec spec({"true"});
  spec.search_path = true;
  spec.env = std::vector<std::string>{"PATH=/nonexistent:/bin"};
  auto r = run_process(spec);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->status.success());
  spec.env = std::vector<std::string>{"PATH=/nonexistent"};
  EXPECT_FALSE(run_process(spec));
}

TEST(Process, OutputIsBoundedAndTheChildIsNotBlocked) {
  ProcessSpec spec = sh("head -c 3000000 /dev/zero; echo tail >&2");
  spec.max_output = 1000;
  auto r = run_process(spec);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->status.success());  // it wrote all 3 MB: we read and dropped the rest
  EXPECT_EQ(r->out.size(), 1000u);
  EXPECT_TRUE(r->out_truncated);
  EXPECT_EQ(r->err, "tail\n");
  EXPECT_FALSE(r->err_truncated);
}

TEST(Process, MergedStderrAndSinks) {
  ProcessSpec merged = sh("echo one; echo two >&2");
  merged.err = Sink::merge();
  auto m = run_process(merged);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->out, "one\ntwo\n");
  EXPECT_EQ(m->err, "");
  ProcessSpec nulled = sh("echo gone; echo gone >&2");
  nulled.out = Sink::null();
  nulled.err = Sink::null();
  auto n = run_process(nulled);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->out + n->err, "");
}

TEST(Process, TimeoutKillsAChildIgnoringSigtermAndItsGrandchild) {
  // The shell and its background grandchild both ignore SIGTERM (ignored dispositions are
  // inherited): only the group SIGKILL after the grace stops them.
  ProcessSpec spec = sh("trap '' TERM; sleep 30 & echo $!; wait; sleep 30");
  spec.kill_grace = 200ms;
  auto child = Process::spawn(spec);
  ASSERT_TRUE(child) << child.error().message;
  const pid_t pid = child->pid();
  auto t0 = Clock::now();
  const ProcessResult& r = child->wait(500ms);
  EXPECT_LT(Clock::now() - t0, 10s);  // 0.7 s expected (timeout + grace); the sleeps take 30 s
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.status.signal, SIGKILL);
  EXPECT_TRUE(reaped(pid));
  const pid_t grandchild = std::stoi(r.out);
  EXPECT_TRUE(gone_within(grandchild, 3s)) << "grandchild " << grandchild << " survived";

  spec.timeout = 300ms;
  auto err = run_process(spec);
  ASSERT_FALSE(err);
  EXPECT_TRUE(err.error().is(ErrorKind::io));
  EXPECT_NE(err.error().message.find("did not finish within 300 ms"), std::string::npos);
}

TEST(Process, AChildThatClosesStdoutEarlyIsWaitedFor) {
  auto t0 = Clock::now();
  auto r = run_process(sh("echo early; exec >&- 2>&-; sleep 0.3; exit 4"));
  ASSERT_TRUE(r);
  EXPECT_GE(Clock::now() - t0, 300ms);
  EXPECT_EQ(r->status.code, 4);
  EXPECT_EQ(r->out, "early\n");
}

TEST(Process, LeftoversInTheGroupAreKilledWhenTheChildEnds) {
  // The shell exits at once; its background sleep holds the pipe open and would stall a reader
  // that waits for EOF.
  auto t0 = Clock::now();
  auto r = run_process(sh("sleep 30 & echo $!"));
  ASSERT_TRUE(r);
  EXPECT_LT(Clock::now() - t0, 5s);
  EXPECT_TRUE(gone_within(std::stoi(r->out), 3s));
}

TEST(Process, WithoutANewGroupOnlyTheChildIsSignalledAndDaemonsLive) {
  // wine's wineserver must outlive `wine`: such callers keep the child in our group.
  ProcessSpec spec = sh("sleep 30 & echo $!");
  spec.new_group = false;
  auto t0 = Clock::now();
  auto r = run_process(spec);
  ASSERT_TRUE(r);
  EXPECT_LT(Clock::now() - t0, 5s);  // the daemon's open stdout does not stall the reader
  const pid_t daemon = std::stoi(r->out);
  EXPECT_FALSE(gone_within(daemon, 300ms)) << "the daemon was killed";
  ::kill(daemon, SIGKILL);
  EXPECT_TRUE(gone_within(daemon, 3s));
}

TEST(Process, EnvironmentIsExactlyTheGivenOne) {
  ProcessSpec spec({"/usr/bin/env"});
  spec.env = std::vector<std::string>{"FOO=bar baz", "X=1"};
  auto r = run_process(spec);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out, "FOO=bar baz\nX=1\n");
  auto merged = environment_with({"HOME=/elsewhere", "TOPOLAB_TEST_ADDED=1"});
  EXPECT_EQ(std::count(merged.begin(), merged.end(), "HOME=/elsewhere"), 1);
  EXPECT_EQ(std::count_if(merged.begin(), merged.end(),
                          [](const std::string& e) { return e.rfind("HOME=", 0) == 0; }),
            1);
  EXPECT_EQ(merged.back(), "TOPOLAB_TEST_ADDED=1");
}

TEST(Process, StdinIsNullUnlessGiven) {
  auto r = run_process(ProcessSpec({"/bin/cat"}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out, "");
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  OwnedFd rd(fds[0]), wr(fds[1]);
  ASSERT_EQ(::write(wr.get(), "hello", 5), 5);
  wr.reset();
  ProcessSpec spec({"/bin/cat"});
  spec.stdin_fd = rd.get();
  auto given = run_process(spec);
  ASSERT_TRUE(given);
  EXPECT_EQ(given->out, "hello");
}

TEST(Process, OurDescriptorsDoNotReachTheChild) {
  OwnedFd leaky(::open("/dev/null", O_RDONLY));  // deliberately without O_CLOEXEC
  ASSERT_TRUE(leaky);
  OwnedFd high(::fcntl(leaky.get(), F_DUPFD, 50));
  auto r =
      run_process(sh("for fd in " + std::to_string(leaky.get()) + " " + std::to_string(high.get()) +
                     "; do [ -e /proc/$$/fd/$fd ] && echo leaked $fd; done; true"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out, "");
}

TEST(Process, WorkingDirectory) {
  ProcessSpec spec({"/bin/pwd"});
  spec.cwd = "/tmp";
  auto r = run_process(spec);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out, "/tmp\n");
}

TEST(Process, DestroyingARunningChildStopsAndReapsIt) {
  pid_t pid = -1;
  {
    auto child = Process::spawn(sh("sleep 30"));
    ASSERT_TRUE(child);
    pid = child->pid();
    EXPECT_FALSE(child->wait_for(50ms));  // still running: left alone
  }
  EXPECT_TRUE(reaped(pid));
  EXPECT_TRUE(gone_within(pid, 1s));
}

TEST(Process, ThreadsRunTheirOwnChildren) {
  std::vector<std::thread> threads;
  std::vector<int> good(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &good] {
      for (int i = 0; i < 8; ++i) {
        const std::string word = std::to_string(t) + "-" + std::to_string(i);
        auto r = run_process(ProcessSpec({"/bin/echo", word}));
        if (r && r->out == word + "\n" && r->status.success()) ++good[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(good, std::vector<int>(4, 8));
}

}  // namespace
}  // namespace topolab
