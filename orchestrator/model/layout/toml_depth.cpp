#include "orchestrator/model/layout/toml_depth.hpp"

#include <vector>

#include "orchestrator/model/layout/toml_parse.hpp"

namespace topolab {
namespace {

enum class Lexeme { kCode, kComment, kBasic, kLiteral, kMultiBasic, kMultiLiteral };

// One pass over the text, no recursion. Strings and comments are skipped so that quoted keys
// ("guest.l3_groups") and brackets inside strings do not count.
class DepthScanner {
 public:
  DepthScanner(std::string_view text, int max) : t_(text), max_(max) {}

  // 0 when within the limit, else the line where the limit was passed.
  int scan() {
    for (i_ = 0; i_ < t_.size(); ++i_) {
      const char c = t_[i_];
      if (c == '\n') ++line_;
      if (!step(c)) return line_;
    }
    return 0;
  }

 private:
  bool at(std::string_view s) const { return t_.substr(i_, s.size()) == s; }

  bool step(char c) {
    switch (state_) {
      case Lexeme::kComment:
        if (c != '\n') return true;
        state_ = Lexeme::kCode;
        return code(c);
      case Lexeme::kBasic:
        if (c == '\\') {
          skip_escaped();
        } else if (c == '"') {
          state_ = Lexeme::kCode;
        } else if (c == '\n') {
          state_ = Lexeme::kCode;  // an unterminated string is toml++'s error to report
          return code(c);
        }
        return true;
      case Lexeme::kLiteral:
        if (c == '\'') state_ = Lexeme::kCode;
        if (c != '\n') return true;
        state_ = Lexeme::kCode;
        return code(c);
      case Lexeme::kMultiBasic:
        if (c == '\\') {
          skip_escaped();
        } else if (at("\"\"\"")) {
          i_ += 2;
          state_ = Lexeme::kCode;
        }
        return true;
      case Lexeme::kMultiLiteral:
        if (at("'''")) {
          i_ += 2;
          state_ = Lexeme::kCode;
        }
        return true;
      case Lexeme::kCode:
        return code(c);
    }
    return true;
  }

  // A backslash escapes the next character; a newline escaped still counts as a line.
  void skip_escaped() {
    if (i_ + 1 < t_.size()) {
      ++i_;
      if (t_[i_] == '\n') ++line_;
    }
  }

  bool code(char c) {
    switch (c) {
      case '#':
        state_ = Lexeme::kComment;
        return true;
      case '"':
        state_ = at("\"\"\"") ? Lexeme::kMultiBasic : Lexeme::kBasic;
        if (state_ == Lexeme::kMultiBasic) i_ += 2;
        return mark_content();
      case '\'':
        state_ = at("'''") ? Lexeme::kMultiLiteral : Lexeme::kLiteral;
        if (state_ == Lexeme::kMultiLiteral) i_ += 2;
        return mark_content();
      case '\n':
        dots_ = 0;
        if (brackets_ == 0 && !in_header_) {
          line_start_ = true;
          key_dots_ = 0;
        }
        return true;
      case ' ':
      case '\t':
      case '\r':
        return true;
      case '[':
        if (brackets_ == 0 && line_start_ && !in_header_) return open_header();
        return open_bracket();
      case '{':
        return open_bracket();
      case ']':
        if (in_header_) return close_header();
        [[fallthrough]];
      case '}':
        close_bracket();
        return mark_content();
      case '=':  // the key's segments hold for its whole value
        key_dots_ = dots_;
        dots_ = 0;
        return mark_content();
      case ',':  // next value or next key of an inline table
        key_dots_ = 0;
        dots_ = 0;
        return mark_content();
      case '.':
        ++dots_;
        return mark_content();
      default:
        return mark_content();
    }
  }

  // Inside a bracket the enclosing key's segments still count: saved until it closes.
  bool open_bracket() {
    saved_.push_back(key_dots_);
    saved_sum_ += key_dots_;
    key_dots_ = dots_ = 0;
    ++brackets_;
    return mark_content();
  }

  void close_bracket() {
    dots_ = 0;
    if (brackets_ == 0) return;  // unbalanced: toml++ reports it
    --brackets_;
    key_dots_ = saved_.back();
    saved_sum_ -= key_dots_;
    saved_.pop_back();
  }

  bool open_header() {
    in_header_ = true;
    array_header_ = i_ + 1 < t_.size() && t_[i_ + 1] == '[';
    if (array_header_) ++i_;
    header_depth_ = 0;
    dots_ = 0;
    line_start_ = false;
    return depth() <= max_;
  }

  bool close_header() {
    in_header_ = false;
    if (array_header_ && i_ + 1 < t_.size() && t_[i_ + 1] == ']') ++i_;
    header_depth_ = dots_ + 1 + (array_header_ ? 1 : 0);
    dots_ = 0;
    return header_depth_ <= max_;
  }

  // Any token: the line is no longer at its start; check the depth reached here.
  bool mark_content() {
    line_start_ = false;
    return depth() <= max_;
  }

  // Inside a header its own segments count; elsewhere the table the last header opened, the
  // open brackets, the dotted-key segments and the key itself.
  int depth() const {
    if (in_header_) return brackets_ + dots_ + 1 + (array_header_ ? 1 : 0);
    return header_depth_ + saved_sum_ + brackets_ + key_dots_ + dots_ + 1;
  }

  std::string_view t_;
  int max_;
  std::size_t i_ = 0;
  int line_ = 1;
  Lexeme state_ = Lexeme::kCode;
  int brackets_ = 0, dots_ = 0, key_dots_ = 0, header_depth_ = 0;
  std::vector<int> saved_;  // key_dots_ of each open bracket; at most max + 1 entries
  int saved_sum_ = 0;
  bool line_start_ = true, in_header_ = false, array_header_ = false;
};

}  // namespace

Result<void> check_toml_depth(std::string_view text, const std::string& origin, int max_depth) {
  const int line = DepthScanner(text, max_depth).scan();
  if (line == 0) return {};
  return make_error(
      ErrorKind::input,
      origin + ":" + std::to_string(line) + ": TOML nested deeper than " +
          std::to_string(max_depth) +
          " levels (tables, dotted keys, arrays, inline tables); refusing to parse it");
}

Result<toml::table> parse_toml(std::string_view text, const std::string& origin) {
  TL_TRY(check_toml_depth(text, origin));
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    return make_error(ErrorKind::input, origin + ":" + std::to_string(e.source().begin.line) + ":" +
                                            std::to_string(e.source().begin.column) +
                                            ": TOML syntax error: " + std::string(e.description()));
  }
}

}  // namespace topolab
