// The Windows topology parser on hand-made GetLogicalProcessorInformationEx buffers: two
// processor groups, dies, multi-group NUMA records, malformed records (what wine's own report,
// one group and no dies, cannot exercise). The checks are a Windows program
// (tests/guest-agent/windows/win32/topology_windows_check.cpp) run under wine.
#include <gtest/gtest.h>

#include "tests/guest-agent/windows/wine_agent.hpp"

namespace topolab {
namespace {

using namespace testing;

const auto* const kWine = ::testing::AddGlobalTestEnvironment(new WineEnvironment);

TEST(WindowsTopologyParser, GroupsDiesNumaAndMalformedRecords) {
  TOPOLAB_REQUIRE_WINE();
  const fs::path checks = build_dir() / "guest-agent" / "windows" / "topolab-agent-checks.exe";
  ASSERT_TRUE(fs::exists(checks)) << checks << " was not built";
  ChildOptions o;
  o.search_path = true;
  o.null_stdin = true;
  auto run = run_process({"timeout", "120", "wine", checks.string()}, o, 130s);
  std::cout << run.out;
  EXPECT_EQ(run.status(), 0) << run.out << run.err;
  EXPECT_NE(run.out.find("0 failure(s)"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("FAIL"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("ok   CPU ids are group*64+bit: 0-7,64-71"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace topolab
