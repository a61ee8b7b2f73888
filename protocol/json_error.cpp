#include "protocol/json_error.hpp"

#include <nlohmann/json.hpp>

namespace topolab::protocol {
namespace {

// A SAX handler that accepts everything and keeps the parser's error position: no document is
// built and no exception thrown (the text was already refused once; this only explains why).
struct ErrorPosition : nlohmann::json::json_sax_t {
  std::size_t offset = 0;
  std::string what;
  bool failed = false;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    failed = true;
    offset = position;
    what = ex.what();
    return false;
  }
};

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error
// while parsing value - unexpected end of input; expected ..." without the prefix.
std::string reason(const std::string& what) {
  const auto dash = what.find(" - ");
  return dash == std::string::npos ? "syntax error" : what.substr(dash + 3);
}

}  // namespace

std::string json_syntax_error(std::string_view text) {
  ErrorPosition handler;
  const bool ok = nlohmann::json::sax_parse(text, &handler);
  if (ok || !handler.failed) return {};
  // The position counts the byte that failed; the offset is zero-based like the XML readers'.
  const std::size_t offset = handler.offset > 0 ? handler.offset - 1 : 0;
  return "at offset " + std::to_string(offset) + ": " + reason(handler.what);
}

}  // namespace topolab::protocol
