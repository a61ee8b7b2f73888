#include "common/file_io.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/output_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using std::chrono::steady_clock;

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs `call` against a FIFO. Should it block, a watchdog opens the FIFO's other end after 5 s
// so the test fails on the elapsed time instead of hanging the suite.
template <typename F>
void expect_fifo_refused_quickly(const fs::path& fifo, int watchdog_flags, F call) {
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::atomic<bool> done = false;
  std::thread watchdog([&] {
    auto until = steady_clock::now() + std::chrono::seconds(5);
    while (!done && steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!done) {
      int fd = ::open(fifo.c_str(), watchdog_flags | O_NONBLOCK);
      if (fd >= 0) ::close(fd);
    }
  });
  auto start = steady_clock::now();
  call();
  done = true;
  watchdog.join();
  EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(2)) << "the open blocked";
}

// make_private_dir (redteam wave 2): creates a 0700 folder, tightens our own 0755 one, and
// refuses a planted symlink (its target keeps its mode) or another user's folder.
TEST(MakePrivateDir, CreatesTightensAndRefusesWhatIsNotOurs) {
  testing::TempDir dir;
  const auto fresh = dir.path() / "a" / "b";
  ASSERT_TRUE(make_private_dir(fresh));
  struct stat st {};
  ASSERT_EQ(::stat(fresh.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  const auto own = dir.path() / "own";
  std::filesystem::create_directory(own);
  ::chmod(own.c_str(), 0755);
  ASSERT_TRUE(make_private_dir(own));
  ASSERT_EQ(::stat(own.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);

  const auto target = dir.path() / "target";
  std::filesystem::create_directory(target);
  ::chmod(target.c_str(), 0755);
  std::filesystem::create_directory_symlink(target, dir.path() / "link");
  auto r = make_private_dir(dir.path() / "link");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("symbolic link"), std::string::npos) << r.error().message;
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u) << "the link's target was chmod'ed";

  const auto foreign = dir.path() / "foreign";
  std::filesystem::create_directory(foreign);
  ASSERT_EQ(::chown(foreign.c_str(), 65534, 65534), 0);
  r = make_private_dir(foreign);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("owned by uid 65534"), std::string::npos) << r.error().message;
}

TEST(OpenRegularFile, ReadsARegularFile) {
  testing::TempDir dir;
  write(dir.path() / "a.toml", "name = \"x\"\n");
  auto text = read_file(dir.path() / "a.toml");
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(*text, "name = \"x\"\n");
}

TEST(OpenRegularFile, RefusesAFifoWithoutBlocking) {
  testing::TempDir dir;
  fs::path fifo = dir.path() / "layout.toml";
  expect_fifo_refused_quickly(fifo, O_WRONLY, [&] {
    auto text = read_file(fifo);
    ASSERT_FALSE(text.ok());
    EXPECT_EQ(text.error().message, fifo.string() + ": not a regular file (fifo)");
  });
}

TEST(OpenRegularFile, RefusesAFifoOpenedForWritingWithoutBlocking) {
  testing::TempDir dir;
  fs::path fifo = dir.path() / "scaling_governor";
  expect_fifo_refused_quickly(fifo, O_RDONLY, [&] {
    auto fd = open_regular_file(fifo, O_WRONLY | O_TRUNC);
    ASSERT_FALSE(fd.ok());  // ENXIO: no reader; never a wait for one
    EXPECT_NE(fd.error().message.find(fifo.string()), std::string::npos);
  });
}

TEST(OpenRegularFile, RefusesASymlinkToAFifo) {
  testing::TempDir dir;
  fs::path fifo = dir.path() / "fifo";
  fs::path link = dir.path() / "caps.xml";
  expect_fifo_refused_quickly(fifo, O_WRONLY, [&] {
    fs::create_symlink(fifo, link);
    auto text = read_file(link);
    ASSERT_FALSE(text.ok());
    EXPECT_EQ(text.error().message, link.string() + ": not a regular file (fifo)");
  });
}

TEST(OpenRegularFile, RefusesDevNull) {
  auto text = read_file("/dev/null");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message, "/dev/null: not a regular file (character device)");
}

TEST(OpenRegularFile, RefusesADirectory) {
  testing::TempDir dir;
  auto text = read_file(dir.path());
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message, dir.path().string() + ": not a regular file (directory)");
}

TEST(OpenRegularFile, MissingFileNamesThePathAndErrno) {
  auto text = read_file("/nonexistent/topolab/x");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message, "/nonexistent/topolab/x: No such file or directory");
}

TEST(OpenRegularFile, RefusesAnOversizedFileBeforeReadingIt) {
  testing::TempDir dir;
  fs::path big = dir.path() / "big.xml";
  write(big, std::string(4097, 'x'));
  auto text = read_file(big, 4096);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message, big.string() + ": larger than 4096 bytes");
  EXPECT_TRUE(read_file(big, 4097).ok());  // the bound is inclusive
}

