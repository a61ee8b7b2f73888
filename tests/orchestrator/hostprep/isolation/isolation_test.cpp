#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/file_io.hpp"
#include "orchestrator/hostprep/isolation/hook.hpp"
#include "orchestrator/hostprep/isolation/isolation_apply.hpp"
#include "orchestrator/hostprep/isolation/isolation_plan.hpp"
#include "tests/support/child_process.hpp"

namespace topolab::isolation {
namespace {

namespace fs = std::filesystem;

std::string fixture(const std::string& name) {
  return std::string(TOPOLAB_TESTS_DIR) + "/orchestrator/hostprep/isolation/data/" + name;
}

// A writable copy of a fixture tree, removed at the end of the test.
class ScratchRoot {
 public:
  explicit ScratchRoot(const std::string& name) {
    char tmpl[] = "/tmp/topolab-isolation-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    fs::copy(fixture(name), dir_, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  ~ScratchRoot() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  SysRoot root() const { return SysRoot(dir_); }
  std::string read(const std::string& live_path) const {
    return root().attr(live_path).value_or("<missing>");
  }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
};

const IsolationAction* find_action(const IsolationPlan& plan, const std::string& path) {
  for (const auto& a : plan.actions) {
    if (a.path == path) return &a;
  }
  return nullptr;
}

IsolationRequest request_for(const std::string& domain, const std::string& cpus) {
  IsolationRequest r;
  r.domain = domain;
  r.guest_cpus = CpuList::parse(cpus).value();
  return r;
}

TEST(IsolationPlan, Cgroup2HostMovesSlicesIrqsAndGovernors) {
  auto plan = plan_isolation(SysRoot(fixture("cgroup2-host")), request_for("win10", "4-7"));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->housekeeping_cpus.to_string(), "0-3");
  // Slices: empty (inherit) and 0-7 both become 0-3; machine.slice (the guests) untouched.
  const auto* sys = find_action(*plan, "/sys/fs/cgroup/system.slice/cpuset.cpus");
  ASSERT_NE(sys, nullptr);
  EXPECT_EQ(sys->before, "");
  EXPECT_EQ(sys->after, "0-3");
  ASSERT_NE(find_action(*plan, "/sys/fs/cgroup/user.slice/cpuset.cpus"), nullptr);
  EXPECT_EQ(find_action(*plan, "/sys/fs/cgroup/init.scope/cpuset.cpus")->before, "0-7");
  EXPECT_EQ(find_action(*plan, "/sys/fs/cgroup/machine.slice/cpuset.cpus"), nullptr);
  EXPECT_EQ(find_action(*plan, "/sys/fs/cgroup/cgroup.subtree_control"), nullptr);  // delegated
  // IRQs: 0-7 keeps its host part, 4-5 and 6 (guest only) go to the housekeeping CPUs,
  // 0 and 2-3 already avoid the guest.
  EXPECT_EQ(find_action(*plan, "/proc/irq/24/smp_affinity_list")->after, "0-3");
  EXPECT_EQ(find_action(*plan, "/proc/irq/25/smp_affinity_list")->after, "0-3");
  EXPECT_EQ(find_action(*plan, "/proc/irq/26/smp_affinity_list")->before, "6");
  EXPECT_EQ(find_action(*plan, "/proc/irq/0/smp_affinity_list"), nullptr);
  EXPECT_EQ(find_action(*plan, "/proc/irq/27/smp_affinity_list"), nullptr);
  EXPECT_EQ(find_action(*plan, "/proc/irq/default_smp_affinity")->after, "f");
  // Governors: schedutil on 4-6 -> performance; cpu7 already performance; 0-3 not the guest's.
  for (int cpu : {4, 5, 6}) {
    const auto* g = find_action(
        *plan, "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/scaling_governor");
    ASSERT_NE(g, nullptr) << cpu;
    EXPECT_EQ(g->before, "schedutil");
    EXPECT_EQ(g->after, "performance");
  }
  EXPECT_EQ(find_action(*plan, "/sys/devices/system/cpu/cpu7/cpufreq/scaling_governor"), nullptr);
  EXPECT_EQ(find_action(*plan, "/sys/devices/system/cpu/cpu3/cpufreq/scaling_governor"), nullptr);
  EXPECT_EQ(plan->actions.size(), 3u + 4u + 3u);
}

TEST(IsolationPlan, UndelegatedCpusetIsEnabledFirst) {
  auto plan = plan_isolation(SysRoot(fixture("cgroup2-no-cpuset")), request_for("vm", "2-3"));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_FALSE(plan->actions.empty());
  EXPECT_EQ(plan->actions[0].path, "/sys/fs/cgroup/cgroup.subtree_control");
  EXPECT_EQ(plan->actions[0].after, "+cpuset");
  EXPECT_EQ(plan->actions[0].before, "-cpuset");
  EXPECT_NE(find_action(*plan, "/sys/fs/cgroup/system.slice/cpuset.cpus"), nullptr);
  bool init_note = false, gov_note = false;
  for (const auto& n : plan->notes) {
    init_note |= n.find("init.scope") != std::string::npos;
    gov_note |= n.find("no cpufreq on CPUs 2-3") != std::string::npos;
  }
  EXPECT_TRUE(init_note);
  EXPECT_TRUE(gov_note);
}

TEST(IsolationPlan, CgroupV1HostOnlyMovesIrqs) {
  auto plan = plan_isolation(SysRoot(fixture("cgroup1-hybrid")), request_for("vm", "1"));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->actions.size(), 2u);
  EXPECT_EQ(plan->actions[0].path, "/proc/irq/24/smp_affinity_list");
  EXPECT_EQ(plan->actions[0].after, "0");
  EXPECT_EQ(plan->actions[1].after, "0");  // IRQ 25 was on the guest CPU only
  ASSERT_FALSE(plan->notes.empty());
  // Like the lab machine: v1 cpuset plus an empty v2 mount without systemd slices.
  EXPECT_NE(plan->notes[0].find("no cgroup v2 hierarchy with systemd slices"), std::string::npos)
      << plan->notes[0];
}

TEST(IsolationPlan, RefusesToLeaveNoHostCpuOrBadNames) {
  auto all = plan_isolation(SysRoot(fixture("cgroup1-hybrid")), request_for("vm", "0-1"));
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.error().message.find("leave no CPU for the host"), std::string::npos);
  for (const char* bad : {"../etc/passwd", ".hidden", "a/b", ""}) {
    EXPECT_FALSE(plan_isolation(SysRoot(fixture("cgroup1-hybrid")), request_for(bad, "1")).ok())
        << bad;
  }
}

