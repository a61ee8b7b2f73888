// The real binary driven into each exit code of docs/reliability.md "Exit codes" that needs no
// guest (issue 28: one code per error kind, so a script can act on the code alone). 70 and 2
// are CliExitCodes.* in cli_test.cpp; 76 (a guest failure) boots a guest:
// tests/integration/boot/guest_exit_code_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/exit_code.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

using testing::run_cli;
namespace fs = std::filesystem;

const std::string kCaps = std::string(TOPOLAB_TESTS_DIR) + "/host/data/caps-this-machine.xml";
const std::string kLayout = std::string(TOPOLAB_SOURCE_DIR) + "/examples/layouts/two-groups.toml";

class ExitCodes : public ::testing::Test {
 protected:
  std::string file(const std::string& name, const std::string& text) {
    const fs::path p = dir_.path() / name;
    std::ofstream(p) << text;
    return p.string();
  }
  // The code, and the one line on stderr that says why.
  void expect(const std::vector<std::string>& args, ExitCode code, const std::string& says) {
    auto r = run_cli(args);
    EXPECT_EQ(r.status(), to_int(code)) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  }
  testing::TempDir dir_{"topolab-exit-codes"};
};

TEST_F(ExitCodes, BadInputIs65) {
  expect({"plan", file("bad.toml", "[guest\nl3_groups = 2\n"), "--caps", kCaps},
         ExitCode::data_error, "TOML syntax error");
  expect({"plan", kLayout, "--caps", kCaps, "--set", "guest.l3_groups=0"}, ExitCode::data_error,
         "guest.l3_groups");
}

TEST_F(ExitCodes, AMissingFileOrPresetIs66) {
  expect({"plan", (dir_.path() / "none.toml").string(), "--caps", kCaps}, ExitCode::no_input,
         "no such file, and not a preset");
  expect({"host", "--caps", (dir_.path() / "none.xml").string()}, ExitCode::no_input,
         "No such file or directory");
}

TEST_F(ExitCodes, ALayoutThisHostCannotHoldIs4) {
  // ryzen-1700x wants SMT and 8 cores; caps-this-machine.xml is 2 CPUs without SMT.
  expect({"plan", "ryzen-1700x", "--caps", kCaps}, ExitCode::does_not_fit,
         "but the host has no SMT siblings");
}

TEST_F(ExitCodes, AnUnreachableLibvirtIs69) {
  expect({"host", "-c", "qemu+tcp://127.0.0.1:1/system"}, ExitCode::unavailable,
         "cannot connect to qemu+tcp://127.0.0.1:1/system");
}

TEST_F(ExitCodes, AnOutputThatCannotBeWrittenIs74) {
  expect({"xml", kLayout, "--caps", kCaps, "-o", "/proc/version"}, ExitCode::io_error,
         "/proc/version: cannot create a file in /proc");
}

TEST_F(ExitCodes, AFailedCellIs3AndAFailedDoctorCheckIs1) {
  // The host backend: c2c-latency on one CPU fails in the agent, the run goes on and says so.
  const std::string exp = file("e.toml", R"(name = "codes"
backend = "host"
repetitions = 1
[[benchmark]]
name = "c2c-latency"
params = { cpus = "0" }
)");
  expect({"run", exp, "--store", (dir_.path() / "r.db").string(), "-q"}, ExitCode::mismatch,
         "1 cell(s) failed");
  auto doctor = run_cli({"doctor", "-c", "qemu+tcp://127.0.0.1:1/system"});
  EXPECT_EQ(doctor.status(), to_int(ExitCode::failed)) << doctor.out << doctor.err;
  EXPECT_NE(doctor.out.find("cannot connect to qemu+tcp://127.0.0.1:1/system"), std::string::npos)
      << doctor.out;
}

}  // namespace
}  // namespace topolab
