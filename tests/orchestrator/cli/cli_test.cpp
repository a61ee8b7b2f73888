// The CLI's common behaviour, on the built `topolab` (TOPOLAB_CLI): one exit-code table
// (docs/reliability.md "Exit codes"), one error line, and the global log options
// (-q, -v, --log-level) on every command.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "common/exit_code.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;

const std::string kCaps = std::string(TOPOLAB_TESTS_DIR) + "/host/data/caps-this-machine.xml";
const std::string kLayout = std::string(TOPOLAB_SOURCE_DIR) + "/examples/layouts/two-groups.toml";

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// Only warnings (this 2-CPU host leaves no housekeeping CPU: a plan warning) and nothing else.
void expect_only_warnings(const std::string& err) {
  EXPECT_EQ(err.find("topolab: wrote "), std::string::npos) << err;
  std::size_t at = 0;
  while (at < err.size()) {
    EXPECT_EQ(err.compare(at, 18, "topolab: warning: "), 0) << err;
    at = err.find('\n', at) + 1;
    if (at == 0) break;
  }
}

TEST(CliExitCodes, AnUncheckedResultIsABugAndExits70WithOneLine) {
  auto r = run_cli({"--internal-error-selftest", "paths"});
  EXPECT_EQ(r.status(), 70) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("topolab: internal error: unchecked error:"), std::string::npos) << r.err;
}

TEST(CliExitCodes, AMissingLayoutExits66WithOneLine) {
  auto r = run_cli({"plan", "/nonexistent/topolab/layout.toml", "--caps", kCaps});
  EXPECT_EQ(r.status(), to_int(ExitCode::no_input)) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("topolab plan: "), std::string::npos) << r.err;
}

// Issue 32 class 6: `topolab paths` printed TOPOLAB_TEMPLATES_DIR and TOPOLAB_AGENT_BINARY as
// they were, so an escape sequence in the environment reached the terminal raw.
TEST(CliPaths, PathsFromTheEnvironmentPassTheTerminalFilter) {
  testing::ChildOptions o;
  o.env = {"TOPOLAB_TEMPLATES_DIR=/tmp/t\x1b]0;pwned\x07", "TOPOLAB_AGENT_BINARY=/tmp/a\x1b[2Jb"};
  auto r = run_cli({"paths"}, o);
  EXPECT_EQ(r.status(), 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("templates: /tmp/t\\x1b]0;pwned\\x07"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("agent: /tmp/a\\x1b[2Jb"), std::string::npos) << r.out;
}

TEST(CliExitCodes, UsageErrorsKeepTheirCode2) {
  auto r = run_cli({"hook"});
  EXPECT_EQ(r.status(), 2) << r.err;
  EXPECT_EQ(r.err, "topolab hook: expected DOMAIN OPERATION (or --install-snippet)\n");
}

// What a refusal echoes from the input is escaped and bounded in one place (redteam wave 2:
// `--accel` with a 120 KB value printed 120 KB, an escape sequence reached the terminal raw), for
// CLI11's own errors (a value not in the set, an unknown option) and for topolab's (a layout
// name that is not a file).
TEST(CliExitCodes, WhatAnErrorEchoesIsBoundedAndEscaped) {
  const std::string huge(120000, 'a');  // one argv string is at most 128 KiB (MAX_ARG_STRLEN)
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"boot", kLayout, "--accel", huge},
                                             {"boot", kLayout, "--no-such-option" + huge},
                                             {"--log-level", huge, "paths"},
                                             {"plan", huge, "--caps", kCaps}}) {
    auto r = run_cli(args);
    EXPECT_NE(r.status(), 0);
    EXPECT_LT(r.err.size(), 2300u) << r.err.substr(0, 200);
    EXPECT_NE(r.err.find("bytes cut]"), std::string::npos) << r.err.substr(0, 200) << r.status();
    EXPECT_LE(lines(r.err), 2) << r.err.substr(0, 200);
  }
  auto r = run_cli({"boot", kLayout, "--accel", "a\x1b[2J"});
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("a\\x1b[2J"), std::string::npos) << r.err;
}

