// Issue 32 class 7: the hook runs as root, so what it replays from an undo record and how its
// snippet names the binary must not be steerable by the record's or the install path's text.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "orchestrator/hostprep/isolation/hook.hpp"
#include "orchestrator/hostprep/isolation/isolation_apply.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab::isolation {
namespace {

namespace fs = std::filesystem;

// The snippet test executes what it writes: not under /dev/shm (often noexec).
class TempDir : public topolab::testing::TempDir {
 public:
  TempDir() : topolab::testing::TempDir("topolab-trust", topolab::testing::TempBase::exec) {}
};

// A record of win10 under ROOT with one action.
void write_record(const TempDir& root, const std::string& kind, const std::string& path,
                  const std::string& before) {
  nlohmann::json j = {
      {"domain", "win10"},
      {"guest_cpus", "4-7"},
      {"housekeeping_cpus", "0-3"},
      {"actions", {{{"kind", kind}, {"path", path}, {"before", before}, {"after", before}}}}};
  root.write("var/lib/topolab/isolation/win10.json", j.dump());
}

// Before: any absolute path without ".." was written back as root on release.
TEST(RecordTrust, ReleaseRefusesPathsTheHookNeverWrites) {
  const std::pair<const char*, const char*> foreign[] = {
      {"governor", "/etc/passwd"},
      {"irq-affinity", "/etc/cron.d/x"},
      {"irq-affinity", "/proc/irq/24/../../sys/kernel/x"},
      {"irq-affinity", "/proc/irq/024/smp_affinity_list"},  // not a name the planner makes
      {"irq-affinity", "/proc/irq/sysrq/smp_affinity_list"},
      {"cgroup-cpus", "/sys/fs/cgroup/evil.slice/cpuset.cpus"},
      {"cgroup-cpus", "/sys/fs/cgroup/system.slice/cgroup.procs"},
      {"cgroup-controller", "/sys/fs/cgroup/system.slice/cgroup.subtree_control"},
      {"governor", "/sys/devices/system/cpu/cpu99999/cpufreq/scaling_governor"},
      {"irq-default", "/proc/sys/kernel/core_pattern"},
  };
  for (const auto& [kind, path] : foreign) {
    TempDir root;
    root.write(fs::path(path).relative_path(), "original");
    write_record(root, kind, path, "0-3");
    auto released = release_isolation(SysRoot(root.path()), "win10");
    ASSERT_FALSE(released.ok()) << kind << " " << path;
    EXPECT_NE(released.error().message.find("not a file topolab writes"), std::string::npos)
        << released.error().message;
    EXPECT_EQ(root.read(fs::path(path).relative_path()), "original") << path;
  }
}

// Only the values the planner writes: a controller record cannot disable other controllers.
TEST(RecordTrust, ReleaseRefusesValuesThePlannerNeverWrites) {
  const std::pair<const char*, const char*> cases[] = {
      {"cgroup-controller", "-memory -io"},
      {"governor", "performance\nuserspace"},
      {"irq-affinity", "0-3; rm"},
      {"irq-default", "zz"},
  };
  const std::string path_of[] = {"/sys/fs/cgroup/cgroup.subtree_control",
                                 "/sys/devices/system/cpu/cpu4/cpufreq/scaling_governor",
                                 "/proc/irq/24/smp_affinity_list",
                                 "/proc/irq/default_smp_affinity"};
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    TempDir root;
    root.write(fs::path(path_of[i]).relative_path(), "original");
    write_record(root, cases[i].first, path_of[i], cases[i].second);
    auto released = release_isolation(SysRoot(root.path()), "win10");
    ASSERT_FALSE(released.ok()) << cases[i].first;
    EXPECT_NE(released.error().message.find("is not a"), std::string::npos)
        << released.error().message;
    EXPECT_EQ(root.read(fs::path(path_of[i]).relative_path()), "original");
  }
}

