// Issue 16 acceptance, experiment level: one experiment over two hosts, qemu:///system and
// qemu+tcp://127.0.0.1:16509/system (libvirtd's TCP listener: the remote driver's path), with
// real TCG guests through the `topolab` CLI. 2 exposures x 2 hosts = 4 cells, the two host
// workers boot at the same time (the boots' [started, finished] intervals in the store overlap),
// one store with the host of every cell, boot and run, reports with the host in table, CSV, JSON
// and HTML, a second run that runs nothing, and a configuration that does not fit (host CPUs
// 0-7 on a 2-CPU host) reported does-not-fit with the planner's reason. No topolab- domain of
// this test is left on either URI.
// The TCP listener must be up: under ctest the libvirt_tcp fixture of this folder starts it
// (tests/CMakeLists.txt); run by hand without it, the test is skipped with the reason. Another
// port (TOPOLAB_TEST_LIBVIRT_TCP_PORT) makes both runs pass the hosts with --connect.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "orchestrator/results/store/result_store.hpp"
#include "tests/integration/remote/tcp_forwarder.hpp"
#include "tests/support/run_summary.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using testing::configurations_booted;

const std::string kExperiment =
    std::string(TOPOLAB_TESTS_DIR) + "/integration/remote/data/two-hosts.toml";
constexpr const char* kLocal = "qemu:///system";
constexpr const char* kFileTcp = "qemu+tcp://127.0.0.1:16509/system";

// The listener's port (TOPOLAB_TEST_LIBVIRT_TCP_PORT, else 16509): what a forwarder forwards to.
int listener_port() {
  const char* port = std::getenv("TOPOLAB_TEST_LIBVIRT_TCP_PORT");
  if (!port || !*port || std::string(port).find_first_not_of("0123456789") != std::string::npos)
    return 16509;
  return std::atoi(port);
}

