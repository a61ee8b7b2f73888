// The TOML depth gate (orchestrator/model/layout/toml_depth.hpp): exact at the boundary for every
// kind of nesting, far beyond it without a crash, and blind to brackets/dots in strings and
// comments.
#include "orchestrator/model/layout/toml_depth.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/model/layout/layout.hpp"

namespace topolab {
namespace {

using ::testing::HasSubstr;

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// A top-level key holding n nested arrays: depth n + 1.
std::string arrays(int n) { return "a = " + repeat("[", n) + repeat("]", n) + "\n"; }
// n nested inline tables: depth n + 1.
std::string inline_tables(int n) {
  return "a = " + repeat("{b = ", n) + "1" + repeat("}", n) + "\n";
}
// A dotted key of n segments: depth n.
std::string dotted(int n) { return "a" + repeat(".a", n - 1) + " = 1\n"; }
// A table header of n segments and a key below it: depth n + 1.
std::string header(int n) { return "[a" + repeat(".a", n - 1) + "]\nx = 1\n"; }
// An array-of-tables header of n segments (+1 for the array) and a key: depth n + 2.
std::string array_header(int n) { return "[[a" + repeat(".a", n - 1) + "]]\nx = 1\n"; }

bool ok(const std::string& text) { return check_toml_depth(text, "d.toml").ok(); }

TEST(TomlDepth, EveryKindOfNestingIsExactAtTheLimit) {
  ASSERT_EQ(kMaxTomlDepth, 64);
  EXPECT_TRUE(ok(arrays(63)));
  EXPECT_FALSE(ok(arrays(64)));
  EXPECT_TRUE(ok(inline_tables(63)));
  EXPECT_FALSE(ok(inline_tables(64)));
  EXPECT_TRUE(ok(dotted(64)));
  EXPECT_FALSE(ok(dotted(65)));
  EXPECT_TRUE(ok(header(63)));
  EXPECT_FALSE(ok(header(64)));
  EXPECT_TRUE(ok(array_header(62)));
  EXPECT_FALSE(ok(array_header(63)));
}

TEST(TomlDepth, KindsAddUp) {
  // [t.u] (2) + dotted key v.w (2) + 61 arrays = 65.
  const std::string base = "[t.u]\nv.w = ";
  EXPECT_TRUE(ok(base + repeat("[", 60) + repeat("]", 60) + "\n"));
  EXPECT_FALSE(ok(base + repeat("[", 61) + repeat("]", 61) + "\n"));
  // A later header resets the table depth.
  EXPECT_TRUE(ok(header(40) + "[b]\ny = " + repeat("[", 60) + repeat("]", 60) + "\n"));
}

TEST(TomlDepth, FarBeyondTheLimitIsRefusedWithTheLineAndNoCrash) {
  // The sizes that crashed toml++ (40 000 levels, 80 KB) and topolab's factor walk (16 000).
  for (const auto& text :
       {"x = 1\n" + arrays(40000), "x = 1\n" + inline_tables(40000), "x = 1\n" + dotted(40000),
        "x = 1\n" + header(40000), "x = 1\n" + array_header(40000)}) {
    auto r = check_toml_depth(text, "deep.toml");
    ASSERT_FALSE(r.ok());
    EXPECT_THAT(r.error().message, HasSubstr("deep.toml:2: TOML nested deeper than 64 levels"));
  }
}

TEST(TomlDepth, StringsAndCommentsDoNotCount) {
  const std::string deep = repeat("[{.", 200);
  EXPECT_TRUE(ok("a = \"" + deep + "\"\n"));
  EXPECT_TRUE(ok("a = '" + deep + "'\n"));
  EXPECT_TRUE(ok("a = \"\"\"\n" + deep + "\n\\\"\"\"" + deep + "\"\"\"\n"));
  EXPECT_TRUE(ok("a = '''\n" + deep + "\n'''\n"));
  EXPECT_TRUE(ok("# " + deep + "\na = 1\n"));
  EXPECT_TRUE(ok("\"" + repeat("a.", 200) + "\" = 1\n"));           // a quoted key is one segment
  EXPECT_TRUE(ok("a = \"\\\"" + deep + "\"\n"));                    // escaped quote inside
  EXPECT_FALSE(ok("a = \"x\" # " + deep + "\nb = " + arrays(64)));  // comment ends at newline
}

TEST(TomlDepth, FloatsAndMultiLineArraysAreNotHeaders) {
  EXPECT_TRUE(ok("a = [\n  [1.5, 2.5],\n  [3.5],\n]\n[b]\nc = 1979-05-27T07:32:00.999Z\n"));
  // A '[' starting a line inside an open array is an array, not a header.
  EXPECT_FALSE(ok("a = [\n" + repeat("[\n", 64) + repeat("]\n", 64) + "]\n"));
}

TEST(TomlDepth, LayoutParserRefusesBeforeTomlxx) {
  auto l = parse_layout("name = \"x\"\n" + arrays(40000), "deep.toml");
  ASSERT_FALSE(l.ok());
  EXPECT_THAT(l.error().message, HasSubstr("deep.toml:2: TOML nested deeper than 64"));
  auto h = parse_layout(header(40000), "hdr.toml");
  ASSERT_FALSE(h.ok());
  EXPECT_THAT(h.error().message, HasSubstr("hdr.toml:1: TOML nested deeper"));
}

}  // namespace
}  // namespace topolab
