// The symbol-level folder check (cmake/check_symbol_deps.py, issue 28) on a planted indirect
// edge: folder a may include b, b may include c; a's source includes only b's header, which
// includes c's, and a calls c's function. The include check sees a -> b only; the built
// libraries show a needing c_value. Compiled and archived for real, then checked.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab::test {
namespace {

namespace fs = std::filesystem;
using testing::CliRun;
// The programs by name, as a shell would find them (c++, ar, python3 live in /usr/bin).
CliRun run_process(std::vector<std::string> argv) {
  testing::ChildOptions o;
  o.search_path = true;
  return testing::run_process(std::move(argv), o);
}
const fs::path kChecker = fs::path(TOPOLAB_SOURCE_DIR) / "cmake/check_symbol_deps.py";

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

std::string table(const std::string& a_may) {
  return "<!-- folder-deps: begin -->\n| name | folder | library | may include "
         "|\n|---|---|---|---|\n"
         "| c | `c/` | c | — |\n| b | `b/` | b | c |\n| a | `a/` | a | " +
         a_may + " |\n<!-- folder-deps: end -->\n";
}

class SymbolDeps : public ::testing::Test {
 protected:
  void SetUp() override {
    write(dir_ / "c/c.hpp", "int c_value();\n");
    write(dir_ / "c/c.cpp", "#include \"c/c.hpp\"\nint c_value() { return 7; }\n");
    write(dir_ / "b/b.hpp", "#include \"c/c.hpp\"\nint b_value();\n");
    write(dir_ / "b/b.cpp", "#include \"b/b.hpp\"\nint b_value() { return c_value() + 1; }\n");
    for (const char* f : {"c", "b"}) build(f, std::string(f) + "/" + f + ".cpp");
  }

  // One folder's library: its source compiled and archived as lib<f>.a.
  void build(const std::string& folder, const std::string& source) {
    const std::string obj = (dir_ / (folder + ".o")).string();
    auto cc = run_process({"c++", "-c", "-I", dir_.string(), (dir_ / source).string(), "-o", obj});
    ASSERT_EQ(cc.exit_code, 0) << cc.err;
    auto ar = run_process({"ar", "rcs", lib(folder), obj});
    ASSERT_EQ(ar.exit_code, 0) << ar.err;
  }
  std::string lib(const std::string& folder) const {
    return (dir_ / ("lib" + folder + ".a")).string();
  }

  CliRun check(const std::string& a_may) {
    write(dir_ / "table.md", table(a_may));
    return run_process({"python3", kChecker.string(), "--table", (dir_ / "table.md").string(),
                        "a=" + lib("a"), "b=" + lib("b"), "c=" + lib("c")});
  }

  testing::TempDir temp_{"topolab-symbol-deps"};
  const fs::path dir_ = temp_.path();
};

TEST_F(SymbolDeps, AFolderCallingThroughAnotherFoldersHeaderFails) {
  write(dir_ / "a/a.cpp", "#include \"b/b.hpp\"\nint a_value() { return c_value() * 2; }\n");
  build("a", "a/a.cpp");
  const CliRun r = check("b");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("a (" + lib("a") +
                       "[a.o]) uses c's c_value(): not allowed (a may "
                       "include: b)"),
            std::string::npos)
      << r.out;
  // The same use, once the table allows it, passes: the edge is what decides.
  const CliRun allowed = check("b, c");
  EXPECT_EQ(allowed.exit_code, 0) << allowed.out << allowed.err;
}

TEST_F(SymbolDeps, AFolderUsingOnlyWhatItMayIncludePasses) {
  write(dir_ / "a/a.cpp", "#include \"b/b.hpp\"\nint a_value() { return b_value() * 2; }\n");
  build("a", "a/a.cpp");
  const CliRun r = check("b");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("3 libraries, 2 cross-folder symbol references, all allowed"),
            std::string::npos)
      << r.out;
}

TEST_F(SymbolDeps, ANameOutsideTheTableIsRefused) {
  write(dir_ / "table.md", table("b"));
  const CliRun r = run_process(
      {"python3", kChecker.string(), "--table", (dir_ / "table.md").string(), "x=" + lib("b")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'x=" + lib("b") + "': NAME=LIB with NAME a row of"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace topolab::test
