// topolab-agent.exe must run on a fresh Windows: every DLL it imports is part of Windows.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "tests/guest-agent/windows/wine_agent.hpp"

namespace topolab {
namespace {

using namespace testing;

// DLL names as `objdump -p` prints them ("\tDLL Name: KERNEL32.dll"), lower-cased.
std::vector<std::string> imported_dlls(const std::string& objdump_output) {
  std::vector<std::string> out;
  std::istringstream in(objdump_output);
  std::string line;
  const std::string key = "DLL Name: ";
  while (std::getline(in, line)) {
    auto pos = line.find(key);
    if (pos == std::string::npos) continue;
    std::string name = line.substr(pos + key.size());
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    out.push_back(name);
  }
  return out;
}

TEST(WindowsAgentExe, ImportsOnlyWindowsSystemDlls) {
  if (!fs::exists(windows_agent_exe())) {
    GTEST_SKIP() << windows_agent_exe() << " not built (no x86_64-w64-mingw32-g++-posix)";
  }
  if (!find_program("x86_64-w64-mingw32-objdump")) {
    GTEST_SKIP() << "x86_64-w64-mingw32-objdump missing (binutils-mingw-w64-x86-64)";
  }
  ChildOptions o;
  o.search_path = true;
  auto run =
      run_process({"x86_64-w64-mingw32-objdump", "-p", windows_agent_exe().string()}, o, 60s);
  ASSERT_EQ(run.status(), 0) << run.err;
  const std::set<std::string> system = {"kernel32.dll", "advapi32.dll", "ws2_32.dll",
                                        "msvcrt.dll",   "ntdll.dll",    "user32.dll",
                                        "shell32.dll",  "ole32.dll",    "bcrypt.dll"};
  auto dlls = imported_dlls(run.out);
  ASSERT_FALSE(dlls.empty()) << "no imports found in objdump output:\n" << run.out.substr(0, 2000);
  EXPECT_NE(std::find(dlls.begin(), dlls.end(), "kernel32.dll"), dlls.end());
  for (const auto& dll : dlls) {
    // libstdc++-6, libgcc_s_seh-1, libwinpthread-1 would mean a dynamic (non-portable) build.
    EXPECT_TRUE(system.count(dll) || dll.rfind("api-ms-win-", 0) == 0)
        << dll << " is not a Windows system DLL: the .exe must be linked statically";
  }
}

}  // namespace
}  // namespace topolab
