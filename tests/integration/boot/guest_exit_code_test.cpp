// A guest failure exits 76 (ExitCode::guest, docs/reliability.md "Exit codes", issue 28): the
// built-in image with an "agent" that exits at once, so the guest kernel panics ("Attempted to
// kill init") before any hello. The error names the panic, and nothing is left in libvirt.
// The panic is planted by the binary, not by a `topolab.fault=` topolab could see, so its retry
// goes to this test's own retry log, not to CI's count of real TCG hangs (scripts/test.sh).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "common/exit_code.hpp"
#include "common/file_io.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

using testing::run_cli;

TEST(GuestExitCode, AGuestWhoseInitExitsFailsWith76AndLeavesNoDomain) {
  testing::TempDir dir("topolab-guest-exit-code");
  const auto source = dir.path() / "exit0.c";
  const auto binary = dir.path() / "exit0";
  std::ofstream(source) << "int main(void) { return 0; }\n";
  testing::ChildOptions search;
  search.search_path = true;
  auto cc = testing::run_process({"cc", "-static", "-O1", "-o", binary.string(), source.string()},
                                 search);
  ASSERT_EQ(cc.status(), 0) << cc.err;  // the image takes only a static agent
  const std::string marker = "it" + std::to_string(getpid()) + "-exit76";
  testing::ChildOptions o;
  const auto retry_log = dir.path() / "retries.jsonl";
  o.env = {"TOPOLAB_AGENT_BINARY=" + binary.string(),
           "TOPOLAB_BOOT_RETRY_LOG=" + retry_log.string()};
  auto r = run_cli({"boot", std::string(TOPOLAB_SOURCE_DIR) + "/examples/layouts/two-groups.toml",
                    "--accel", "tcg", "--run-id", marker, "--boot-retries", "1"},
                   o, std::chrono::minutes(5));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.status(), to_int(ExitCode::guest)) << r.err;
  EXPECT_NE(r.err.find("guest kernel panicked before hello"), std::string::npos) << r.err;
  EXPECT_EQ(testing::topolab_domains_with(marker), std::vector<std::string>{});
  // --boot-retries 1: the first panic was retried once, and that retry was logged here.
  auto lines = read_file(retry_log, 1u << 20);
  ASSERT_TRUE(lines) << retry_log;
  EXPECT_EQ(std::count(lines->begin(), lines->end(), '\n'), 1) << *lines;
  EXPECT_NE(lines->find("guest kernel panicked before hello"), std::string::npos) << *lines;
}

}  // namespace
}  // namespace topolab
