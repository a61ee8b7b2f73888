// Every preset on every fixture host (and hand-made hosts), with three CPU restrictions each:
// where an L3-aligned placement exists the plan must satisfy every invariant; where none exists
// (checked independently here) the planner must refuse, naming the level.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "orchestrator/model/layout/layout.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"
#include "tests/orchestrator/planning/placement/fixture_hosts.hpp"

namespace topolab {
namespace {

using testing::all_hosts;

CpuList usable_cpus(const Layout& l, const HostTopology& h) {
  CpuList u = h.online_cpus();
  if (l.host_cpus) u = u.intersected(*l.host_cpus);
  if (l.housekeeping_cpus) u = u.minus(*l.housekeeping_cpus);
  return u;
}

// Independent of the planner: does an L3-aligned placement exist?
bool l3_aligned_feasible(const Layout& l, const HostTopology& h) {
  if (h.l3_domains.empty()) return false;
  const CpuList u = usable_cpus(l, h);
  std::map<int, std::set<int>> core_cpus;  // host core -> usable CPUs
  std::map<int, int> core_l3;
  for (const auto& c : h.cpus) {
    if (!c.online || !u.contains(c.id) || c.core < 0) continue;
    core_cpus[c.core].insert(c.id);
    core_l3[c.core] = c.l3;
  }
  std::map<int, int> per_l3;
  for (const auto& [core, cpus] : core_cpus) {
    if (static_cast<int>(cpus.size()) >= l.threads_per_core && core_l3[core] >= 0) {
      ++per_l3[core_l3[core]];
    }
  }
  int fitting = 0;
  for (const auto& [d, n] : per_l3) fitting += n >= l.cores_per_group;
  return fitting >= l.l3_groups;
}

void check_l3_aligned_plan(const Layout& l, const HostTopology& h, const PlacementPlan& p) {
  ASSERT_EQ(static_cast<int>(p.vcpus.size()), l.vcpu_count());
  ASSERT_EQ(static_cast<int>(p.groups.size()), l.l3_groups);
  EXPECT_EQ(p.topology.vcpus(), l.vcpu_count());
  const CpuList usable = usable_cpus(l, h);
  std::set<int> used_cpus, used_l3;
  std::map<int, std::pair<int, int>> host_core_owner;  // host core -> (group, guest core)
  std::map<std::pair<int, int>, std::set<int>> guest_core_host_cores;
  const int t = l.threads_per_core;
  for (int i = 0; i < l.vcpu_count(); ++i) {
    const auto& v = p.vcpus[static_cast<std::size_t>(i)];
    ASSERT_EQ(v.vcpu, i);
    // QEMU numbering: threads fastest, then cores, then groups.
    EXPECT_EQ(v.thread, i % t);
    EXPECT_EQ(v.core, (i / t) % l.cores_per_group);
    EXPECT_EQ(v.group, i / (t * l.cores_per_group));
    ASSERT_EQ(v.host_cpus.size(), 1u) << "pinned to exactly one CPU";
    const int cpu = v.host_cpus.first();
    EXPECT_TRUE(used_cpus.insert(cpu).second) << "CPU " << cpu << " used twice";
    EXPECT_TRUE(usable.contains(cpu)) << "CPU " << cpu << " outside usable " << usable.to_string();
    const CpuInfo* info = h.cpu(cpu);
    ASSERT_NE(info, nullptr);
    EXPECT_TRUE(info->online);
    // Group inside its one host L3 domain.
    const auto& g = p.groups[static_cast<std::size_t>(v.group)];
    ASSERT_GE(g.host_l3, 0);
    EXPECT_EQ(info->l3, g.host_l3);
    EXPECT_TRUE(h.l3_domains[static_cast<std::size_t>(g.host_l3)].cpus.contains(cpu));
    // No host core split between two guest cores.
    auto owner = std::make_pair(v.group, v.core);
    auto [it, fresh] = host_core_owner.emplace(info->core, owner);
    EXPECT_TRUE(fresh || it->second == owner) << "host core " << info->core << " split";
    guest_core_host_cores[owner].insert(info->core);
  }
  // Guest SMT siblings on one host core's siblings.
  for (const auto& [guest_core, host_cores] : guest_core_host_cores) {
    EXPECT_EQ(host_cores.size(), 1u) << "guest core " << guest_core.first << "/"
                                     << guest_core.second << " spread over host cores";
  }
  for (const auto& g : p.groups) {
    EXPECT_TRUE(used_l3.insert(g.host_l3).second) << "two groups on host L3 " << g.host_l3;
  }
  // Emulator threads never on the guest's CPUs unless a warning says so.
  bool warned = false;
  for (const auto& w : p.warnings) warned = warned || w.find("emulator") != std::string::npos;
  if (!warned) {
    for (int c : p.emulator_cpus) EXPECT_FALSE(used_cpus.count(c)) << "emulator on vCPU CPU " << c;
  }
  if (l.housekeeping_cpus) {
    EXPECT_TRUE(p.emulator_cpus.is_subset_of(*l.housekeeping_cpus));
  }
}

std::vector<std::pair<std::string, Layout>> restriction_variants(const Layout& base,
                                                                 const HostTopology& h) {
  std::vector<std::pair<std::string, Layout>> out;
  out.emplace_back("whole host", base);
  const CpuList online = h.online_cpus();
  const CpuInfo* first = h.cpu(online.first());
  Layout hk = base;
  hk.housekeeping_cpus = first->siblings.empty() ? CpuList{first->id} : first->siblings;
  out.emplace_back("housekeeping " + hk.housekeeping_cpus->to_string(), hk);
  Layout half = base;
  std::vector<int> ids(online.ids().begin() + static_cast<long>(online.size() / 2),
                       online.ids().end());
  half.host_cpus = CpuList::from_vector(ids);
  out.emplace_back("host_cpus " + half.host_cpus->to_string(), half);
  return out;
}

TEST(PlacementInvariants, EveryPresetOnEveryHost) {
  const auto hosts = all_hosts();
  ASSERT_GE(hosts.size(), 14u) << "fixtures missing? " << TOPOLAB_FIXTURES_DIR;
  int planned = 0, refused = 0;
  for (const auto& preset : preset_names()) {
    auto base = load_layout_or_preset(preset);
    ASSERT_TRUE(base) << base.error().message;
    base->memory_mib = 256;  // memory is checked in its own tests
    for (const auto& [name, host] : hosts) {
      for (const auto& [what, layout] : restriction_variants(*base, host)) {
        SCOPED_TRACE(preset + " on " + name + " (" + what + ")");
        auto plan = plan_placement(layout, host);
        const bool feasible = l3_aligned_feasible(layout, host);
        ASSERT_EQ(plan.ok(), feasible)
            << (plan ? "planned an infeasible layout" : plan.error().message);
        if (plan) {
          ++planned;
          check_l3_aligned_plan(layout, host, *plan);
          continue;
        }
        ++refused;
        const auto& m = plan.error().message;
        const bool named = m.find("no L3 domains") != std::string::npos ||
                           m.find("SMT requested") != std::string::npos ||
                           m.find("L3 groups requested") != std::string::npos ||
                           m.find("larger than any host L3 domain") != std::string::npos ||
                           m.find("L3 groups of") != std::string::npos;
        EXPECT_TRUE(named) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos);
      }
    }
  }
  EXPECT_GT(planned, 20);
  EXPECT_GT(refused, 20);
  RecordProperty("planned", planned);
  RecordProperty("refused", refused);
}

TEST(PlacementInvariants, FixtureHostsAreRead) {
  std::set<std::string> names;
  for (const auto& h : testing::fixture_hosts()) names.insert(h.name);
  for (const char* want : {"x86_64-epyc_7451", "48amd64-4pa2n6c-sparse", "32intel64-2p8co2t+8ve",
                           "16amd64-8n2c", "offline-cpu0-node0"}) {
    EXPECT_TRUE(names.count(want)) << want;
  }
}

TEST(PlacementInvariants, OtherPinnedPoliciesKeepCoresWholeAndDistinct) {
  for (const auto& [name, host] : all_hosts()) {
    for (auto policy : {PlacementPolicy::kCompact, PlacementPolicy::kScatter}) {
      for (const auto& preset : {"ryzen-1700x", "opteron-6140", "flat-8"}) {
        SCOPED_TRACE(std::string(preset) + " " + to_string(policy) + " on " + name);
        auto l = *load_layout_or_preset(preset);
        l.memory_mib = 256;
        l.policy = policy;
        auto plan = plan_placement(l, host);
        if (!plan) {
          const auto& m = plan.error().message;
          EXPECT_TRUE(m.find("whole core") != std::string::npos ||
                      m.find("SMT requested") != std::string::npos)
              << m;
          continue;
        }
        std::set<int> cpus;
        std::map<int, int> host_core_to_guest;
        for (const auto& v : plan->vcpus) {
          ASSERT_EQ(v.host_cpus.size(), 1u);
          EXPECT_TRUE(cpus.insert(v.host_cpus.first()).second);
          const CpuInfo* info = host.cpu(v.host_cpus.first());
          ASSERT_TRUE(info && info->online);
          const int guest_core = v.group * l.cores_per_group + v.core;
          auto [it, fresh] = host_core_to_guest.emplace(info->core, guest_core);
          EXPECT_TRUE(fresh || it->second == guest_core);
        }
      }
    }
  }
}

}  // namespace
}  // namespace topolab
