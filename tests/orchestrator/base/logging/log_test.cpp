// The log module: levels on stderr, the run folder's topolab.log (debug detail, 0600, never
// through a planted link, nested logs), guest text escaped in both.
#include "orchestrator/base/logging/log.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/temp_dir.hpp"

namespace topolab::logging {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Sends this process's stderr to a file while it lives.
class StderrCapture {
 public:
  explicit StderrCapture(fs::path file) : file_(std::move(file)) {
    saved_ = ::dup(2);
    int fd = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ::dup2(fd, 2);
    ::close(fd);
  }
  ~StderrCapture() { restore(); }
  std::string text() {
    restore();
    return slurp(file_);
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    ::dup2(saved_, 2);
    ::close(saved_);
    saved_ = -1;
  }
  fs::path file_;
  int saved_ = -1;
};

class LogTest : public ::testing::Test {
 protected:
  void TearDown() override { set_console_level(Level::info); }
  testing::TempDir dir_;
};

TEST(ParseLevel, NamesAndRefusals) {
  EXPECT_EQ(parse_level("debug"), Level::debug);
  EXPECT_EQ(parse_level("warning"), Level::warn);
  EXPECT_EQ(parse_level("off"), Level::off);
  EXPECT_FALSE(parse_level("loud"));
  EXPECT_FALSE(parse_level(""));
}

TEST_F(LogTest, StderrShowsTheChosenLevelAndAbove) {
  StderrCapture cap(dir_.path() / "err");
  set_console_level(Level::info);
  info("plain {}", 1);
  warn("careful");
  debug("hidden at info");
  set_console_level(Level::debug);
  debug("shown at debug");
  set_console_level(Level::warn);
  info("hidden at warn");
  EXPECT_EQ(cap.text(),
            "topolab: plain 1\ntopolab: warning: careful\ntopolab: debug: shown at debug\n");
}

TEST_F(LogTest, RunLogGetsDebugLinesWhileOpenAndIs0600) {
  StderrCapture cap(dir_.path() / "err");
  {
    auto log = RunLog::open(dir_.path());
    ASSERT_TRUE(log.ok()) << log.error().message;
    EXPECT_TRUE(enabled(Level::debug));  // for the file, though stderr shows info only
    debug("libvirt virDomainCreate(x): {} ms", 12);
    info("boot ready");
  }
  debug("after close");
  EXPECT_FALSE(enabled(Level::debug));
  const std::string file = slurp(dir_.path() / RunLog::kFileName);
  // "2026-11-30T16:34:04.232Z debug [TID] MESSAGE": UTC time, level, thread.
  EXPECT_NE(file.find("Z debug ["), std::string::npos) << file;
  EXPECT_NE(file.find("] libvirt virDomainCreate(x): 12 ms\n"), std::string::npos) << file;
  EXPECT_NE(file.find("Z info  ["), std::string::npos) << file;
  EXPECT_NE(file.find("] boot ready\n"), std::string::npos) << file;
  EXPECT_EQ(file.find("after close"), std::string::npos) << file;
  EXPECT_EQ(cap.text(), "topolab: boot ready\n");  // no debug line on stderr
  struct stat st {};
  ASSERT_EQ(::stat((dir_.path() / RunLog::kFileName).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(LogTest, NestedRunLogsTheNewestReceivesThenTheOuterAgain) {
  fs::create_directory(dir_.path() / "outer");
  fs::create_directory(dir_.path() / "inner");
  auto outer = RunLog::open(dir_.path() / "outer");
  ASSERT_TRUE(outer.ok());
  debug("first");
  {
    auto inner = RunLog::open(dir_.path() / "inner");
    ASSERT_TRUE(inner.ok());
    debug("second");
  }
  debug("third");
  const std::string o = slurp(dir_.path() / "outer" / RunLog::kFileName);
  const std::string i = slurp(dir_.path() / "inner" / RunLog::kFileName);
  EXPECT_NE(o.find("first"), std::string::npos);
  EXPECT_EQ(o.find("second"), std::string::npos);
  EXPECT_NE(o.find("third"), std::string::npos);
  EXPECT_NE(i.find("second"), std::string::npos);
  EXPECT_EQ(i.find("third"), std::string::npos);
}

// Two hosts' workers boot at once, each into its own run folder (issue 16): each topolab.log
// holds its own thread's lines only; a thread with no log of its own (a stream bridge) writes
// to the newest.
TEST_F(LogTest, EachThreadsLinesGoToTheLogItOpened) {
  fs::create_directory(dir_.path() / "a");
  fs::create_directory(dir_.path() / "b");
  std::mutex mu;
  std::condition_variable cv;
  int opened = 0;
  auto worker = [&](const char* folder, const char* line) {
    auto log = RunLog::open(dir_.path() / folder);
    ASSERT_TRUE(log.ok());
    std::unique_lock lock(mu);
    ++opened;
    cv.notify_all();
    cv.wait(lock, [&] { return opened >= 2; });  // both open: "the newest" is one of them
    lock.unlock();
    debug("{}", line);
    lock.lock();
    ++opened;
    cv.notify_all();
    cv.wait(lock, [&] { return opened == 5; });  // the bystander has written
  };
  std::thread a(worker, "a", "line of host a");
  std::thread b(worker, "b", "line of host b");
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return opened == 4; });
  }
  std::thread([] { debug("bystander"); }).join();
  {
    std::lock_guard lock(mu);
    ++opened;
  }
  cv.notify_all();
  a.join();
  b.join();
  const std::string la = slurp(dir_.path() / "a" / RunLog::kFileName);
  const std::string lb = slurp(dir_.path() / "b" / RunLog::kFileName);
  EXPECT_NE(la.find("line of host a"), std::string::npos) << la;
  EXPECT_EQ(la.find("line of host b"), std::string::npos) << la;
  EXPECT_NE(lb.find("line of host b"), std::string::npos) << lb;
  EXPECT_EQ(lb.find("line of host a"), std::string::npos) << lb;
  EXPECT_NE((la + lb).find("bystander"), std::string::npos) << "the bystander's line";
}

TEST_F(LogTest, APlantedSymlinkIsRefusedNotFollowed) {
  const fs::path victim = dir_.path() / "victim";
  std::ofstream(victim) << "keep\n";
  fs::create_symlink(victim, dir_.path() / RunLog::kFileName);
  auto log = RunLog::open(dir_.path());
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.error().message.find("run log"), std::string::npos) << log.error().message;
  debug("must not reach the victim");
  EXPECT_EQ(slurp(victim), "keep\n");
}

