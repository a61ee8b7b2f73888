// The topology Windows reports (GetLogicalProcessorInformationEx, passed through by wine from
// this Linux host) equals what `topolab host --sysfs /` reads from sysfs: same packages, cores
// with their SMT siblings, L3 domains and NUMA nodes, as CPU sets.
#include <gtest/gtest.h>

#include <set>

#include "host/topology_json.hpp"
#include "tests/guest-agent/windows/wine_agent.hpp"

namespace topolab {
namespace {

using namespace testing;
using nlohmann::json;

const auto* const kWine = ::testing::AddGlobalTestEnvironment(new WineEnvironment);

HostTopology parse(const std::string& text, const char* who) {
  json j = json::parse(text, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << who << " printed no JSON:\n" << text.substr(0, 2000);
  auto t = topology_from_json(j);
  EXPECT_TRUE(t.ok()) << who << ": " << (t.ok() ? "" : t.error().message);
  return t.ok() ? *t : HostTopology{};
}

template <typename Items, typename Get>
std::set<std::string> cpu_sets(const Items& items, Get get) {
  std::set<std::string> out;
  for (const auto& i : items) out.insert(get(i).to_string());
  return out;
}

TEST(WindowsAgentUnderWine, TopologyEqualsTheHostSysfs) {
  TOPOLAB_REQUIRE_WINE();
  auto win = run_wine_agent({"topology", "--json"});
  ASSERT_EQ(win.status(), 0) << win.err;
  auto linux_run = run_process({TOPOLAB_CLI, "host", "--sysfs", "/", "--json"}, 60s);
  ASSERT_EQ(linux_run.status(), 0) << linux_run.err;
  HostTopology w = parse(win.out, "topolab-agent.exe topology --json");
  HostTopology l = parse(linux_run.out, "topolab host --sysfs / --json");
  EXPECT_EQ(w.source, "windows:GetLogicalProcessorInformationEx");
  EXPECT_EQ(w.online_cpus(), l.online_cpus());
  auto pkg = [](const Package& p) { return p.cpus; };
  auto l3 = [](const L3Domain& d) { return d.cpus; };
  auto node = [](const NumaNode& n) { return n.cpus; };
  auto same = [](const CpuList& c) { return c; };
  EXPECT_EQ(cpu_sets(w.packages, pkg), cpu_sets(l.packages, pkg));
  EXPECT_EQ(cpu_sets(w.cores(), same), cpu_sets(l.cores(), same));
  EXPECT_EQ(cpu_sets(w.l3_domains, l3), cpu_sets(l.l3_domains, l3));
  EXPECT_EQ(cpu_sets(w.numa_nodes, node), cpu_sets(l.numa_nodes, node));
  for (const auto& c : l.cpus) {
    if (!c.online) continue;
    const CpuInfo* wc = w.cpu(c.id);
    ASSERT_NE(wc, nullptr) << "CPU " << c.id << " missing from the Windows view";
    EXPECT_EQ(wc->siblings, c.siblings) << "SMT siblings of CPU " << c.id;
  }
  EXPECT_EQ(w.has_smt(), l.has_smt());
  EXPECT_EQ(w.vendor, l.vendor);  // CPUID vendor vs /proc/cpuinfo vendor_id
}

}  // namespace
}  // namespace topolab
