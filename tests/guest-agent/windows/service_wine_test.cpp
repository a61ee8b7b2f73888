// `service install|uninstall` through wine's service control manager: the service starts the
// agent (`service run --poweroff`), which logs under ProgramData and waits for the vioser port
// (there is none under wine); uninstall stops and removes it.
#include <gtest/gtest.h>

#include <thread>

#include "common/file_io.hpp"
#include "tests/guest-agent/windows/wine_agent.hpp"

namespace topolab {
namespace {

using namespace testing;

const auto* const kWine = ::testing::AddGlobalTestEnvironment(new WineEnvironment);

CliRun wine(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"timeout", "60", "wine"};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildOptions o;
  o.search_path = true;
  o.null_stdin = true;
  return run_process(argv, o, 70s);
}

// %ProgramData%\topolab\agent.log inside the prefix (wine maps ProgramData into drive_c).
std::optional<fs::path> find_log() {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(wine_prefix() / "drive_c", ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->path().filename() == "agent.log" && it->path().parent_path().filename() == "topolab")
      return it->path();
  }
  return std::nullopt;
}

TEST(WindowsAgentService, InstallStartsItAndUninstallRemovesIt) {
  TOPOLAB_REQUIRE_WINE();
  if (auto old = find_log()) fs::remove_all(old->parent_path());
  auto install = run_wine_agent({"service", "install"}, 60s);
  ASSERT_EQ(install.status(), 0) << install.out << install.err;
  EXPECT_NE(install.out.find("service run --poweroff"), std::string::npos) << install.out;
  std::string log;
  for (int i = 0; i < 100 && log.find("waiting for it") == std::string::npos; ++i) {
    std::this_thread::sleep_for(200ms);
    if (auto path = find_log()) log = read_file(*path).value_or("");
  }
  EXPECT_NE(log.find("serving on virtio-serial port \\\\.\\Global\\org.topolab.agent.0"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("waiting for it"), std::string::npos) << log;
  auto query = wine({"sc", "query", "topolab-agent"});
  EXPECT_NE(query.out.find("RUNNING"), std::string::npos) << query.out << query.err;
  auto uninstall = run_wine_agent({"service", "uninstall"}, 60s);
  EXPECT_EQ(uninstall.status(), 0) << uninstall.out << uninstall.err;
  query = wine({"sc", "query", "topolab-agent"});
  EXPECT_EQ(query.out.find("RUNNING"), std::string::npos) << query.out;
  // Bad arguments: the usage, exit 2.
  auto bad = run_wine_agent({"service", "frobnicate"}, 60s);
  EXPECT_EQ(bad.status(), 2);
  EXPECT_NE(bad.err.find("service install"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace topolab