// `xml -o FILE` says "wrote FILE" (information) on stderr: -q hides it, -v adds debug lines.
class CliLogLevels : public ::testing::Test {
 protected:
  testing::CliRun xml(std::vector<std::string> extra) {
    std::vector<std::string> args = {"xml", kLayout, "--caps",
                                     kCaps, "-o",    (dir_.path() / "out.xml").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  }
  testing::TempDir dir_;
};

TEST_F(CliLogLevels, InformationByDefaultNoDebug) {
  auto r = xml({});
  ASSERT_EQ(r.status(), 0) << r.err;
  EXPECT_NE(r.err.find("topolab: wrote "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("debug:"), std::string::npos) << r.err;
}

TEST_F(CliLogLevels, QuietSilencesInformationAfterOrBeforeTheCommand) {
  for (auto extra : {std::vector<std::string>{"-q"}, std::vector<std::string>{"--quiet"},
                     std::vector<std::string>{"--log-level", "warn"}}) {
    auto r = xml(extra);
    ASSERT_EQ(r.status(), 0) << r.err;
    expect_only_warnings(r.err);
  }
  auto before =
      run_cli({"-q", "xml", kLayout, "--caps", kCaps, "-o", (dir_.path() / "out.xml").string()});
  ASSERT_EQ(before.status(), 0) << before.err;
  expect_only_warnings(before.err);
  auto off = xml({"--log-level", "off"});
  ASSERT_EQ(off.status(), 0) << off.err;
  EXPECT_EQ(off.err, "");
}

TEST_F(CliLogLevels, VerboseShowsDebugLines) {
  auto r = xml({"-v"});
  ASSERT_EQ(r.status(), 0) << r.err;
  EXPECT_NE(r.err.find("topolab: wrote "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("topolab: debug: exit 0 after "), std::string::npos) << r.err;
}

TEST_F(CliLogLevels, QuietAndVerboseTogetherAreRefused) {
  auto r = xml({"-q", "-v"});
  EXPECT_EQ(r.status(), 108) << r.err;  // CLI11: mutually exclusive options
}

TEST_F(CliLogLevels, ErrorsAreOneLineEvenWhenQuiet) {
  auto r = run_cli({"-q", "plan", "/nonexistent/topolab/layout.toml", "--caps", kCaps});
  EXPECT_EQ(r.status(), to_int(ExitCode::no_input));
  EXPECT_EQ(lines(r.err), 1) << r.err;
}

// A run refused before anything booted leaves no new store behind (redteam 2026-12-02, E30 and
// S05: an empty store file stayed); a store that existed before stays.
TEST(CliRun, ARefusedRunLeavesNoNewStore) {
  testing::TempDir dir{"topolab-cli-refused"};
  dir.write("os.toml",
            "name = \"refused\"\nbackend = \"host\"\nrepetitions = 1\n[os]\n"
            "timer_migration = 0\n[[benchmark]]\nname = \"sqrt\"\n"
            "params = { threads = 1, n = 1000, repeats = 1 }\n");
  dir.write("two.toml",
            "name = \"two\"\nbackend = \"host\"\nrepetitions = 1\n[factors]\n"
            "\"param.sqrt.threads\" = [1, 2]\n[[benchmark]]\nname = \"sqrt\"\n"
            "params = { n = 1000, repeats = 1 }\n");
  const fs::path os_db = dir.path() / "os.db", shard_db = dir.path() / "shard.db";
  auto r = run_cli({"run", (dir.path() / "os.toml").string(), "--store", os_db.string()});
  EXPECT_EQ(r.status(), to_int(ExitCode::data_error)) << r.err;  // the file's [os]: input
  EXPECT_NE(r.err.find("--allow-host-settings"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(os_db)) << "a refused run left its new store";
  r = run_cli(
      {"run", (dir.path() / "two.toml").string(), "--shard", "3/3", "--store", shard_db.string()});
  EXPECT_EQ(r.status(), to_int(ExitCode::data_error)) << r.err;
  EXPECT_FALSE(fs::exists(shard_db)) << "a refused shard left its new store";
  // The same refusal against a store with results keeps it and them.
  r = run_cli({"run", (dir.path() / "two.toml").string(), "--store", shard_db.string(), "-q"});
  ASSERT_EQ(r.status(), 0) << r.err;
  r = run_cli(
      {"run", (dir.path() / "two.toml").string(), "--shard", "3/3", "--store", shard_db.string()});
  EXPECT_EQ(r.status(), to_int(ExitCode::data_error)) << r.err;
  EXPECT_TRUE(fs::exists(shard_db));
}

}  // namespace
}  // namespace topolab
