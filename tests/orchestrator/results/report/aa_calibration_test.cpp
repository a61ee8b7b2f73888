// Issue 27 acceptance: examples/aa-calibration.toml on the host backend (20 cells x 10
// repetitions of one unchanged configuration): at least 95 % of its verdicts are
// not_significant, in the report a user would read (topolab run, then topolab report --json).
//
// Why one false finding is allowed: the runs of all 20 cells are one shuffled order, so the
// cells are exchangeable and each rank test's p is uniform under the null. Holm holds the chance
// of ANY false finding among the 19 at <= 5 %, so 19 of 19 is what 19 runs in 20 give: a test
// demanding it fails one CI run in twenty by design (it did, 2026-12-02: replicate 15 `worse`,
// p_adj 0.029). Two or more false findings need the two smallest of 19 uniform p below 0.05/19
// and 0.05/18, about 0.1 % of runs (more, as all 19 share replicate 1, but rare); a report whose
// correction or pairing broke gives them regularly (uncorrected: about one false finding per run,
// docs/reports.md "Verdicts").
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/child_process.hpp"

namespace topolab::report {
namespace {

namespace fs = std::filesystem;

TEST(AaCalibration, TwentyReplicatesOfOneConfigurationAreNotSignificant) {
  char tmpl[] = "/tmp/topolab-aa-XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  const std::string store = (dir / "aa.db").string();
  auto run =
      testing::run_cli({"run", std::string(TOPOLAB_SOURCE_DIR) + "/examples/aa-calibration.toml",
                        "--store", store, "--agent", TOPOLAB_AGENT, "-q"},
                       std::chrono::minutes(5));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto rep = testing::run_cli({"report", store, "--json"}, std::chrono::minutes(1));
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const auto j = nlohmann::json::parse(rep.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << rep.out;
  int verdicts = 0, not_significant = 0;
  std::string findings;
  for (const auto& r : j["rows"]) {
    EXPECT_EQ(r["n"], 10) << r.dump();
    if (r["verdict"] == "baseline") continue;
    ++verdicts;
    if (r["verdict"] == "not_significant")
      ++not_significant;
    else
      findings += r["cell"].get<std::string>() + ": " + r["verdict"].get<std::string>() +
                  " p_adj " + r["p_adjusted"].dump() + "\n";
  }
  ASSERT_EQ(verdicts, 19);
  EXPECT_EQ(j["verdicts"]["tested"], 19);
  std::printf("A/A: %d of %d verdicts not_significant\n%s", not_significant, verdicts,
              findings.c_str());
  EXPECT_GE(not_significant, verdicts - 1) << findings;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace topolab::report
