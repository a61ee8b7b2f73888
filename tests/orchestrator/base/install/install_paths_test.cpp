// install_paths(): which templates and agent a topolab binary uses, installed or in the build
// tree, with fake trees laid out in a temporary folder.
#include "orchestrator/base/install/install_paths.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;

void touch(const fs::path& p, const std::string& text = "x") {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
  ::chmod(p.c_str(), 0644);
}

class InstallPathsTest : public ::testing::Test {
 protected:
  PathInputs inputs(const fs::path& exe) {
    PathInputs in;
    in.exe = exe;
    in.prefix_bindir = "/opt/nowhere/bin";
    in.prefix_datadir = "/opt/nowhere/share";
    in.prefix_docdir = "/opt/nowhere/share/doc/topolab";
    in.datadir_from_bindir = "../share";
    in.docdir_from_bindir = "../share/doc/topolab";
    return in;
  }
  // A build tree: <tmp>/build/<sub>/prog, marker in <tmp>/build.
  fs::path build_exe(const std::string& sub) {
    touch(tmp_.path() / "build" / kBuildTreeMarker,
          "source=" + (tmp_.path() / "src").string() +
              "\nagent=" + (tmp_.path() / "build/guest-agent/topolab-agent").string() + "\n");
    return tmp_.path() / "build" / sub / "prog";
  }
  testing::TempDir tmp_{"topolab-paths"};
};

TEST_F(InstallPathsTest, InstalledTreeIsFoundNextToTheBinaryWhereverItWasUnpacked) {
  const auto root = tmp_.path() / "root";
  fs::create_directories(root / "usr/share/topolab/templates");
  // A marker beside an installed binary changes nothing: installed wins.
  touch(root / "usr/bin" / kBuildTreeMarker, "source=/src\nagent=/a\n");
  auto p = resolve_install_paths(inputs(root / "usr/bin/topolab"));
  EXPECT_EQ(p.templates_origin, PathOrigin::kInstalled);
  EXPECT_EQ(p.templates, root / "usr/share/topolab/templates");
  EXPECT_EQ(p.examples, root / "usr/share/topolab/examples");
  EXPECT_EQ(p.docs, root / "usr/share/doc/topolab");
  EXPECT_EQ(p.agent, root / "usr/bin/topolab-agent");
  EXPECT_EQ(p.windows_agent, root / "usr/bin/topolab-agent.exe");
  EXPECT_TRUE(p.build_marker.empty());
}

TEST_F(InstallPathsTest, BuildTreeMarkerNamesSourceTemplatesAndBuiltAgent) {
  for (const std::string sub : {"orchestrator", "tests", "tests/tsan/x"}) {
    auto p = resolve_install_paths(inputs(build_exe(sub)));
    EXPECT_EQ(p.templates_origin, PathOrigin::kBuildTree) << sub;
    EXPECT_EQ(p.templates, tmp_.path() / "src/templates") << sub;
    EXPECT_EQ(p.agent, tmp_.path() / "build/guest-agent/topolab-agent") << sub;
    EXPECT_EQ(p.build_marker, tmp_.path() / "build" / kBuildTreeMarker) << sub;
  }
}

TEST_F(InstallPathsTest, MarkerMoreThanThreeLevelsUpIsNotLookedFor) {
  auto p = resolve_install_paths(inputs(build_exe("a/b/c/d")));
  EXPECT_EQ(p.templates_origin, PathOrigin::kPrefix);
  EXPECT_EQ(p.templates, "/opt/nowhere/share/topolab/templates");
  EXPECT_EQ(p.agent, "/opt/nowhere/bin/topolab-agent");
}

TEST_F(InstallPathsTest, MarkerWritableByOthersIsIgnored) {
  auto exe = build_exe("orchestrator");
  ::chmod((tmp_.path() / "build" / kBuildTreeMarker).c_str(), 0666);
  EXPECT_EQ(resolve_install_paths(inputs(exe)).templates_origin, PathOrigin::kPrefix);
}

TEST_F(InstallPathsTest, MarkerThatIsASymlinkOrHasRelativePathsIsIgnored) {
  auto exe = build_exe("orchestrator");
  const auto marker = tmp_.path() / "build" / kBuildTreeMarker;
  fs::rename(marker, tmp_.path() / "real-marker");
  fs::create_symlink(tmp_.path() / "real-marker", marker);
  EXPECT_EQ(resolve_install_paths(inputs(exe)).templates_origin, PathOrigin::kPrefix);
  fs::remove(marker);
  touch(marker, "source=src\nagent=build/topolab-agent\n");
  EXPECT_EQ(resolve_install_paths(inputs(exe)).templates_origin, PathOrigin::kPrefix);
}

TEST_F(InstallPathsTest, EnvironmentOverridesInstalledAndBuildTree) {
  auto in = inputs(build_exe("orchestrator"));
  in.env_templates = "/elsewhere/templates";
  in.env_agent = "/elsewhere/agent";
  auto p = resolve_install_paths(in);
  EXPECT_EQ(p.templates, "/elsewhere/templates");
  EXPECT_EQ(p.templates_origin, PathOrigin::kEnvironment);
  EXPECT_EQ(p.agent, "/elsewhere/agent");
  EXPECT_EQ(p.agent_origin, PathOrigin::kEnvironment);
  EXPECT_EQ(p.windows_agent, "/elsewhere/topolab-agent.exe");
}

// This test executable runs from the build tree: CMake's marker points at this source tree
// and the agent it built.
TEST_F(InstallPathsTest, ThisTestExecutableFindsTheSourceTreeThroughTheBuildMarker) {
  auto in = current_path_inputs();
  in.env_templates.clear();
  in.env_agent.clear();
  auto p = resolve_install_paths(in);
  EXPECT_EQ(p.templates_origin, PathOrigin::kBuildTree);
  EXPECT_EQ(fs::canonical(p.templates), fs::canonical(fs::path(TOPOLAB_SOURCE_DIR) / "templates"));
  EXPECT_EQ(fs::canonical(p.agent), fs::canonical(TOPOLAB_AGENT));
}

}  // namespace
}  // namespace topolab
