// The include-level folder check (cmake/CheckFolderDeps.cmake, issue 28) and its stage rule: the
// orchestrator's folders lie in orchestrator/<stage>/<folder>/ and a folder may include folders of
// its own stage or lower ones, in the order of the document's "stages:" line. Run on small
// planted trees with `cmake -P`, as ctest's folder_dependencies runs it on the real one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab::test {
namespace {

namespace fs = std::filesystem;
using testing::CliRun;
const fs::path kCheck = fs::path(TOPOLAB_SOURCE_DIR) / "cmake/CheckFolderDeps.cmake";

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// Folder `low` in stage "lower", folder `high` in stage "upper"; `high` includes `low`.
std::string table(const std::string& stages, const std::string& low_may) {
  return "<!-- stages: " + stages +
         " -->\n<!-- folder-deps: begin -->\n| name | folder | library | may include |\n"
         "|---|---|---|---|\n"
         "| low | `orchestrator/lower/low/` | l | " +
         low_may +
         " |\n| high | `orchestrator/upper/high/` | h | low |\n<!-- folder-deps: end -->\n";
}

class FolderStages : public ::testing::Test {
 protected:
  void SetUp() override {
    write(dir_ / "orchestrator/lower/low/low.hpp", "int low();\n");
    write(dir_ / "orchestrator/upper/high/high.cpp",
          "#include \"orchestrator/lower/low/low.hpp\"\nint high() { return low(); }\n");
  }
  CliRun check(const std::string& doc) {
    write(dir_ / "arch.md", doc);
    testing::ChildOptions o;
    o.search_path = true;
    return testing::run_process({"cmake", "-DSOURCE_DIR=" + dir_.string(),
                                 "-DTABLE=" + (dir_ / "arch.md").string(), "-P", kCheck.string()},
                                o);
  }
  testing::TempDir tmp_;
  fs::path dir_ = tmp_.path();
};

TEST_F(FolderStages, AnIncludeOfALowerStagePasses) {
  auto r = check(table("lower upper", "—"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST_F(FolderStages, ATableEdgeIntoAHigherStageFailsNamingBothFolders) {
  // low may include high: no cycle in use (low includes nothing), but the table lets a lower
  // stage reach a higher one, which the tree would then hide.
  auto r = check(table("lower upper", "high"));
  EXPECT_NE(r.exit_code, 0);
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("'low' (orchestrator/lower/low) may include 'high' "
                     "(orchestrator/upper/high), which is in a higher stage (lower < upper)"),
            std::string::npos)
      << all;
}

TEST_F(FolderStages, TheOrderIsTheStagesLine) {
  // The same tree with the stages swapped: now high's include of low reaches upward.
  auto r = check(table("upper lower", "—"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE((r.out + r.err).find("'high' (orchestrator/upper/high) may include 'low'"),
            std::string::npos)
      << r.out << r.err;
}

TEST_F(FolderStages, AFolderInNoListedStageAndAMissingStagesLineFail) {
  auto unlisted = check(table("lower", "—"));
  EXPECT_NE(unlisted.exit_code, 0);
  EXPECT_NE((unlisted.out + unlisted.err).find("'high' (orchestrator/upper/high) is in no stage"),
            std::string::npos)
      << unlisted.out << unlisted.err;
  std::string doc = table("lower upper", "—");
  doc.erase(0, doc.find('\n') + 1);
  auto missing = check(doc);
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE((missing.out + missing.err).find("no <!-- stages:"), std::string::npos)
      << missing.out << missing.err;
}

TEST(FolderStagesRealTree, EveryOrchestratorFolderIsInAStageOfTheDocument) {
  testing::ChildOptions o;
  o.search_path = true;
  auto r = testing::run_process(
      {"cmake", "-DSOURCE_DIR=" + std::string(TOPOLAB_SOURCE_DIR), "-P", kCheck.string()}, o);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

}  // namespace
}  // namespace topolab::test