TEST(OpenRegularFile, BoundsProcfsFilesWhoseSizeReadsAsZero) {
  auto status = read_file("/proc/self/status", 16);  // st_size 0, content far longer
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message, "/proc/self/status: larger than 16 bytes");
  auto whole = read_file("/proc/self/status", 1 << 20);
  ASSERT_TRUE(whole.ok()) << whole.error().message;
  EXPECT_NE(whole->find("Pid:"), std::string::npos);
}

TEST(CheckRegularOrAbsent, AcceptsAbsentAndRegularRefusesTheRest) {
  testing::TempDir dir;
  EXPECT_TRUE(check_regular_or_absent(dir.path() / "new.sqlite").ok());
  write(dir.path() / "store.sqlite", "");
  EXPECT_TRUE(check_regular_or_absent(dir.path() / "store.sqlite").ok());
  fs::path fifo = dir.path() / "fifo.sqlite";
  expect_fifo_refused_quickly(fifo, O_WRONLY, [&] {
    auto r = check_regular_or_absent(fifo);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, fifo.string() + ": not a regular file (fifo)");
  });
  fs::create_symlink("/nonexistent/topolab", dir.path() / "dangling.sqlite");
  EXPECT_FALSE(check_regular_or_absent(dir.path() / "dangling.sqlite").ok());
}

TEST(CheckSqlitePaths, RefusesAFifoAsTheStoreOrAnySiblingSqliteOpens) {
  testing::TempDir dir;
  fs::path db = dir.path() / "results.db";
  write(db, "");
  EXPECT_TRUE(check_sqlite_paths(db).ok());
  for (const char* suffix : {"-journal", "-wal", "-shm"}) {
    fs::path sibling = db.string() + suffix;
    expect_fifo_refused_quickly(sibling, O_WRONLY, [&] {
      auto r = check_sqlite_paths(db);
      ASSERT_FALSE(r.ok()) << suffix;
      EXPECT_EQ(r.error().message, sibling.string() + ": not a regular file (fifo)");
    });
    fs::remove(sibling);
  }
}

// --- write_file_atomic (issue 12, class 7) ---

std::size_t entries_in(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

TEST(WriteFileAtomic, WritesReplacesAndLeavesNoTemporary) {
  testing::TempDir dir;
  fs::path out = dir.path() / "report.csv";
  ASSERT_TRUE(write_file_atomic(out, "one\n", 0600).ok());
  ASSERT_TRUE(write_file_atomic(out, "two\n", 0640).ok());
  EXPECT_EQ(slurp(out), "two\n");
  EXPECT_EQ(fs::status(out).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(entries_in(dir.path()), 1u);
}

// An output in a folder that does not exist is named as given, with its folder, not by the
// temporary name the write uses (redteam 2026-12-02, R11).
TEST(WriteFileAtomic, AMissingFolderNamesTheOutputNotTheTemporary) {
  testing::TempDir dir;
  const fs::path out = dir.path() / "nodir" / "r.html";
  auto r = write_file_atomic(out, "x", 0600);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.find(".tmp."), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(out.string() + ": cannot create a file in " +
                                   (dir.path() / "nodir").string()),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("No such file or directory"), std::string::npos);
}

// Issue 32 class 7: `report -o` over a user's 0600 file came back 0644 (and root's when root
// ran it): the replaced file's mode, and as root its owner, now carry over; a new file gets the
// given mode.
TEST(WriteFileAtomic, KeepingTheExistingFileKeepsItsModeAndOwner) {
  testing::TempDir dir;
  const fs::path out = dir.path() / "report.html";
  ASSERT_TRUE(write_file_atomic(out, "new\n", 0644, ExistingFile::kKeepModeAndOwner).ok());
  EXPECT_EQ(fs::status(out).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                fs::perms::others_read);
  ASSERT_EQ(::chmod(out.c_str(), 0600), 0);
  const bool root = ::geteuid() == 0;
  if (root) {
    ASSERT_EQ(::chown(out.c_str(), 4321, 4322), 0);
  }
  ASSERT_TRUE(write_file_atomic(out, "again\n", 0644, ExistingFile::kKeepModeAndOwner).ok());
  EXPECT_EQ(slurp(out), "again\n");
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u) << "the old behaviour wrote 0644";
  if (root) {
    EXPECT_EQ(st.st_uid, 4321u);
    EXPECT_EQ(st.st_gid, 4322u);
  }
  // The default still replaces: other outputs (a hook script) get the mode they ask for.
  ASSERT_TRUE(write_file_atomic(out, "x\n", 0644).ok());
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(entries_in(dir.path()), 1u);
}

TEST(WriteFileAtomic, RefusesAPlantedSymlinkAndLeavesItsTargetUntouched) {
  testing::TempDir dir;
  fs::path victim = dir.path() / "victim";
  write(victim, "precious\n");
  fs::path out = dir.path() / "report.html";
  fs::create_symlink(victim, out);
  auto w = write_file_atomic(out, "<html>\n");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message,
            out.string() + ": is a symbolic link; outputs never follow or replace links");
  EXPECT_EQ(slurp(victim), "precious\n");
  EXPECT_TRUE(fs::is_symlink(out));
  EXPECT_EQ(entries_in(dir.path()), 2u);  // no temporary left behind
}

