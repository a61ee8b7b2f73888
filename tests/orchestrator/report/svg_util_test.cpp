// The report's one markup-escaping table (svg_util.hpp), used by the HTML reporter and the SVG
// pictures: markup characters become entities, control characters never pass (redteam wave 3:
// an ESC from a store's host column reached a terminal that printed the HTML).
#include "orchestrator/report/svg_util.hpp"

#include <gtest/gtest.h>

#include <string>

namespace topolab::report::svg {
namespace {

std::string escaped(const std::string& in) {
  std::string out;
  for (char c : in) append_markup_escaped(out, c);
  return out;
}

TEST(MarkupEscape, MarkupBecomesEntitiesControlsBecomeQuestionMarks) {
  EXPECT_EQ(escaped("<a href='x'>\"&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&quot;&amp;&quot;&lt;/a&gt;");
  EXPECT_EQ(escaped("\x1b[2J\x07\x7f"
                    "x"),
            "?[2J??x");
  EXPECT_EQ(escaped("a\tb\nc\r"), "a\tb\nc\r") << "legal XML whitespace is kept";
  EXPECT_EQ(escaped("caf\xc3\xa9"), "caf\xc3\xa9") << "UTF-8 passes";
}

}  // namespace
}  // namespace topolab::report::svg
