// The host backend's core-to-core classes (issue 26): the benchmark ran on the host, so its CPU
// ids are host CPUs and both views are the host's: a real c2c-latency run on this machine's
// CPUs 0 and 1 through the runner, then the report's views of the stored matrix.
#include <gtest/gtest.h>

#include "host/cpu_pair_class.hpp"
#include "host/topology_json.hpp"
#include "orchestrator/results/report/c2c_class_table.hpp"
#include "orchestrator/results/report/report_data.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "orchestrator/run/experiment/host_backend.hpp"
#include "tests/orchestrator/run/experiment/store_run.hpp"

namespace topolab::report {
namespace {

class C2cHostBackend : public experiment::StoreRunTest {};

TEST_F(C2cHostBackend, BothViewsAreTheHostsClassOfTheMeasuredPair) {
  auto e = parse(R"(
name = "c2c-host"
backend = "host"
repetitions = 1
[[benchmark]]
name = "c2c-latency"
params = { cpus = "0-1", iterations = 2000, repeats = 1 }
)");
  experiment::HostBackend backend(TOPOLAB_AGENT);
  auto s = run_with(e, backend);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->runs_executed, 1);
  auto store = store::ResultStore::open_read_only(store_path());
  ASSERT_TRUE(store.ok());
  auto data = load_report(**store, "c2c-host");
  ASSERT_TRUE(data.ok()) << data.error().message;
  ASSERT_EQ(data->matrices.size(), 1u);
  const LatencyMatrix& m = data->matrices[0];
  EXPECT_TRUE(m.cpus_are_host_cpus);
  // The class the stored host topology gives CPUs 0 and 1 (this machine's, read by the run).
  auto host = topology_from_json(m.host_topology);
  ASSERT_TRUE(host.ok()) << host.error().message;
  const std::string want(to_string(classify_cpu_pair(*host, 0, 1)));
  const C2cViews v = c2c_views(m);
  EXPECT_EQ(v.host_view_missing, "");
  ASSERT_EQ(v.guest_view.size(), 1u);
  ASSERT_EQ(v.host_view.size(), 1u);
  EXPECT_EQ(v.guest_view[0].name, want);
  EXPECT_EQ(v.host_view[0].name, want);
  EXPECT_NE(want, "unknown");
  EXPECT_EQ(v.host_view[0].pairs, 1u);
  EXPECT_GT(v.host_view[0].min_ns, 0.0);
}

}  // namespace
}  // namespace topolab::report
