// Issue 18 acceptance for `topolab report A.db B.db`: real stores written by `topolab run` with
// the host backend (the agent on this machine, no guest). sqrt with n and with 4n is reported
// slower with a significant verdict; a store compared with a copy of itself is not significant.
// Issue 27 acceptance: with 10 repetitions per side the 4n side is `worse` with p < 0.01 after
// the Holm correction over the rows.
// Whether two *live* runs of one configuration differ is the machine's load, not our code: that
// statistical property is tested on fixed samples (Compare.SameConfigurationIsNotSignificant).
// Every format and --compare / --compare-experiment are exercised through the CLI.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/exit_code.hpp"
#include "tests/support/child_process.hpp"

namespace topolab::report {
namespace {

namespace fs = std::filesystem;

class CompareCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/topolab-compare-cli-XXXXXX";
    dir_ = mkdtemp(tmpl);
    // A and B take turns, two repetitions each per round (a resumed run adds the repetitions
    // it lacks), so a change of load on this shared machine falls on both alike; run one after
    // the other, a load change between them could look like a difference or hide one.
    for (int reps = 2; reps <= 10 && ok_; reps += 2)
      ok_ = run("n", 400000, "a.db", reps) && run("n4", 1600000, "b.db", reps);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  // One host-backend experiment: sqrt, 1 and 2 threads, `reps` repetitions.
  static bool run(const std::string& name, int n, const std::string& store, int reps) {
    const fs::path file = dir_ / (store + ".toml");
    std::ofstream(file) << "name = \"sqrt-" << name << "\"\nbackend = \"host\"\nrepetitions = 2\n"
                        << "seed = 1\n[factors]\n\"param.sqrt.threads\" = [1, 2]\n"
                        << "[[benchmark]]\nname = \"sqrt\"\nparams = { n = " << n
                        << ", repeats = 3 }\n";
    auto o = testing::run_cli({"run", file.string(), "--store", (dir_ / store).string(), "--agent",
                               TOPOLAB_AGENT, "--repetitions", std::to_string(reps), "-q"},
                              std::chrono::minutes(4));
    if (o.exit_code != 0) ADD_FAILURE() << "run into " << store << ": " << o.err;
    return o.exit_code == 0;
  }

  static nlohmann::json compare_json(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"report"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("--json");
    auto o = testing::run_cli(args, std::chrono::minutes(1));
    EXPECT_EQ(o.exit_code, 0) << o.err;
    auto j = nlohmann::json::parse(o.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << o.out;
    return j;
  }

  static std::string db(const char* name) { return (dir_ / name).string(); }
  static inline fs::path dir_;
  static inline bool ok_ = true;
};

TEST_F(CompareCli, FourTimesTheWorkIsSlowerAndSignificant) {
  ASSERT_TRUE(ok_);
  auto j = compare_json({db("a.db"), db("b.db")});
  ASSERT_EQ(j["rows"].size(), 2u) << j.dump(2);
  for (const auto& r : j["rows"]) {
    EXPECT_GT(r["delta_pct"].get<double>(), 0) << r.dump();  // B slower: the sign is right
    EXPECT_GT(r["delta_ci"][0].get<double>(), 0) << r.dump();
    EXPECT_LT(r["p_value"].get<double>(), 0.05) << r.dump();
    EXPECT_LT(r["p_adjusted"].get<double>(), 0.01) << r.dump();
    EXPECT_EQ(r["values_a"].size(), 10u) << r.dump();
    EXPECT_EQ(r["verdict"], "worse") << r.dump();
  }
  EXPECT_EQ(j["a"]["context"]["accelerator"], "host");
  EXPECT_FALSE(j["emulated"].get<bool>());
  EXPECT_TRUE(j["only_a"].empty());
}

// A store compared with an exact copy of itself: identical samples are never significant and
// the difference is exactly zero. Two live runs of one configuration are not compared here: on
// this shared machine (CI: ctest -j2, other stages, ASan) their difference is the load's (seen:
// +1.24 % significant at alpha 0.01 under ASan, +58 % beside a parallel build), so any bound on
// it is a timing assertion, which belongs in a benchmark.
TEST_F(CompareCli, AStoreComparedWithItsCopyIsNotSignificant) {
  ASSERT_TRUE(ok_);
  fs::copy_file(dir_ / "a.db", dir_ / "a-copy.db", fs::copy_options::overwrite_existing);
  auto j = compare_json({db("a.db"), "--compare", db("a-copy.db"), "--alpha", "0.01"});
  ASSERT_EQ(j["rows"].size(), 2u) << j.dump(2);
  for (const auto& r : j["rows"]) {
    EXPECT_EQ(r["verdict"], "not_significant") << r.dump();
    EXPECT_EQ(r["delta_pct"].get<double>(), 0.0) << r.dump();
    EXPECT_EQ(r["values_a"], r["values_b"]) << r.dump();
    EXPECT_EQ(r["values_a"].size(), 10u) << r.dump();  // 5 rounds x 2 repetitions, all kept
  }
}

TEST_F(CompareCli, EveryFormatAndOneSidedCellsThroughTheCli) {
  ASSERT_TRUE(ok_);
  for (const char* format : {"table", "csv", "html"}) {
    auto o = testing::run_cli({"report", db("a.db"), db("b.db"), "--format", format},
                              std::chrono::minutes(1));
    EXPECT_EQ(o.exit_code, 0) << format << ": " << o.err;
    EXPECT_NE(o.out.find("worse"), std::string::npos) << format << "\n" << o.out;
    if (std::string(format) != "csv") {  // CSV rows carry values only; the others say how
      EXPECT_NE(o.out.find("Mann-Whitney"), std::string::npos) << format;
    }
  }
  // Different experiment names are compared cell by cell: the cells match by label.
  auto j = compare_json(
      {db("a.db"), db("b.db"), "--experiment", "sqrt-n", "--compare-experiment", "sqrt-n4"});
  EXPECT_EQ(j["rows"].size(), 2u);
  auto same = testing::run_cli({"report", db("a.db"), "--compare-experiment", "sqrt-n"},
                               std::chrono::minutes(1));
  EXPECT_EQ(same.exit_code, to_int(ExitCode::data_error));
  EXPECT_NE(same.err.find("same experiment"), std::string::npos) << same.err;
  auto twice = testing::run_cli({"report", db("a.db"), db("b.db"), "--compare", db("b.db")},
                                std::chrono::minutes(1));
  EXPECT_EQ(twice.exit_code, to_int(ExitCode::data_error));
  EXPECT_NE(twice.err.find("give store B once"), std::string::npos) << twice.err;
  auto missing =
      testing::run_cli({"report", db("a.db"), db("nothing.db")}, std::chrono::minutes(1));
  EXPECT_EQ(missing.exit_code, to_int(ExitCode::no_input));  // a missing store B
  EXPECT_NE(missing.err.find("nothing.db"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace topolab::report
