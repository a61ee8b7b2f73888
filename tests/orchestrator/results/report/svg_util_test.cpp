// The report's one markup-escaping table (svg_util.hpp), used by the HTML reporter and the SVG
// pictures: markup characters become entities, control characters never pass (redteam wave 3:
// an ESC from a store's host column reached a terminal that printed the HTML).
#include "orchestrator/results/report/svg_util.hpp"

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

// Issue 32 class 6: a stored label with bytes that are not UTF-8 made the page invalid, and a
// bidirectional override (U+202E) showed the label, and the rest of its line, reversed.
TEST(TextEscape, InvalidUtf8BecomesReplacementBidiAndC1ControlsAreNamed) {
  EXPECT_EQ(esc("a\xff\xc3"
                "b"),
            "a\xEF\xBF\xBD\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(esc("cell \xE2\x80\xAE"
                "fed=1"),
            "cell [U+202E]fed=1");
  EXPECT_EQ(esc("\xE2\x81\xA6x\xE2\x81\xA9\xE2\x80\x8F"), "[U+2066]x[U+2069][U+200F]");
  EXPECT_EQ(esc("\xC2\x9B"
                "2J"),
            "[U+009B]2J");
  EXPECT_EQ(esc("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac") << "valid text passes";
  std::string html;
  append_text_escaped(html, "a\tb\n<\xE2\x80\xAE>", /*keep_whitespace=*/true);
  EXPECT_EQ(html, "a\tb\n&lt;[U+202E]&gt;");
}

}  // namespace
}  // namespace topolab::report::svg