TEST(IsolationPlan, JsonRoundTripAndRejectsEscapingPaths) {
  auto plan = plan_isolation(SysRoot(fixture("cgroup2-host")), request_for("win10", "4-7")).value();
  auto back = plan_from_json(plan_to_json(plan));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(plan_to_json(*back), plan_to_json(plan));
  auto j = plan_to_json(plan);
  j["actions"][0]["path"] = "/sys/../../etc/shadow";
  EXPECT_FALSE(plan_from_json(j).ok());
  j["actions"][0]["path"] = 5;
  EXPECT_FALSE(plan_from_json(j).ok());
}

TEST(IsolationApply, RoundTripRestoresEveryFile) {
  ScratchRoot scratch("cgroup2-host");
  SysRoot root = scratch.root();
  auto plan = plan_isolation(root, request_for("win10", "4-7")).value();
  auto applied = apply_isolation(root, plan);
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  EXPECT_TRUE(applied->failures.empty());
  EXPECT_EQ(applied->done.size(), plan.actions.size());
  EXPECT_EQ(scratch.read("/sys/fs/cgroup/system.slice/cpuset.cpus"), "0-3");
  EXPECT_EQ(scratch.read("/sys/fs/cgroup/init.scope/cpuset.cpus"), "0-3");
  EXPECT_EQ(scratch.read("/proc/irq/26/smp_affinity_list"), "0-3");
  EXPECT_EQ(scratch.read("/proc/irq/default_smp_affinity"), "f");
  EXPECT_EQ(scratch.read("/sys/devices/system/cpu/cpu5/cpufreq/scaling_governor"), "performance");
  ASSERT_TRUE(has_undo_record(root, "win10"));
  auto record = read_undo_record(root, "win10");
  ASSERT_TRUE(record.ok()) << record.error().message;
  EXPECT_EQ(record->actions.size(), plan.actions.size());

  auto released = release_isolation(root, "win10");
  ASSERT_TRUE(released.ok()) << released.error().message;
  EXPECT_TRUE(released->failures.empty());
  EXPECT_EQ(released->done.size(), plan.actions.size());
  EXPECT_FALSE(has_undo_record(root, "win10"));
  EXPECT_EQ(scratch.read("/sys/fs/cgroup/system.slice/cpuset.cpus"), "");
  EXPECT_EQ(scratch.read("/sys/fs/cgroup/init.scope/cpuset.cpus"), "0-7");
  EXPECT_EQ(scratch.read("/proc/irq/24/smp_affinity_list"), "0-7");
  EXPECT_EQ(scratch.read("/proc/irq/26/smp_affinity_list"), "6");
  EXPECT_EQ(scratch.read("/proc/irq/default_smp_affinity"), "ff");
  EXPECT_EQ(scratch.read("/sys/devices/system/cpu/cpu5/cpufreq/scaling_governor"), "schedutil");
  // Releasing again is a no-op, not an error (libvirt calls release once per stop).
  auto again = release_isolation(root, "win10");
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->done.empty());
}

