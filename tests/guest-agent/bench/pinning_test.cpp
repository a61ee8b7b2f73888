#include "guest-agent/bench/pinning.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <thread>

#include "guest-agent/bench/guest_topology.hpp"

namespace topolab::bench {
namespace {

// 2 packages x 2 L3 groups x 2 cores x 2 SMT threads; sibling ids split Linux-style (n, n+8).
HostTopology two_socket_smt() {
  HostTopology t;
  for (int id = 0; id < 16; ++id) {
    int core = id % 8;  // cores 0..7; L3 of core = core/2; package = core/4
    CpuInfo c;
    c.id = id;
    c.core = core;
    c.l3 = core / 2;
    c.package = core / 4;
    c.die = c.package;
    c.siblings = CpuList{core, core + 8};
    t.cpus.push_back(c);
  }
  for (int l3 = 0; l3 < 4; ++l3) {
    t.l3_domains.push_back({l3, CpuList{2 * l3, 2 * l3 + 1, 2 * l3 + 8, 2 * l3 + 9}, 16384});
  }
  return t;
}

TEST(Pinning, ParseModes) {
  EXPECT_EQ(*parse_pin_mode("scatter"), PinMode::kScatter);
  EXPECT_FALSE(parse_pin_mode("spread"));
}

TEST(Pinning, CompactFillsSmtSiblingsThenCoresThenGroups) {
  auto t = two_socket_smt();
  auto order = compact_order(CpuList::range(0, 15), &t);
  EXPECT_EQ(order, (std::vector<int>{0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15}));
}

TEST(Pinning, ScatterAlternatesPackagesAndL3GroupsBeforeSiblings) {
  auto t = two_socket_smt();
  auto order = scatter_order(CpuList::range(0, 15), &t);
  // L3 groups in order pkg0/l3 0, pkg1/l3 2, pkg0/l3 1, pkg1/l3 3; first threads first.
  ASSERT_EQ(order.size(), 16u);
  EXPECT_EQ(std::vector<int>(order.begin(), order.begin() + 4), (std::vector<int>{0, 4, 2, 6}));
  EXPECT_EQ(std::vector<int>(order.begin() + 4, order.begin() + 8), (std::vector<int>{1, 5, 3, 7}));
  EXPECT_EQ(std::vector<int>(order.begin() + 8, order.begin() + 12),
            (std::vector<int>{8, 12, 10, 14}));
}

TEST(Pinning, SelectRespectsAllowedSubsetAndWraps) {
  auto t = two_socket_smt();
  auto cpus = select_cpus(PinMode::kCompact, 3, CpuList{2, 3, 10}, &t);
  ASSERT_TRUE(cpus);
  EXPECT_EQ(*cpus, (std::vector<int>{2, 10, 3}));
  auto wrapped = select_cpus(PinMode::kList, 3, CpuList{5, 7}, nullptr);
  ASSERT_TRUE(wrapped);
  EXPECT_EQ(*wrapped, (std::vector<int>{5, 7, 5}));
  auto none = select_cpus(PinMode::kNone, 2, CpuList{5}, nullptr);
  EXPECT_EQ(*none, (std::vector<int>{-1, -1}));
  EXPECT_FALSE(select_cpus(PinMode::kCompact, 0, CpuList{0}, nullptr));
  EXPECT_FALSE(select_cpus(PinMode::kScatter, 1, CpuList{}, nullptr));
}

TEST(Pinning, NoTopologyMeansAscendingIds) {
  EXPECT_EQ(compact_order(CpuList{3, 1, 2}, nullptr), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(scatter_order(CpuList{3, 1, 2}, nullptr), (std::vector<int>{1, 2, 3}));
}

TEST(Pinning, PairClasses) {
  auto t = two_socket_smt();
  EXPECT_EQ(pair_class(&t, 0, 8), "smt");
  EXPECT_EQ(pair_class(&t, 0, 1), "same_l3");
  EXPECT_EQ(pair_class(&t, 0, 2), "other_l3");
  EXPECT_EQ(pair_class(&t, 0, 4), "other_package");
  EXPECT_EQ(pair_class(nullptr, 0, 1), "unknown");
}

// The calling thread's affinity as the kernel reports it (not what pin_current_thread says).
CpuList thread_affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(set), &set), 0);
  CpuList out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) out.insert(c);
  }
  return out;
}

TEST(Pinning, PinCurrentThreadToAllowedCpu) {
  CpuList allowed = allowed_cpus();
  ASSERT_FALSE(allowed.empty());
  // A thread of its own: the test process keeps its affinity for the tests after this one.
  std::thread([&] {
    ASSERT_TRUE(pin_current_thread(allowed.last()));
    EXPECT_EQ(thread_affinity(), CpuList{allowed.last()}) << "pinned to " << allowed.last();
    ASSERT_TRUE(pin_current_thread(allowed));
    EXPECT_EQ(thread_affinity(), allowed);
    ASSERT_TRUE(pin_current_thread(allowed.first()));
    EXPECT_TRUE(pin_current_thread(-1));  // no pin: the affinity stays as it was
    EXPECT_EQ(thread_affinity(), CpuList{allowed.first()});
  }).join();
  EXPECT_FALSE(resolve_cpus(CpuList{4000}));
}

}  // namespace
}  // namespace topolab::bench
