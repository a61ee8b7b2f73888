// Class 8 of issue 12: guest and file text is made inert before a terminal or a spreadsheet.
#include "common/terminal_text.hpp"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace topolab {
namespace {

TEST(TerminalSafe, EscapesControlCharactersAndKeepsText) {
  EXPECT_EQ(terminal_safe("plain ns"), "plain ns");
  EXPECT_EQ(terminal_safe("\x1b[2J\x1b]0;title\x07"), "\\x1b[2J\\x1b]0;title\\x07");
  EXPECT_EQ(terminal_safe("a\nb\tc\rd"), "a\\x0ab\\x09c\\x0dd");
  EXPECT_EQ(terminal_safe(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(terminal_safe("del\x7f"), "del\\x7f");
  // C1 controls as UTF-8 (U+009B is a one-character CSI on some terminals).
  EXPECT_EQ(terminal_safe("\xc2\x9b"
                          "31m"),
            "\\u009b31m");
  EXPECT_EQ(terminal_safe("\xc2\x85"), "\\u0085");
  // Valid UTF-8 text passes unchanged.
  EXPECT_EQ(terminal_safe("µs – Größe ✓ 😀"), "µs – Größe ✓ 😀");
  // Invalid UTF-8: stray bytes, truncated, overlong and surrogate forms become \xNN.
  EXPECT_EQ(terminal_safe("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(terminal_safe("ab\xe2\x82"), "ab\\xe2\\x82");
  EXPECT_EQ(terminal_safe("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(terminal_safe("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  // The raw 8-bit CSI byte alone is invalid UTF-8 and escaped too.
  EXPECT_EQ(terminal_safe("\x9b"), "\\x9b");
}

TEST(CsvFormulaSafe, PrefixesFormulaStartsOnly) {
  EXPECT_EQ(csv_formula_safe("=HYPERLINK(\"http://x\")"), "'=HYPERLINK(\"http://x\")");
  EXPECT_EQ(csv_formula_safe("+1+1"), "'+1+1");
  EXPECT_EQ(csv_formula_safe("-2+3"), "'-2+3");
  EXPECT_EQ(csv_formula_safe("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(csv_formula_safe("\tcmd"), "'\tcmd");
  EXPECT_EQ(csv_formula_safe("\rcmd"), "'\rcmd");
  EXPECT_EQ(csv_formula_safe("ns"), "ns");
  EXPECT_EQ(csv_formula_safe("a=b"), "a=b");
  EXPECT_EQ(csv_formula_safe(""), "");
}

}  // namespace
// What an error echoes is bounded (redteam wave 2: a 1 MB option value was printed in full):
// the head and the tail survive, the cut says how much went.
TEST(BoundedText, KeepsShortTextAndCutsTheMiddleOfLongText) {
  EXPECT_EQ(bounded_text("short"), "short");
  const std::string exact(kMaxMessageBytes, 'x');
  EXPECT_EQ(bounded_text(exact), exact);
  const std::string big = "HEAD" + std::string(1000000, 'a') + "TAIL";
  const std::string out = bounded_text(big);
  EXPECT_LT(out.size(), kMaxMessageBytes + 64);
  EXPECT_EQ(out.rfind("HEAD", 0), 0u);
  EXPECT_EQ(out.substr(out.size() - 4), "TAIL");
  EXPECT_NE(out.find("[" + std::to_string(big.size() - kMaxMessageBytes) + " bytes cut]"),
            std::string::npos)
      << out.substr(0, 100);
}

// Free text kept in a typed value (redteam wave 4): printable UTF-8 of at most N bytes, cut at a
// character boundary, and unchanged when applied again (a value read back from its JSON).
TEST(DisplayText, EscapesCutsAtACharacterAndIsIdempotent) {
  EXPECT_EQ(display_text("AMD EPYC 7451", 64), "AMD EPYC 7451");
  EXPECT_EQ(display_text("Auth\xff\x1b[2J\xc2\x9b", 64), "Auth\\xff\\x1b[2J\\u009b");
  // "é" is 2 bytes: a cut through it steps back to the character before.
  const std::string accents = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";
  EXPECT_EQ(display_text(accents, 6), "\xc3\xa9...");
  for (const std::string& text :
       {std::string(5000, 'x'), accents + accents, std::string("a\x1b") + std::string(600, 'b'),
        std::string("\xc3") + std::string(10, '\xa9')}) {
    const std::string once = display_text(text, 16);
    EXPECT_LE(once.size(), 16u) << once;
    EXPECT_EQ(display_text(once, 16), once);
    EXPECT_EQ(terminal_safe(once), once) << "not printable UTF-8: " << terminal_safe(once);
  }
}

// One spelling of a list of accepted values, for any container of names.
TEST(JoinChoices, CommasThenOrBeforeTheLast) {
  EXPECT_EQ(join_choices(std::vector<std::string>{}), "");
  EXPECT_EQ(join_choices(std::vector<std::string>{"linux"}), "linux");
  EXPECT_EQ(join_choices(std::vector<std::string>{"linux", "windows"}), "linux or windows");
  const std::array<std::string_view, 4> formats{"console", "csv", "html", "json"};
  EXPECT_EQ(join_choices(formats), "console, csv, html or json");
}

}  // namespace topolab