TEST(IsolationApply, FailedWritesAreReportedAndLeftOutOfTheRecord) {
  ScratchRoot scratch("cgroup2-host");
  SysRoot root = scratch.root();
  auto plan = plan_isolation(root, request_for("win10", "4-7")).value();
  // IRQ 25 vanishes between plan and apply (a driver unloaded).
  fs::remove_all(scratch.dir() / "proc/irq/25");
  auto applied = apply_isolation(root, plan);
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  ASSERT_EQ(applied->failures.size(), 1u);
  EXPECT_NE(applied->failures[0].find("/proc/irq/25/smp_affinity_list"), std::string::npos);
  auto record = read_undo_record(root, "win10").value();
  EXPECT_EQ(record.actions.size(), plan.actions.size() - 1);
  EXPECT_EQ(find_action(record, "/proc/irq/25/smp_affinity_list"), nullptr);
  // IRQ 26 vanishes while the guest runs: release notes it and still removes the record.
  fs::remove_all(scratch.dir() / "proc/irq/26");
  auto released = release_isolation(root, "win10").value();
  EXPECT_TRUE(released.failures.empty());
  EXPECT_FALSE(has_undo_record(root, "win10"));
  EXPECT_EQ(scratch.read("/proc/irq/24/smp_affinity_list"), "0-7");
}

TEST(IsolationApply, LeftoverRecordIsReleasedBeforeApplyingAgain) {
  ScratchRoot scratch("cgroup2-host");
  SysRoot root = scratch.root();
  auto first = plan_isolation(root, request_for("win10", "4-7")).value();
  ASSERT_TRUE(apply_isolation(root, first).ok());
  // The guest crashed: no release. The next start plans from the isolated state...
  auto second = plan_isolation(root, request_for("win10", "6-7")).value();
  auto applied = apply_isolation(root, second);
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  ASSERT_FALSE(applied->notes.empty());
  EXPECT_NE(applied->notes[0].find("leftover record"), std::string::npos);
  // ...and one release still brings back the original values of the first record.
  ASSERT_TRUE(release_isolation(root, "win10").ok());
  EXPECT_EQ(scratch.read("/sys/fs/cgroup/init.scope/cpuset.cpus"), "0-7");
  EXPECT_EQ(scratch.read("/sys/devices/system/cpu/cpu4/cpufreq/scaling_governor"), "schedutil");
  EXPECT_EQ(scratch.read("/proc/irq/24/smp_affinity_list"), "0-7");
}

TEST(Hook, OperationsMapToActions) {
  EXPECT_EQ(hook_action_for("prepare", false), HookAction::kApply);
  EXPECT_EQ(hook_action_for("start", false), HookAction::kApply);
  EXPECT_EQ(hook_action_for("start", true), HookAction::kNone);
  EXPECT_EQ(hook_action_for("release", true), HookAction::kRelease);
  EXPECT_EQ(hook_action_for("started", false), HookAction::kNone);
  EXPECT_EQ(hook_action_for("migrate", false), HookAction::kNone);
}

TEST(Hook, UnregisteredDomainIsLeftAlone) {
  ScratchRoot scratch("cgroup2-host");
  HookRequest req{"other-vm", "prepare", "", "", scratch.dir(), false, ""};
  auto out = run_hook(req);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->action, HookAction::kNone);
  EXPECT_NE(out->reason.find("no layout registered"), std::string::npos);
  EXPECT_EQ(scratch.read("/proc/irq/24/smp_affinity_list"), "0-7");
}

TEST(Hook, DryRunPrintsThePlanAndChangesNothing) {
  ScratchRoot scratch("cgroup2-host");
  HookRequest req{"win10", "prepare", "", "4-7", scratch.dir(), true, ""};
  auto out = run_hook(req);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->action, HookAction::kApply);
  ASSERT_TRUE(out->plan.has_value());
  EXPECT_EQ(out->plan->actions.size(), 10u);
  EXPECT_FALSE(out->report.has_value());
  EXPECT_FALSE(has_undo_record(scratch.root(), "win10"));
  EXPECT_EQ(scratch.read("/proc/irq/24/smp_affinity_list"), "0-7");
  auto j = outcome_to_json(*out);
  EXPECT_EQ(j["action"], "apply");
  EXPECT_EQ(j["dry_run"], true);
  EXPECT_EQ(j["plan"]["housekeeping_cpus"], "0-3");
}

