// `topolab image --windows`: the CD image carries the built topolab-agent.exe, install.cmd,
// uninstall.cmd and README.txt; a non-Windows agent is refused and nothing is left behind.
#include "orchestrator/guest/image/windows_iso.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/file_io.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::TempDir;

const fs::path kExe = std::string(TOPOLAB_AGENT) + ".exe";

bool have_xorriso() {
  for (const char* dir : {"/usr/bin", "/bin", "/usr/local/bin"})
    if (::access((fs::path(dir) / "xorriso").c_str(), X_OK) == 0) return true;
  return false;
}

TEST(WindowsIso, HoldsTheAgentAndItsInstallScripts) {
  if (!fs::exists(kExe)) GTEST_SKIP() << kExe << " not built (no mingw-w64: scripts/setup.sh)";
  if (!have_xorriso()) GTEST_SKIP() << "xorriso missing (scripts/setup.sh installs it)";
  TempDir tmp;
  auto run =
      testing::run_cli({"image", "--windows", "-o", (tmp.path() / "out").string(), "--json"});
  ASSERT_EQ(run.status(), 0) << run.err;
  auto j = nlohmann::json::parse(run.out);
  const fs::path iso = j["iso"].get<std::string>();
  EXPECT_EQ(iso, tmp.path() / "out" / "topolab-agent-windows.iso");
  // Only the ISO in the output folder: the staging folder is gone.
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(tmp.path() / "out")) ++entries;
  EXPECT_EQ(entries, 1u);
  auto ls = testing::run_process(
      {"/usr/bin/xorriso", "-indev", "stdio:" + iso.string(), "-ls", "/"}, 60s);
  ASSERT_EQ(ls.status(), 0) << ls.err;
  for (const char* f : {"topolab-agent.exe", "install.cmd", "uninstall.cmd", "README.txt"})
    EXPECT_NE(ls.out.find(std::string("'") + f + "'"), std::string::npos) << f << " in\n" << ls.out;
  // The .exe on the CD is the built one, byte for byte; the .cmd uses CRLF line ends.
  auto ex =
      testing::run_process({"/usr/bin/xorriso", "-osirrox", "on", "-indev", "stdio:" + iso.string(),
                            "-extract", "/topolab-agent.exe", (tmp.path() / "agent.exe").string(),
                            "-extract", "/install.cmd", (tmp.path() / "install.cmd").string()},
                           60s);
  ASSERT_EQ(ex.status(), 0) << ex.err;
  // "The built one" is the .exe topolab resolves (`topolab paths`): with TOPOLAB_AGENT_BINARY
  // set, as in the sanitizer stage, that is the one beside that agent, not this tree's.
  auto paths = testing::run_cli({"paths", "--json"});
  ASSERT_EQ(paths.status(), 0) << paths.err;
  const fs::path resolved = nlohmann::json::parse(paths.out)["windows_agent"].get<std::string>();
  EXPECT_EQ(*read_file(tmp.path() / "agent.exe"), *read_file(resolved));
  auto cmd = read_file(tmp.path() / "install.cmd");
  ASSERT_TRUE(cmd.ok());
  EXPECT_NE(cmd->find("service install || goto :fail\r\n"), std::string::npos);
}

TEST(WindowsIso, RefusesAnAgentThatIsNotAWindowsProgram) {
  TempDir tmp;
  // The head of the Linux agent: a real ELF program, and small (a sanitized debug agent is over
  // the 64 MiB size bound, which would be refused first for its size).
  auto linux_agent = read_file(TOPOLAB_AGENT, 256u << 20);
  ASSERT_TRUE(linux_agent.ok()) << linux_agent.error().message;
  const fs::path elf = tmp.path() / "topolab-agent";
  ASSERT_TRUE(write_file_atomic(elf, linux_agent->substr(0, 64 * 1024)).ok());
  auto run = testing::run_cli(
      {"image", "--windows", "-o", (tmp.path() / "out").string(), "--agent", elf.string()});
  EXPECT_EQ(run.status(), 65);  // refused input (ExitCode::data_error)
  EXPECT_NE(run.err.find("not a Windows program (no MZ header)"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(tmp.path() / "out")) << "nothing is created for a refused input";
}

TEST(WindowsIso, ChecksThePeHeader) {
  std::string pe(0x100, '\0');
  pe[0] = 'M';
  pe[1] = 'Z';
  pe[0x3c] = static_cast<char>(0x80);
  pe.replace(0x80, 4, std::string("PE\0\0", 4));
  pe[0x84] = 0x4c;  // i386
  pe[0x85] = 0x01;
  auto r = image::check_windows_exe(pe, "x.exe");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("machine 0x014c is not x86-64"), std::string::npos);
  pe[0x84] = 0x64;
  pe[0x85] = static_cast<char>(0x86);
  EXPECT_TRUE(image::check_windows_exe(pe, "x.exe").ok());
  pe[0x3c] = static_cast<char>(0xfe);  // PE offset past the end
  EXPECT_FALSE(image::check_windows_exe(pe, "x.exe").ok());
}

}  // namespace
}  // namespace topolab
