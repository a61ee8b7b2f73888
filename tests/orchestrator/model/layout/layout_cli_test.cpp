// The CLI side: a malformed layout file gives a non-zero exit and one line with file:line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/child_process.hpp"

namespace {

using topolab::testing::run_cli;

TEST(LayoutCli, MalformedFileExitsNonZeroWithFileLine) {
  auto dir =
      std::filesystem::temp_directory_path() / ("topolab-layout-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto file = dir / "bad.toml";
  std::ofstream(file) << "name = \"x\"\n[guest]\nl3_groups = -2\ncores_per_group = 4\n";
  auto r = run_cli({"plan", file.string(), "--caps", "/nonexistent.xml"});
  EXPECT_NE(r.status(), 0);
  EXPECT_NE(r.err.find(file.string() + ":3: guest.l3_groups: expected an integer from 1"),
            std::string::npos)
      << r.err;
  std::filesystem::remove_all(dir);
}

TEST(LayoutCli, BadOverrideIsRefused) {
  auto r = run_cli({"plan", "flat-8", "--groups", "0", "--caps", "/nonexistent.xml"});
  EXPECT_NE(r.status(), 0);
  EXPECT_NE(r.err.find("guest.l3_groups: expected an integer from 1 to 4096, got 0"),
            std::string::npos)
      << r.err;
}

}  // namespace