// The listener's port as the libvirt_tcp ctest fixture of this folder was told
// (TOPOLAB_TEST_LIBVIRT_TCP_PORT), else the file's 16509.
std::string tcp_uri() {
  const char* port = std::getenv("TOPOLAB_TEST_LIBVIRT_TCP_PORT");
  if (!port || !*port || std::string(port).find_first_not_of("0123456789") != std::string::npos)
    return kFileTcp;
  return std::string("qemu+tcp://127.0.0.1:") + port + "/system";
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs argv (no shell) with stdout/stderr to files; returns the exit code.
int run(const std::vector<std::string>& args, const fs::path& out, const fs::path& err) {
  pid_t pid = fork();
  if (pid == 0) {
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(o, 1);
    dup2(e, 2);
    std::vector<char*> argv;
    std::vector<std::string> copy = args;
    for (auto& s : copy) argv.push_back(s.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class MultiHostRun : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/topolab-it-multihost-XXXXXX";
    dir_ = mkdtemp(tmpl);
    if (run({"virsh", "-c", tcp_uri(), "uri"}, dir_ / "probe.out", dir_ / "probe.err") != 0)
      GTEST_SKIP() << "libvirtd's TCP listener " << tcp_uri()
                   << " is not up (the remote fixture starts it): " << slurp(dir_ / "probe.err");
  }
  void TearDown() override {
    EXPECT_TRUE(our_domains().empty()) << "left behind: " << our_domains();
    fs::remove_all(dir_);
  }

  // This test's domains (topolab-two-groups-*) on both URIs: others may run guests meanwhile.
  std::string our_domains() {
    std::string left;
    for (const std::string& uri : {std::string(kLocal), tcp_uri()}) {
      if (run({"virsh", "-c", uri, "list", "--all", "--name"}, dir_ / "virsh.out",
              dir_ / "virsh.err") != 0)
        continue;
      std::istringstream in(slurp(dir_ / "virsh.out"));
      for (std::string line; std::getline(in, line);)
        if (line.rfind("topolab-two-groups-", 0) == 0) left += line + " ";
    }
    return left;
  }

  nlohmann::json topolab(std::vector<std::string> args, const std::string& tag, int* rc) {
    args.insert(args.begin(), TOPOLAB_CLI);
    *rc = run(args, dir_ / (tag + ".out"), dir_ / (tag + ".err"));
    auto j = nlohmann::json::parse(slurp(dir_ / (tag + ".out")), nullptr, false);
    return j;
  }

  std::vector<std::string> run_args(const std::string& db, const std::string& remote = tcp_uri()) {
    std::vector<std::string> a = {"run", kExperiment, "--store", db, "--accel", "tcg", "--json"};
    if (remote != kFileTcp) a.insert(a.end(), {"--connect", kLocal, "--connect", remote});
    return a;
  }

  fs::path dir_;
};

TEST_F(MultiHostRun, TwoHostsInParallelOneStoreReportsPerHostAndDoesNotFit) {
  const std::string db = (dir_ / "hosts.db").string();
  int rc = 0;
  auto first = topolab(run_args(db), "first", &rc);
  ASSERT_EQ(rc, 0) << slurp(dir_ / "first.err");
  EXPECT_EQ(first["cells"], 6) << first.dump(2);
  EXPECT_EQ(first["cells_done"], 4);
  EXPECT_EQ(first["cells_failed"], 0);
  EXPECT_EQ(first["cells_does_not_fit"], 2);
  EXPECT_EQ(configurations_booted(first), 4);
  EXPECT_EQ(first["runs_executed"], 8);
  ASSERT_EQ(first["hosts"].size(), 2u);
  for (const auto& h : first["hosts"]) {
    EXPECT_EQ(configurations_booted(h), 2) << h.dump();
    EXPECT_EQ(h["cells_does_not_fit"], 1) << h.dump();
  }
  // Plain progress lines (stderr is a file) name their host.
  const std::string err = slurp(dir_ / "first.err");
  EXPECT_NE(err.find(tcp_uri() + ": boot expose=flat"), std::string::npos) << err;

  {  // The store: every cell, boot and run knows its host; the two workers overlapped.
    auto s = store::ResultStore::open_read_only(db);
    ASSERT_TRUE(s.ok()) << s.error().message;
    auto exps = (*s)->experiments();
    ASSERT_EQ(exps->size(), 1u);
    auto boots = (*s)->boots((*exps)[0].id);
    // One per configuration, and one more for each booted again after a mid-run hang.
    ASSERT_EQ(boots->size(), 4u + first.value("hang_reboots", 0u)) << first.dump();
    bool overlap = false;
    for (const auto& a : *boots)
      for (const auto& b : *boots) {
        ASSERT_FALSE(a.finished.empty()) << "boot " << a.id << " has no end time";
        if (a.boot.host == kLocal && b.boot.host == tcp_uri())
          overlap = overlap || (a.started <= b.finished && b.started <= a.finished);
      }
    EXPECT_TRUE(overlap) << "the host workers did not run at the same time";
    auto cells = (*s)->cells((*exps)[0].id);
    ASSERT_EQ(cells->size(), 6u);
    for (const auto& c : *cells) {
      EXPECT_TRUE(c.cell.host == kLocal || c.cell.host == tcp_uri()) << c.cell.host;
      if (c.cell.label.find("host_cpus=0-7") != std::string::npos) {
        EXPECT_EQ(c.status, "does-not-fit");
        EXPECT_NE(c.error.find("names CPUs"), std::string::npos) << c.error;
        EXPECT_EQ((*s)->runs(c.id)->size(), 0u);
      } else {
        EXPECT_EQ(c.status, "done") << c.cell.label << " " << c.error;
        EXPECT_EQ((*s)->runs(c.id)->size(), 2u);
      }
    }
  }

  // Reports: the host in every format; penalties within each host.
  auto report = topolab({"report", db, "--format", "json"}, "json", &rc);
  ASSERT_EQ(rc, 0) << slurp(dir_ / "json.err");
  EXPECT_EQ(report["hosts"].size(), 2u);
  for (const auto& row : report["rows"]) {
    ASSERT_TRUE(row.contains("host")) << row.dump();
    if (row["status"] == "does-not-fit") {
      EXPECT_NE(row["error"].get<std::string>().find("names CPUs"), std::string::npos);
    } else if (row["factors"]["expose"] == "sockets") {
      EXPECT_TRUE(row["penalty_pct"].is_number()) << row.dump();
    }
  }
  for (const char* format : {"table", "csv", "html"}) {
    ASSERT_EQ(run({TOPOLAB_CLI, "report", db, "--format", format}, dir_ / "r.out", dir_ / "r.err"),
              0)
        << format << ": " << slurp(dir_ / "r.err");
    const std::string text = slurp(dir_ / "r.out");
    EXPECT_NE(text.find(tcp_uri()), std::string::npos) << format;
    EXPECT_NE(text.find("does-not-fit"), std::string::npos) << format;
  }

  auto again = topolab(run_args(db), "again", &rc);
  ASSERT_EQ(rc, 0) << slurp(dir_ / "again.err");
  EXPECT_EQ(again["boots"], 0) << again.dump(2);
  EXPECT_EQ(again["runs_executed"], 0);
  EXPECT_EQ(again["runs_skipped"], 8);
  EXPECT_EQ(again["cells_does_not_fit"], 2);
}

// SIGINT while both hosts have a guest up: every domain the run defined is destroyed on its own
// connection (the domain registry records each domain's connection), none is left on either
// URI, and a rerun completes only what is missing.
TEST_F(MultiHostRun, SigintCleansUpOnEveryHostAndTheRerunCompletesTheRest) {
  const std::string db = (dir_ / "int.db").string();
  std::vector<std::string> args = run_args(db);
  args.insert(args.begin(), TOPOLAB_CLI);
  pid_t pid = fork();
  if (pid == 0) {
    int o = open((dir_ / "int.out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = open((dir_ / "int.err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(o, 1);
    dup2(e, 2);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  // Both workers have booted a guest once both hosts said "ready" at least once.
  bool both = false;
  for (int i = 0; i < 1800 && !both; ++i) {
    usleep(100 * 1000);
    const std::string err = slurp(dir_ / "int.err");
    both = err.find(std::string(kLocal) + ": boot ") != std::string::npos &&
           err.find(tcp_uri() + ": boot ") != std::string::npos &&
           our_domains().find("topolab-two-groups-") != std::string::npos;
    if (waitpid(pid, nullptr, WNOHANG) == pid) FAIL() << "run ended early: " << err;
  }
  ASSERT_TRUE(both) << slurp(dir_ / "int.err");
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  // Ends by the signal; the workers' failures the watcher's cleanup caused are neither stored
  // nor printed (common/interrupt_gate.hpp; the rerun below finds no failed cell to redo).
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << slurp(dir_ / "int.err");
  EXPECT_EQ(slurp(dir_ / "int.err").find("FAILED"), std::string::npos) << slurp(dir_ / "int.err");
  EXPECT_TRUE(our_domains().empty()) << "left after SIGINT: " << our_domains();
  int rc = 0;
  auto rest = topolab(run_args(db), "rest", &rc);
  ASSERT_EQ(rc, 0) << slurp(dir_ / "rest.err");
  EXPECT_EQ(rest["runs_executed"].get<int>() + rest["runs_skipped"].get<int>(), 8) << rest.dump(2);
  EXPECT_EQ(rest["cells_done"], 4);
}

// Issue 16 acceptance, bullet 3: the remote host goes away mid-run. Its connection goes through
// a forwarder that cuts it at the remote host's first domain start (the first cell of that host
// has begun: image uploaded, domain defined) and refuses every later connection (the listener
// is gone). The trigger is a protocol message, not a timer: the same point on a loaded machine.
// The local host's cells complete; the remote cells are recorded failed naming the host (the
// first: the lost connection, the second: not run, the host unreachable); the run exits 3 naming
// the host. A forwarder back on the same port (the same URI, the store's host) and a rerun: only
// the remote cells run, and the domain the cut run could not remove on the lost host is removed
// by the rerun's stale-domain cleanup (TearDown: none left on either URI).
TEST_F(MultiHostRun, ALostHostFailsItsCellsTheOthersCompleteAndTheRerunResumes) {
  using topolab::testing::RpcHeader;
  using topolab::testing::TcpForwarder;
  const std::string db = (dir_ / "cut.db").string();
  auto cut = std::make_unique<TcpForwarder>(
      listener_port(), TcpForwarder::Fault::kCut,
      [](const RpcHeader& h) {  // REMOTE_PROC_DOMAIN_CREATE (9) / _WITH_FLAGS (196)
        return h.program == topolab::testing::kRemoteProgram &&
               h.type == topolab::testing::kRpcCall && (h.procedure == 9 || h.procedure == 196);
      },
      /*refuse_after=*/true);
  const int port = cut->port();
  ASSERT_GT(port, 0);
  const std::string remote = "qemu+tcp://127.0.0.1:" + std::to_string(port) + "/system";
  int rc = 0;
  auto first = topolab(run_args(db, remote), "cut", &rc);
  const std::string err = slurp(dir_ / "cut.err");
  EXPECT_TRUE(cut->triggered()) << err;
  EXPECT_EQ(rc, 3) << err;
  EXPECT_NE(err.find("host " + remote + ": 2 cell(s) failed; unreachable: "), std::string::npos)
      << err;
  // The domain defined before the cut cannot be removed while the host refuses: reported, not
  // silently leaked (the rerun's stale cleanup removes it; TearDown checks none is left).
  EXPECT_NE(err.find("cleanup of domain topolab-two-groups-"), std::string::npos) << err;
  EXPECT_EQ(first["cells_done"], 2) << first.dump(2);
  EXPECT_EQ(first["cells_failed"], 2);
  EXPECT_EQ(first["cells_does_not_fit"], 2);
  ASSERT_EQ(first["hosts"].size(), 2u) << first.dump(2);
  for (const auto& h : first["hosts"]) {
    if (h["host"] == kLocal) {
      EXPECT_EQ(h["cells_done"], 2) << h.dump();
      EXPECT_TRUE(h["unreachable"].is_null()) << h.dump();
    } else {
      EXPECT_EQ(h["host"], remote);
      EXPECT_EQ(h["cells_failed"], 2) << h.dump();
      EXPECT_EQ(h["boots"], 0) << h.dump();
      ASSERT_TRUE(h["unreachable"].is_string()) << h.dump();
      EXPECT_NE(h["unreachable"].get<std::string>().find(remote), std::string::npos) << h.dump();
    }
  }
  {  // The store: every failed cell says why, naming the host.
    auto s = store::ResultStore::open_read_only(db);
    ASSERT_TRUE(s.ok()) << s.error().message;
    auto exps = (*s)->experiments();
    ASSERT_EQ(exps->size(), 1u);
    int failed = 0;
    for (const auto& c : *(*s)->cells((*exps)[0].id)) {
      if (c.status == "does-not-fit") continue;
      if (c.cell.host == kLocal) {
        EXPECT_EQ(c.status, "done") << c.cell.label << " " << c.error;
        continue;
      }
      EXPECT_EQ(c.status, "failed") << c.cell.label;
      EXPECT_NE(c.error.find(remote), std::string::npos) << c.error;
      ++failed;
    }
    EXPECT_EQ(failed, 2);
  }

  cut.reset();  // the lost host comes back on the same URI
  TcpForwarder back(
      listener_port(), TcpForwarder::Fault::kCut, [](const RpcHeader&) { return false; },
      /*refuse_after=*/false, port);
  ASSERT_EQ(back.port(), port) << "port " << port << " was taken meanwhile";
  auto rest = topolab(run_args(db, remote), "rest", &rc);
  ASSERT_EQ(rc, 0) << slurp(dir_ / "rest.err");
  EXPECT_EQ(rest["cells_done"], 4) << rest.dump(2);
  // Booted configurations, not boots: a real TCG mid-run hang boots one once more (the
  // clean-clone CI of 1887fc3: hang_reboots 1 on the remote host).
  EXPECT_EQ(configurations_booted(rest), 2) << rest.dump(2);
  EXPECT_EQ(rest["runs_executed"], 4);
  EXPECT_EQ(rest["runs_skipped"], 4);
  for (const auto& h : rest["hosts"])
    EXPECT_EQ(configurations_booted(h), h["host"] == kLocal ? 0 : 2) << h.dump();
}

// Issue 16 acceptance, bad input: a pool path that cannot be created on the remote host refuses
// the run before anything is recorded on any host: one error line naming the host and the path,
// no store left, no pool defined there, no domain on either URI (TearDown). The
// pool has a throw-away name: the real `topolab` pool is never touched.
TEST_F(MultiHostRun, APoolPathThatCannotBeCreatedRefusesTheRunOnEveryHost) {
  const std::string db = (dir_ / "pool.db").string();
  const std::string pool = "topolab-it-mh-" + std::to_string(getpid());
  auto args = run_args(db);
  args.insert(args.end(), {"--pool", pool, "--pool-path", "/proc/" + pool + "/pool"});
  int rc = 0;
  topolab(args, "pool", &rc);
  const std::string err = slurp(dir_ / "pool.err");
  EXPECT_EQ(rc, 69) << "libvirt refused to create the path: ExitCode::unavailable\n" << err;
  std::size_t errors = 0;
  for (auto at = err.find("topolab run: "); at != std::string::npos;
       at = err.find("topolab run: ", at + 1))
    ++errors;
  EXPECT_EQ(errors, 1u) << err;
  EXPECT_NE(err.find("host " + tcp_uri() + ": "), std::string::npos) << err;
  EXPECT_NE(err.find("/proc/" + pool + "/pool: cannot create its directory"), std::string::npos)
      << err;
  // Refused before any boot: the store it created is removed again.
  EXPECT_FALSE(fs::exists(db)) << "the refused run left its new store";
  EXPECT_NE(run({"virsh", "-c", tcp_uri(), "pool-info", pool}, dir_ / "p.out", dir_ / "p.err"), 0)
      << "a pool was left: " << slurp(dir_ / "p.out");
}

}  // namespace
}  // namespace topolab
