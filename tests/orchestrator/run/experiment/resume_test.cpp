// Experiment identity on resume (issue 12 class 5), through the real runner and the real agent on
// the host (backend "host"): an unchanged experiment resumes without work; a changed benchmark,
// parameter, level or layout under the same name is refused before anything is written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "orchestrator/model/layout/layout.hpp"
#include "orchestrator/run/experiment/host_backend.hpp"
#include "orchestrator/run/experiment/resume_check.hpp"
#include "orchestrator/run/experiment/runner.hpp"
#include "tests/orchestrator/run/experiment/store_run.hpp"

namespace topolab::experiment {
namespace {

using ::testing::HasSubstr;

class ResumeTest : public StoreRunTest {
 protected:
  Experiment parse(const std::string& text) { return StoreRunTest::parse(text, "resume.toml"); }

  Result<RunSummary> run(const Experiment& e) {
    HostBackend backend(TOPOLAB_AGENT);
    return run_with(e, backend);
  }

  // Rows of the store, to show a refused run wrote nothing.
  std::string snapshot() {
    auto s = store::ResultStore::open_read_only(store_path());
    if (!s) return s.error().message;
    std::string out;
    auto exps = (*s)->experiments();
    if (!exps) return exps.error().message;
    for (const auto& e : *exps) {
      out += e.spec.dump() + "\n";
      auto cells = (*s)->cells(e.id);
      if (!cells) return cells.error().message;
      for (const auto& c : *cells) {
        auto runs = (*s)->runs(c.id);
        out += c.cell.key + " " + c.status + " " + std::to_string(runs ? runs->size() : 0) + "\n";
      }
    }
    return out;
  }
};

std::string design(const std::string& n, const std::string& levels = "[1, 2]") {
  return "name = \"resume\"\nbackend = \"host\"\nrepetitions = 1\n[factors]\n"
         "\"param.sqrt.threads\" = " +
         levels + "\n[[benchmark]]\nname = \"sqrt\"\nparams = { n = " + n + ", repeats = 1 }\n";
}

TEST_F(ResumeTest, AnUnchangedExperimentResumesAndAChangedParameterIsRefused) {
  auto first = run(parse(design("1000")));
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_EQ(first->runs_executed, 2);
  const std::string before = snapshot();

  auto same = run(parse(design("1000")));
  ASSERT_TRUE(same.ok()) << same.error().message;
  EXPECT_EQ(same->runs_executed, 0);
  EXPECT_EQ(same->runs_skipped, 2);

  auto changed = run(parse(design("2000")));
  ASSERT_FALSE(changed.ok()) << "old n=1000 results would be reported as n=2000";
  EXPECT_THAT(changed.error().message,
              HasSubstr("experiment 'resume' in " + (dir_ / "r.db").string() +
                        " was run with benchmark sqrt{n=1000, repeats=1, threads=1}"));
  EXPECT_THAT(changed.error().message,
              HasSubstr("the file now says sqrt{n=2000, repeats=1, threads=1}: use a new "
                        "--store or rename the experiment"));
  EXPECT_EQ(snapshot(), before) << "a refused run changes nothing in the store";

  // A float where the integer was is another parameter too: refused when the file is read
  // now (issue 32 class 5), as the agent would refuse it.
  auto typed = parse_experiment(design("1000.0"), "resume.toml", dir_.string());
  ASSERT_FALSE(typed.ok());
  EXPECT_THAT(typed.error().message, HasSubstr("parameter 'n' must be an integer, got 1000.0"));
}

TEST_F(ResumeTest, MoreLevelsResumeButARemovedLevelOrRenamedBenchmarkIsRefused) {
  ASSERT_TRUE(run(parse(design("1000"))).ok());
  auto more = run(parse(design("1000", "[1, 2, 3]")));
  ASSERT_TRUE(more.ok()) << more.error().message;
  EXPECT_EQ(more->runs_executed, 1);
  EXPECT_EQ(more->runs_skipped, 2);

  auto fewer = run(parse(design("1000", "[1, 2]")));
  ASSERT_FALSE(fewer.ok());
  EXPECT_THAT(fewer.error().message,
              HasSubstr("has results for cell 'param.sqrt.threads=3', which the file no longer "
                        "defines"));

  std::string renamed = design("1000", "[1, 2, 3]");
  renamed.replace(renamed.find("name = \"sqrt\""), 13, "name = \"syscall-rate\"");
  renamed.replace(renamed.find("param.sqrt.threads"), 18, "param.threads");
  renamed.erase(renamed.find("params = {"));  // syscall-rate has no n
  auto other = run(parse(renamed));
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(other.error().message, HasSubstr("which the file no longer defines"));
}

TEST_F(ResumeTest, ABenchmarkSwappedAtTheSameIndexIsRefused) {
  const std::string two = design("1000") + "[[benchmark]]\nname = \"topology\"\n";
  ASSERT_TRUE(run(parse(two)).ok());
  std::string swapped = design("1000");
  swapped.insert(swapped.find("[[benchmark]]"), "[[benchmark]]\nname = \"topology\"\n");
  auto r = run(parse(swapped));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("was run with benchmark sqrt{n=1000"));
  EXPECT_THAT(r.error().message, HasSubstr("the file now says topology{}"));
  auto fewer = run(parse(design("1000")));
  ASSERT_FALSE(fewer.ok());
  EXPECT_THAT(fewer.error().message, HasSubstr("has results of benchmark #2 topology"));
  EXPECT_THAT(fewer.error().message, HasSubstr("the file now has 1 benchmark(s)"));
}

// The guest path: the layout identity the guest backend records (layout_to_json of the resolved
// layout) against the stored one. check_resume is what the runner calls before writing.
TEST(ResumeCheck, AChangedLayoutNamesTheFieldsAndALegacyCellIsRefused) {
  auto e = parse_experiment(
      "name = \"g\"\nlayout = \"l.toml\"\n[factors]\nexpose = [\"flat\"]\n[[benchmark]]\nname = "
      "\"sqrt\"\n",
      "g.toml", "/base");
  ASSERT_TRUE(e.ok()) << e.error().message;
  auto cells = expand_cells(*e);
  Layout was, now;
  now.memory_mib = 2048;
  std::map<std::string, nlohmann::json> layouts{{cells[0].config_key, layout_to_json(now)}};
  store::StoredRunIdentity stored{cells[0].key,
                                  cells[0].label(),
                                  layout_to_json(was),
                                  0,
                                  "sqrt",
                                  benchmark_params(*e, cells[0], 0),
                                  "",
                                  nullptr};
  auto r = check_resume(*e, cells, layouts, {stored}, "S.db");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "experiment 'g' in S.db ran cell 'expose=flat' with another layout (guest.memory_mib "
            "1024 -> 2048): use a new --store or rename the experiment");
  stored.layout = layout_to_json(now);
  EXPECT_TRUE(check_resume(*e, cells, layouts, {stored}, "S.db").ok());
  stored.layout.reset();  // a schema-1 store
  auto legacy = check_resume(*e, cells, layouts, {stored}, "S.db");
  ASSERT_FALSE(legacy.ok());
  EXPECT_THAT(legacy.error().message, HasSubstr("before topolab recorded layouts"));
  // Without a guest (host backend) a schema-1 cell has nothing to disagree on.
  layouts[cells[0].config_key] = nullptr;
  EXPECT_TRUE(check_resume(*e, cells, layouts, {stored}, "S.db").ok());
}

}  // namespace
}  // namespace topolab::experiment