// `report r.db -o r.db` replaced the store with its report (redteam wave 4): the same file under
// another name (a hard link, "./", a symlink to it) is the same input; a new file or another file
// is not.
TEST(CheckOutputIsNotInput, TheSameFileUnderAnyNameIsRefusedOthersPass) {
  testing::TempDir dir;
  const fs::path store = dir.path() / "r.db";
  write(store, "results\n");
  fs::create_hard_link(store, dir.path() / "hard.db");
  fs::create_symlink(store, dir.path() / "soft.db");
  for (const fs::path& out :
       {store, dir.path() / "hard.db", dir.path() / "soft.db", dir.path() / "." / "r.db"}) {
    auto r = check_output_is_not_input(out, {dir.path() / "other.toml", store});
    ASSERT_FALSE(r.ok()) << out;
    EXPECT_EQ(r.error().message, out.string() + ": is the input " + store.string() +
                                     "; an output never replaces an input (name another file)");
  }
  write(dir.path() / "old-report.txt", "old\n");
  EXPECT_TRUE(check_output_is_not_input(dir.path() / "old-report.txt", {store}).ok());
  EXPECT_TRUE(check_output_is_not_input(dir.path() / "new.txt", {store}).ok());
  EXPECT_TRUE(check_output_is_not_input(store, {dir.path() / "missing.db", ""}).ok());
  EXPECT_EQ(slurp(store), "results\n");
}

TEST(WriteFileAtomic, IgnoresLinksPlantedAtTheOldPredictableTemporaryName) {
  testing::TempDir dir;
  fs::path victim = dir.path() / "victim";
  write(victim, "precious\n");
  fs::path out = dir.path() / "report.csv";
  // The old name was PATH.tmp.<pid>: plant it (and a neighbour pid) as links to the victim.
  for (int pid : {static_cast<int>(::getpid()), static_cast<int>(::getpid()) + 1}) {
    fs::create_symlink(victim, out.string() + ".tmp." + std::to_string(pid));
  }
  ASSERT_TRUE(write_file_atomic(out, "a,b\n").ok());
  EXPECT_EQ(slurp(out), "a,b\n");
  EXPECT_EQ(slurp(victim), "precious\n");
  EXPECT_FALSE(fs::is_symlink(out));
}

TEST(WriteFileAtomic, RefusesADirectoryOrDeviceTarget) {
  testing::TempDir dir;
  auto w = write_file_atomic(dir.path(), "x");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message, dir.path().string() + ": not a regular file (directory)");
  auto dev = write_file_atomic("/dev/null", "x");
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.error().message, "/dev/null: not a regular file (character device)");
}

TEST(WriteFileAtomic, MissingDirectoryNamesThePath) {
  auto w = write_file_atomic("/nonexistent/topolab/out.csv", "x");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message.find("/nonexistent/topolab/out.csv"), std::string::npos);
}

TEST(FileIoErrors, AbsentIsNotFoundOtherFailuresAreIo) {
  testing::TempDir dir;
  auto absent = read_file(dir.path() / "missing");
  ASSERT_FALSE(absent.ok());
  EXPECT_TRUE(absent.error().is(ErrorKind::not_found)) << absent.error().message;
  auto fifo_like = read_file("/dev/null");
  ASSERT_FALSE(fifo_like.ok());
  EXPECT_TRUE(fifo_like.error().is(ErrorKind::input)) << fifo_like.error().message;
}

TEST(OpenPrivateAppend, CreatesA0600FileAndAppends) {
  testing::TempDir dir;
  const fs::path p = dir.path() / "topolab.log";
  for (const char* text : {"one\n", "two\n"}) {
    auto fd = open_private_append(p);
    ASSERT_TRUE(fd.ok()) << fd.error().message;
    ASSERT_EQ(::write(fd->get(), text, 4), 4);
  }
  EXPECT_EQ(slurp(p), "one\ntwo\n");
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(OpenPrivateAppend, RefusesAPlantedSymlinkAndLeavesItsTargetAlone) {
  testing::TempDir dir;
  const fs::path target = dir.path() / "victim";
  write(target, "precious\n");
  ::chmod(target.c_str(), 0644);
  const fs::path link = dir.path() / "topolab.log";
  fs::create_symlink(target, link);
  auto fd = open_private_append(link);
  ASSERT_FALSE(fd.ok());
  EXPECT_NE(fd.error().message.find(link.string()), std::string::npos) << fd.error().message;
  EXPECT_EQ(slurp(target), "precious\n");
  struct stat st {};
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);  // no fchmod through the link either
}

TEST(OpenPrivateAppend, RefusesAFifoWithoutBlocking) {
  testing::TempDir dir;
  const fs::path fifo = dir.path() / "topolab.log";
  expect_fifo_refused_quickly(fifo, O_RDONLY, [&] {
    auto fd = open_private_append(fifo);  // ENXIO: a FIFO without reader, opened non-blocking
    EXPECT_FALSE(fd.ok());
  });
}

}  // namespace
}  // namespace topolab