TEST(RecordTrust, ReleaseStillRestoresEveryKindThePlannerWrites) {
  TempDir root;
  nlohmann::json actions = nlohmann::json::array();
  const std::pair<const char*, const char*> ours[] = {
      {"cgroup-controller", "/sys/fs/cgroup/unified/cgroup.subtree_control"},
      {"cgroup-cpus", "/sys/fs/cgroup/init.scope/cpuset.cpus"},
      {"irq-affinity", "/proc/irq/130/smp_affinity_list"},
      {"irq-default", "/proc/irq/default_smp_affinity"},
      {"governor", "/sys/devices/system/cpu/cpu12/cpufreq/scaling_governor"},
  };
  const char* before[] = {"-cpuset", "", "0-7", "ff", "schedutil"};
  for (std::size_t i = 0; i < std::size(ours); ++i) {
    root.write(fs::path(ours[i].second).relative_path(), "changed");
    actions.push_back(
        {{"kind", ours[i].first}, {"path", ours[i].second}, {"before", before[i]}, {"after", "x"}});
  }
  actions[2]["after"] = "0-3";
  actions[0]["after"] = "+cpuset";
  actions[1]["after"] = "0-3";
  actions[3]["after"] = "f";
  actions[4]["after"] = "performance";
  root.write("var/lib/topolab/isolation/win10.json", nlohmann::json({{"domain", "win10"},
                                                                     {"guest_cpus", "4-7"},
                                                                     {"housekeeping_cpus", "0-3"},
                                                                     {"actions", actions}})
                                                         .dump());
  auto released = release_isolation(SysRoot(root.path()), "win10");
  ASSERT_TRUE(released.ok()) << released.error().message;
  EXPECT_EQ(released->done.size(), 5u);
  for (std::size_t i = 0; i < std::size(ours); ++i) {
    std::string now = root.read(fs::path(ours[i].second).relative_path());
    while (!now.empty() && now.back() == '\n') now.pop_back();
    EXPECT_EQ(now, before[i]) << ours[i].second;
  }
}

// A hostile leftover record is not released on the next prepare either: the start fails closed.
TEST(RecordTrust, PrepareWithAHostileLeftoverRecordFailsAndWritesNothing) {
  TempDir root;
  root.write("sys/devices/system/cpu/online", "0-7\n");
  root.write("etc/victim", "original");
  write_record(root, "governor", "/etc/victim", "0");
  HookRequest req{"win10", "prepare", "", "4-7", root.path(), false, ""};
  auto out = run_hook(req);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("releasing the leftover record first"), std::string::npos)
      << out.error().message;
  EXPECT_EQ(root.read("etc/victim"), "original");
}

TEST(RecordTrust, ShellQuotingKeepsQuotesAndSubstitutionsLiteral) {
  EXPECT_EQ(shell_single_quoted("/usr/bin/topolab"), "'/usr/bin/topolab'");
  EXPECT_EQ(shell_single_quoted("a'b"), "'a'\\''b'");
  EXPECT_EQ(shell_single_quoted(""), "''");
}

// Before: the path went between single quotes as it was, so a quote in it ended the word and
// the rest ($(...)) ran as a command when libvirt called the hook.
TEST(RecordTrust, SnippetForAHostilePathRunsOnlyThatBinary) {
  TempDir dir;
  const std::string odd = "it's $(touch pwned) `touch pwned2` dir";
  fs::create_directories(dir.path() / odd);
  const fs::path fake = dir.path() / odd / "topolab";
  // The harmless stand-in records its arguments and its stdin (libvirt's domain XML).
  dir.write(fs::path(odd) / "topolab",
            "#!/bin/sh\nprintf '%s|' \"$@\" > \"$0.args\"\ncat > \"$0.stdin\"\n");
  fs::permissions(fake, fs::perms::owner_all);
  std::string s = hook_snippet(fake);
  const std::string log = "/var/log/topolab-hook.log";
  for (int i = 0; i < 2; ++i)
    s.replace(s.find(log), log.size(), (dir.path() / "hook.log").string());
  dir.write("qemu", s);
  dir.write("domain.xml", "<domain><name>win10</name></domain>");
  testing::ChildOptions o;
  o.stdin_file = dir.path() / "domain.xml";
  auto run =
      testing::run_process({"/bin/bash", "-c", "cd \"$1\" && bash ./qemu win10 prepare begin -",
                            "bash", dir.path().string()},
                           o);
  EXPECT_EQ(run.status(), 0) << run.err << dir.read("hook.log");
  EXPECT_EQ(dir.read(fs::path(odd) / "topolab.args"), "hook|win10|prepare|--domain-xml|-|");
  EXPECT_EQ(dir.read(fs::path(odd) / "topolab.stdin"), "<domain><name>win10</name></domain>")
      << "libvirt's domain XML reaches topolab";
  EXPECT_FALSE(fs::exists(dir.path() / "pwned"));
  EXPECT_FALSE(fs::exists(dir.path() / "pwned2"));
  EXPECT_FALSE(fs::exists(dir.path() / odd / "pwned"));
}

TEST(RecordTrust, HookWithAMissingRootFails) {
  HookRequest req{"win10", "prepare", "", "4-7", "/nonexistent/topolab-root", true, ""};
  auto out = run_hook(req);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().message, "--root /nonexistent/topolab-root: no such folder");
  req.operation = "release";
  EXPECT_FALSE(run_hook(req).ok());  // before: "no isolation record", exit 0
}

}  // namespace
}  // namespace topolab::isolation