TEST(Hook, RegisteredLayoutGivesTheGuestCpus) {
  ScratchRoot scratch("cgroup2-host");
  HookRequest req{"win10", "prepare", "", "", scratch.dir(), false, ""};
  auto out = run_hook(req);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->action, HookAction::kApply);
  EXPECT_EQ(out->plan->guest_cpus.to_string(), "4-7");
  EXPECT_NE(out->reason.find("etc/topolab/layouts/win10.toml"), std::string::npos) << out->reason;
  EXPECT_EQ(scratch.read("/sys/fs/cgroup/system.slice/cpuset.cpus"), "0-3");
  HookRequest rel{"win10", "release", "", "", scratch.dir(), false, ""};
  ASSERT_TRUE(run_hook(rel).ok());
  EXPECT_EQ(scratch.read("/sys/fs/cgroup/system.slice/cpuset.cpus"), "");
  EXPECT_FALSE(has_undo_record(scratch.root(), "win10"));
}

TEST(Hook, PrepareThenStartThenRelease) {
  ScratchRoot scratch("cgroup2-host");
  auto run = [&](const std::string& op) {
    HookRequest req{"win10", op, "", "4-7", scratch.dir(), false, ""};
    return run_hook(req).value();
  };
  EXPECT_EQ(run("prepare").action, HookAction::kApply);
  EXPECT_EQ(scratch.read("/proc/irq/24/smp_affinity_list"), "0-3");
  EXPECT_EQ(run("start").action, HookAction::kNone);  // prepare already did it
  auto rel = run("release");
  EXPECT_EQ(rel.action, HookAction::kRelease);
  ASSERT_TRUE(rel.report.has_value());
  EXPECT_EQ(rel.report->done.size(), 10u);
  EXPECT_EQ(scratch.read("/proc/irq/24/smp_affinity_list"), "0-7");
  EXPECT_EQ(run("release").action, HookAction::kNone);
}

TEST(Hook, SnippetCallsTheBinaryOnlyForOurOperations) {
  auto s = hook_snippet("/usr/local/bin/topolab");
  EXPECT_EQ(s.rfind("#!/bin/sh\n", 0), 0u);
  EXPECT_NE(s.find("'/usr/local/bin/topolab' hook \"$1\" \"$2\""), std::string::npos);
  // Fails closed: a failed prepare/start stops the guest from starting unisolated
  // (issue 12: a layout toml++ could not read let the VM start without isolation).
  const auto prepare = s.find("  prepare|start)\n");
  const auto release = s.find("  release)\n");
  ASSERT_NE(prepare, std::string::npos);
  ASSERT_NE(release, std::string::npos);
  EXPECT_NE(s.substr(prepare, release - prepare).find("2>&1 || exit 1\n"), std::string::npos);
  EXPECT_NE(s.substr(release).find("2>&1 || true\n"), std::string::npos);
}

// The snippet run by sh with a stand-in binary that fails: prepare exits 1, release 0.
TEST(Hook, SnippetFailsClosedAtPrepareAndNeverBlocksRelease) {
  char tmpl[] = "/tmp/topolab-snippet-XXXXXX";
  const std::filesystem::path dir = mkdtemp(tmpl);
  const auto fake = dir / "fails";
  {
    std::ofstream f(fake);
    f << "#!/bin/sh\nexit 1\n";
  }
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  std::string s = hook_snippet(fake);
  // Keep the test out of /var/log.
  const std::string log = "/var/log/topolab-hook.log";
  s.replace(s.find(log), log.size(), (dir / "hook.log").string());
  s.replace(s.find(log), log.size(), (dir / "hook.log").string());
  {
    std::ofstream f(dir / "qemu");
    f << s;
  }
  auto sh = [&](const std::string& op) {
    return testing::run_process({"/bin/sh", (dir / "qemu").string(), "win10", op, "begin", "-"})
        .status();
  };
  EXPECT_EQ(sh("prepare"), 1);
  EXPECT_EQ(sh("start"), 1);
  EXPECT_EQ(sh("release"), 0);
  EXPECT_EQ(sh("stopped"), 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace topolab::isolation
