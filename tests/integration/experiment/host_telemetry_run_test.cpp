// Issue 26 item 2 on a real TCG guest (built-in image, 2 vCPUs): compact vs unpinned, sqrt on 2
// threads. Each stored run carries the host's samples of where each vCPU thread ran: under
// compact (each vCPU pinned to one host CPU) no vCPU changed host CPU; under unpinned the
// counts are present (and whatever the scheduler did is counted, bounded by the samples).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/owned_fd.hpp"
#include "common/process.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "protocol/benchmark_result.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// `topolab args...` with stdout/stderr to files (no shell); its exit status.
int run_cli(const std::vector<std::string>& args, const fs::path& out, const fs::path& err) {
  ProcessSpec spec({TOPOLAB_CLI});
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  OwnedFd o(open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  OwnedFd e(open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  spec.out = Sink::to_fd(o.get());
  spec.err = Sink::to_fd(e.get());
  auto p = Process::spawn(spec);
  if (!p) return -1;
  return p->wait(std::chrono::minutes(10)).status.shell_status();
}

TEST(HostTelemetryRun, PinnedVcpusNeverMoveAndUnpinnedOnesAreCounted) {
  char tmpl[] = "/tmp/topolab-it-hosttel-XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  const fs::path db = dir / "policies.db";
  const std::string experiment =
      std::string(TOPOLAB_TESTS_DIR) + "/integration/experiment/data/two-policies.toml";
  ASSERT_EQ(run_cli({"run", experiment, "--store", db.string(), "--accel", "tcg", "--json"},
                    dir / "run.out", dir / "run.err"),
            0)
      << slurp(dir / "run.err");

  auto store = store::ResultStore::open_read_only(db);
  ASSERT_TRUE(store.ok()) << store.error().message;
  auto exps = (*store)->experiments();
  ASSERT_TRUE(exps.ok() && exps->size() == 1u);
  auto cells = (*store)->cells((*exps)[0].id);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 2u);
  int checked = 0;
  for (const auto& c : *cells) {
    const bool compact = c.cell.label.find("compact") != std::string::npos;
    auto runs = (*store)->runs(c.id);
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs->size(), 2u) << c.cell.label;
    for (const auto& r : *runs) {
      // Read back through the one validator, as the report does.
      auto valid = protocol::validate_result(r.result);
      ASSERT_TRUE(valid.ok()) << valid.error().message;
      ASSERT_TRUE(valid->host_telemetry) << r.result.dump();
      const auto& h = *valid->host_telemetry;
      ASSERT_TRUE(h.sampled) << h.not_sampled;
      EXPECT_GE(h.samples, 2u) << r.result["host_telemetry"].dump();
      EXPECT_EQ(h.interval_ms, 100);
      ASSERT_EQ(h.vcpus.size(), 2u) << r.result["host_telemetry"].dump();
      for (const auto& v : h.vcpus) {
        EXPECT_EQ(v.pinned, compact) << c.cell.label;
        EXPECT_EQ(v.samples, h.samples);  // every tick read both vCPUs
        EXPECT_EQ(v.unknown_cpu_samples, 0u);
        // One host L3 here: every sample on it, and no crossing is possible.
        EXPECT_EQ(v.vcpu_host_l3_crossings, 0u);
        ASSERT_EQ(v.l3_share.size(), 1u);
        EXPECT_DOUBLE_EQ(v.l3_share.begin()->second, 1.0);
        if (compact) {
          EXPECT_EQ(v.vcpu_host_cpu_changes, 0u) << r.result["host_telemetry"].dump();
        } else {
          EXPECT_LE(v.vcpu_host_cpu_changes, v.samples - 1);
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 8);  // 2 cells x 2 runs x 2 vCPUs

  // The report: per row the median per vCPU in the telemetry object, and the text table.
  ASSERT_EQ(run_cli({"report", db.string(), "--format", "json"}, dir / "rep.out", dir / "rep.err"),
            0)
      << slurp(dir / "rep.err");
  auto report = nlohmann::json::parse(slurp(dir / "rep.out"));
  ASSERT_EQ(report["rows"].size(), 2u);
  for (const auto& row : report["rows"]) {
    const auto& t = row["telemetry"];
    ASSERT_TRUE(t["vcpu_host_cpu_changes"].is_number()) << t.dump();
    ASSERT_TRUE(t["vcpu_host_l3_crossings"].is_number()) << t.dump();
    EXPECT_EQ(t["host_sampled_runs"], 2);
    ASSERT_EQ(t["host_vcpus"].size(), 2u) << t.dump();
    if (row["factors"]["policy"] == "compact") {
      EXPECT_EQ(t["vcpu_host_cpu_changes"], 0.0);
    }
  }
  ASSERT_EQ(run_cli({"report", db.string()}, dir / "table.out", dir / "table.err"), 0);
  EXPECT_NE(slurp(dir / "table.out").find("vcpu_chg"), std::string::npos)
      << slurp(dir / "table.out");
  ASSERT_EQ(run_cli({"report", db.string(), "--format", "html", "-o", (dir / "r.html").string()},
                    dir / "html.out", dir / "html.err"),
            0);
  EXPECT_NE(slurp(dir / "r.html").find("Host L3 share of unpinned vCPUs"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace topolab
