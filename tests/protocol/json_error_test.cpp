// Issue 32 class 9: truncated or broken JSON is named with the offset where it stops being
// JSON ("not valid JSON" alone left the reader to search a 1 MiB line).
#include "protocol/json_error.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "protocol/protocol.hpp"

namespace topolab::protocol {
namespace {

using ::testing::HasSubstr;

TEST(JsonSyntaxError, NamesTheOffsetWhereTheTextStopsBeingJson) {
  EXPECT_EQ(json_syntax_error(R"({"a": 1})"), "");
  EXPECT_THAT(json_syntax_error(R"({"type":"hel)"), HasSubstr("at offset 12: "));
  EXPECT_THAT(json_syntax_error(R"({"a": 1,, "b": 2})"), HasSubstr("at offset 8: "));
  EXPECT_THAT(json_syntax_error(R"([1, 2)"), HasSubstr("at offset 5: unexpected end of input"));
  EXPECT_THAT(json_syntax_error(""), HasSubstr("at offset 0: "));
}

TEST(JsonSyntaxError, DecodeAndParseJsonTextCarryIt) {
  auto m = decode(R"({"type":"hello","version":)");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.error().message, HasSubstr("not valid JSON at offset 26: "));
  auto j = parse_json_text(R"({"k": tru})", 1000);
  ASSERT_FALSE(j.ok());
  EXPECT_THAT(j.error().message, HasSubstr("not valid JSON at offset "));
}

}  // namespace
}  // namespace topolab::protocol