// The run folder itself (redteam wave 2): a symlink to another folder, a folder of another
// user or one others can write is refused before topolab.log is created in it.
TEST_F(LogTest, ARunFolderNotOfOurOwnIsRefused) {
  const fs::path victim = dir_.path() / "victim";
  fs::create_directory(victim);
  fs::create_symlink(victim, dir_.path() / "link");
  fs::create_directory(dir_.path() / "foreign");
  ASSERT_EQ(::chown((dir_.path() / "foreign").c_str(), 65534, 65534), 0);
  fs::create_directory(dir_.path() / "open");
  ::chmod((dir_.path() / "open").c_str(), 0777);
  for (const auto& [name, why] :
       std::vector<std::pair<std::string, std::string>>{{"link", "a symbolic link"},
                                                        {"foreign", "owned by uid 65534"},
                                                        {"open", "writable by other users"}}) {
    auto log = RunLog::open(dir_.path() / name);
    ASSERT_FALSE(log.ok()) << name;
    EXPECT_NE(log.error().message.find(why), std::string::npos) << log.error().message;
    EXPECT_NE(log.error().message.find("run log"), std::string::npos) << log.error().message;
  }
  EXPECT_TRUE(fs::is_empty(victim));
  EXPECT_TRUE(fs::is_empty(dir_.path() / "foreign"));
}

TEST_F(LogTest, GuestTextIsEscapedInTheFileAndOnStderr) {
  StderrCapture cap(dir_.path() / "err");
  auto log = RunLog::open(dir_.path());
  ASSERT_TRUE(log.ok());
  info("agent said {}", "\x1b]0;owned\x07");
  const std::string err = cap.text();
  EXPECT_EQ(err.find('\x1b'), std::string::npos) << err;
  EXPECT_NE(err.find("\\x1b"), std::string::npos) << err;
  const std::string file = slurp(dir_.path() / RunLog::kFileName);
  EXPECT_EQ(file.find('\x1b'), std::string::npos) << file;
}

}  // namespace
}  // namespace topolab::logging
