// json_line / json_document (common/json_text.hpp): the one JSON writer of the project.
#include "common/json_text.hpp"

#include <gtest/gtest.h>

namespace topolab {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

TEST(JsonText, BytesThatAreNotUtf8BecomeTheReplacementCharacter) {
  // A Latin-1 'é' (0xE9 alone), a stray continuation byte, and a truncated 3-byte sequence at
  // the end: nlohmann's default dump throws type_error.316 on each.
  const nlohmann::json j = {{"path", std::string("caf\xE9/x\x80y\xE2\x82")}};
  ASSERT_THROW((void)j.dump(), nlohmann::json::type_error) << "the default dump must throw";
  std::string line;
  ASSERT_NO_THROW(line = json_line(j));
  EXPECT_EQ(line,
            "{\"path\":\"caf" + kReplacement + "/x" + kReplacement + "y" + kReplacement + "\"}");
  std::string doc;
  ASSERT_NO_THROW(doc = json_document(j));
  EXPECT_NE(doc.find("caf" + kReplacement + "/x"), std::string::npos) << doc;
  // What was written is valid JSON again (the strict parser reads it back).
  EXPECT_EQ(nlohmann::json::parse(line), nlohmann::json::parse(doc));
}

TEST(JsonText, ValidUtf8IsWrittenAsItIsNotEscaped) {
  const nlohmann::json j = {{"model", "Intel\xC2\xAE Xeon\xC2\xAE \xE2\x80\x94 \xF0\x9F\x98\x80"}};
  EXPECT_EQ(json_line(j), j.dump()) << "valid input: the same text as the strict dump";
  EXPECT_EQ(json_document(j), j.dump(2) + "\n");
}

TEST(JsonText, ALineIsCompactADocumentIndentedAndEndsInANewline) {
  const nlohmann::json j = {{"a", {1, 2}}, {"b", {{"c", nullptr}}}};
  EXPECT_EQ(json_line(j), R"({"a":[1,2],"b":{"c":null}})");
  EXPECT_EQ(json_document(j),
            "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {\n    \"c\": null\n  }\n}\n");
  EXPECT_EQ(json_line(nlohmann::json("x\ny")), R"("x\ny")") << "a line never holds a newline";
}

}  // namespace
}  // namespace topolab
