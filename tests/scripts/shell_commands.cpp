#include "tests/scripts/shell_commands.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

namespace topolab::test {
namespace {

bool is_assignment(const std::string& w) {
  static const std::regex kAssign(R"(^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=.*)");
  return std::regex_match(w, kAssign);
}

bool is_name(const std::string& w) {
  static const std::regex kName(R"(^[A-Za-z0-9_][A-Za-z0-9_.+-]*$)");
  return std::regex_match(w, kName);
}

const std::set<std::string, std::less<>>& builtins() {
  static const std::set<std::string, std::less<>> k = {
      "alias",    "bg",       "bind",    "break",    "builtin",   "caller",   "cd",      "compgen",
      "complete", "continue", "declare", "dirs",     "disown",    "echo",     "enable",  "eval",
      "exit",     "export",   "false",   "fc",       "fg",        "getopts",  "hash",    "help",
      "history",  "jobs",     "kill",    "let",      "local",     "logout",   "mapfile", "popd",
      "printf",   "pushd",    "pwd",     "read",     "readarray", "readonly", "return",  "set",
      "shift",    "shopt",    "source",  "suspend",  "test",      "times",    "trap",    "true",
      "type",     "typeset",  "ulimit",  "umask",    "unalias",   "unset",    "wait",    ".",
      ":",        "[",        "]",       "[[",       "]]",        "command",  "exec",    "fi",
      "done",     "esac",     "in",      "function", "coproc",    "{",        "}"};
  return k;
}

// Keywords after which a command comes.
bool starts_command(const std::string& w) {
  return w == "then" || w == "do" || w == "else" || w == "elif" || w == "if" || w == "while" ||
         w == "until" || w == "!" || w == "time" || w == "{";
}

// Wrappers that run their argument (reported themselves); how many plain arguments they take
// before the command (options are skipped too).
int wrapper_arguments(const std::string& w) {
  if (w == "timeout" || w == "flock" || w == "chroot") return 1;
  if (w == "exec" || w == "env" || w == "setsid" || w == "nohup" || w == "nice" || w == "xargs" ||
      w == "stdbuf" || w == "sudo" || w == "ionice" || w == "command" || w == "unshare" ||
      w == "setarch" || w == "tini")
    return 0;
  return -1;
}

class Scanner {
 public:
  Scanner(std::string_view s, std::set<std::string> functions)
      : s_(s), functions_(std::move(functions)) {}

  std::vector<CommandWord> run() {
    code(0);
    return std::move(out_);
  }

 private:
  struct Context {
    bool expect = true;            // the next word is a command
    int skip_args = -1;            // a wrapper's plain arguments still to pass (-1: none)
    bool option_argument = false;  // the next word is a wrapper option's argument
    bool redirect = false;         // the next word is a redirection's target
    bool word_literal = true;
    std::string word;
    int word_line = 0;
    // case: 0 none, 1 subject next, 2 "in" next, 3 in patterns, 4 in a branch
    std::vector<int> cases;
  };

  char at(std::size_t k) const { return k < s_.size() ? s_[k] : '\0'; }

  void newline() {
    ++line_;
    for (auto& term : heredocs_) skip_heredoc(term);
    heredocs_.clear();
  }

  void skip_heredoc(const std::string& term) {
    while (i_ < s_.size()) {
      auto end = s_.find('\n', i_);
      auto text = s_.substr(i_, end == std::string_view::npos ? std::string_view::npos : end - i_);
      while (!text.empty() && (text.front() == '\t' || text.front() == ' ')) text.remove_prefix(1);
      i_ = end == std::string_view::npos ? s_.size() : end + 1;
      ++line_;
      if (text == term) return;
    }
  }

  void end_word(Context& c) {
    if (c.word.empty()) return;
    std::string w = std::move(c.word);
    bool literal = c.word_literal;
    c.word.clear();
    c.word_literal = true;
    if (c.redirect) {
      c.redirect = false;
      return;
    }
    if (!c.cases.empty()) {
      int& st = c.cases.back();
      if (st == 1) {
        st = 2;
        return;
      }
      if (st == 2) {
        st = 3;
        return;
      }  // "in"
      if (st == 3) {
        if (w == "esac") c.cases.pop_back();
        return;  // a pattern
      }
      if (st == 4 && w == "esac" && c.expect) {
        c.cases.pop_back();
        c.expect = false;
        return;
      }
    }
    if (!c.expect) return;
    if (c.skip_args >= 0) {
      if (c.option_argument) {
        c.option_argument = false;
        return;
      }
      if (!w.empty() && w[0] == '-') {
        // timeout -s SIG / -k DURATION, nice -n N, flock -w SECS: the option's own argument
        c.option_argument = w == "-s" || w == "-k" || w == "-n" || w == "-w" || w == "-c";
        return;
      }
      if (is_assignment(w)) return;
      if (c.skip_args > 0) {
        --c.skip_args;
        return;
      }
      c.skip_args = -1;
    }
    if (is_assignment(w)) return;
    if (w == "case") {
      c.cases.push_back(1);
      c.expect = false;
      return;
    }
    if (w == "for" || w == "select" || w == "[[" || w == "[") {
      c.expect = false;
      return;
    }
    if (starts_command(w)) return;
    if (!literal) {
      c.expect = false;
      return;
    }
    report(w, c.word_line);
    int args = wrapper_arguments(base_name(w));
    if (args >= 0) {
      c.skip_args = args;
      return;
    }
    c.expect = false;
  }

  static std::string base_name(const std::string& w) {
    auto slash = w.rfind('/');
    return slash == std::string::npos ? w : w.substr(slash + 1);
  }

  void report(const std::string& w, int line) {
    std::string name = w;
    if (w.find('/') != std::string::npos) {
      static const std::regex kSystem(R"(^/(usr/)?s?bin/[^/]+$)");
      if (!std::regex_match(w, kSystem)) return;  // the repository's own scripts and builds
      name = base_name(w);
    }
    if (!is_name(name) || builtins().count(name) || functions_.count(name)) return;
    out_.push_back({name, line});
  }

  void add(Context& c, char ch) {
    if (c.word.empty()) c.word_line = line_;
    c.word += ch;
  }

  void separator(Context& c) {
    end_word(c);
    c.expect = true;
    c.skip_args = -1;
    c.option_argument = false;
  }

  // ${ ... }: to the matching brace.
  void skip_braces() {
    int depth = 0;
    for (; i_ < s_.size(); ++i_) {
      if (s_[i_] == '\n') ++line_;
      if (s_[i_] == '$' && at(i_ + 1) == '(' && at(i_ + 2) != '(') {  // ${v:-$(cmd)}
        i_ += 2;
        code(')');
        --i_;
        continue;
      }
      if (s_[i_] == '{') ++depth;
      if (s_[i_] == '}' && --depth == 0) {
        ++i_;
        return;
      }
    }
  }

  // $(( ... )): to the matching "))".
  void skip_arithmetic() {
    int depth = 0;
    for (; i_ < s_.size(); ++i_) {
      if (s_[i_] == '\n') ++line_;
      if (s_[i_] == '(') ++depth;
      if (s_[i_] == ')' && --depth == 0) {
        ++i_;
        return;
      }
    }
  }

  // ( ... ) of an array assignment: to the matching parenthesis, quotes followed.
  void skip_array() {
    int depth = 0;
    while (i_ < s_.size()) {
      char ch = s_[i_];
      if (ch == '\'') {
        single_quoted();
        continue;
      }
      if (ch == '"') {
        double_quoted();
        continue;
      }
      if (ch == '\n') ++line_;
      ++i_;
      if (ch == '(') ++depth;
      if (ch == ')' && --depth == 0) return;
    }
  }

  void single_quoted() {
    ++i_;
    while (i_ < s_.size() && s_[i_] != '\'') {
      if (s_[i_] == '\n') ++line_;
      ++i_;
    }
    ++i_;
  }

  void double_quoted() {
    ++i_;
    while (i_ < s_.size() && s_[i_] != '"') {
      char ch = s_[i_];
      if (ch == '\\') {
        i_ += 2;
        continue;
      }
      if (ch == '\n') ++line_;
      if (ch == '$' && at(i_ + 1) == '(' && at(i_ + 2) == '(') {
        ++i_;
        skip_arithmetic();
        continue;
      }
      if (ch == '$' && at(i_ + 1) == '(') {
        i_ += 2;
        code(')');
        continue;
      }
      if (ch == '$' && at(i_ + 1) == '{') {
        ++i_;
        skip_braces();
        continue;
      }
      if (ch == '`') {
        ++i_;
        code('`');
        continue;
      }
      ++i_;
    }
    ++i_;
  }

  void heredoc_start(Context& c) {
    end_word(c);
    i_ += 2;
    if (at(i_) == '<') {  // <<< here-string: the next word is data
      ++i_;
      c.redirect = true;
      return;
    }
    if (at(i_) == '-') ++i_;
    while (at(i_) == ' ') ++i_;
    std::string term;
    while (i_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[i_])) && s_[i_] != ';' &&
           s_[i_] != ')' && s_[i_] != '|' && s_[i_] != '&') {
      if (s_[i_] != '\'' && s_[i_] != '"' && s_[i_] != '\\') term += s_[i_];
      ++i_;
    }
    if (!term.empty()) heredocs_.push_back(term);
  }

  // Runs until `closer` (')' of $( ) or ( ), '`', or 0 for the end of the text).
  void code(char closer) {
    Context c;
    while (i_ < s_.size()) {
      char ch = s_[i_];
      if (ch == closer && closer != 0) {
        if (closer == ')' && !c.cases.empty() && c.cases.back() == 3) {
          end_word(c);
          c.cases.back() = 4;
          c.expect = true;
          ++i_;
          continue;
        }
        end_word(c);
        ++i_;
        return;
      }
      switch (ch) {
        case ' ':
        case '\t':
          end_word(c);
          ++i_;
          break;
        case '\\':
          if (at(i_ + 1) == '\n') {
            end_word(c);
            i_ += 2;
            ++line_;
          } else {
            add(c, at(i_ + 1));
            c.word_literal = false;
            i_ += 2;
          }
          break;
        case '\n':
          separator(c);
          ++i_;
          newline();
          break;
        case '#':
          if (c.word.empty()) {
            while (i_ < s_.size() && s_[i_] != '\n') ++i_;
          } else {
            add(c, ch);
            ++i_;
          }
          break;
        case '\'':
          if (c.word.empty()) c.word_line = line_;
          c.word += 'Q';
          c.word_literal = false;
          single_quoted();
          break;
        case '"':
          if (c.word.empty()) c.word_line = line_;
          c.word += 'Q';
          c.word_literal = false;
          double_quoted();
          break;
        case '`':
          ++i_;
          code('`');
          c.word_literal = false;
          break;
        case '$':
          if (c.word.empty()) c.word_line = line_;
          c.word += 'V';
          c.word_literal = false;
          if (at(i_ + 1) == '(' && at(i_ + 2) == '(') {
            ++i_;
            skip_arithmetic();
          } else if (at(i_ + 1) == '(') {
            i_ += 2;
            code(')');
          } else if (at(i_ + 1) == '{') {
            ++i_;
            skip_braces();
          } else {
            ++i_;
          }
          break;
        case ';':
          if (at(i_ + 1) == ';' || (at(i_ + 1) == '&')) {  // ;; ;& end a case branch
            end_word(c);
            if (!c.cases.empty()) c.cases.back() = 3;
            i_ += at(i_ + 2) == '&' ? 3 : 2;
            break;
          }
          separator(c);
          ++i_;
          break;
        case '&':
        case '|':
          if (!c.cases.empty() && c.cases.back() == 3) {  // a | b) pattern alternatives
            end_word(c);
            ++i_;
            break;
          }
          if (ch == '&' && at(i_ + 1) == '>') {
            end_word(c);
            i_ += 2;
            c.redirect = true;
            break;
          }
          separator(c);
          ++i_;
          break;
        case '(':
          if (at(i_ + 1) == ')') {  // name() { ...: a function definition
            c.word.clear();
            c.word_literal = true;
            i_ += 2;
            c.expect = true;
            break;
          }
          if (at(i_ + 1) == '(') {  // (( arithmetic ))
            end_word(c);
            skip_arithmetic();
            c.expect = false;
            break;
          }
          if (!c.cases.empty() && c.cases.back() == 3) {  // (pattern) form
            ++i_;
            break;
          }
          if (!c.word.empty() && c.word.back() == '=') {  // NAME=(a b c): an array is data
            c.word.clear();
            c.word_literal = true;
            skip_array();
            break;
          }
          end_word(c);
          ++i_;
          code(')');
          c.expect = false;
          break;
        case ')':
          if (!c.cases.empty() && c.cases.back() == 3) {
            end_word(c);
            c.cases.back() = 4;
            c.expect = true;
          } else {
            end_word(c);
          }
          ++i_;
          break;
        case '<':
        case '>':
          if (ch == '<' && at(i_ + 1) == '<') {
            heredoc_start(c);
            break;
          }
          if (at(i_ + 1) == '(') {  // process substitution: itself the redirection's target
            end_word(c);
            c.redirect = false;
            i_ += 2;
            code(')');
            break;
          }
          if (!c.word.empty() && std::all_of(c.word.begin(), c.word.end(), ::isdigit))
            c.word.clear();  // 2>file: the fd number
          end_word(c);
          ++i_;
          while (at(i_) == '>' || at(i_) == '&' || at(i_) == '|') ++i_;
          if (std::isdigit(static_cast<unsigned char>(at(i_))) || at(i_) == '-') {
            while (std::isdigit(static_cast<unsigned char>(at(i_))) || at(i_) == '-') ++i_;
          } else {
            c.redirect = true;
          }
          break;
        default:
          add(c, ch);
          ++i_;
      }
    }
    end_word(c);
  }

  std::string_view s_;
  std::size_t i_ = 0;
  int line_ = 1;
  std::vector<std::string> heredocs_;
  std::set<std::string> functions_;
  std::vector<CommandWord> out_;
};

std::set<std::string> function_names(std::string_view script) {
  static const std::regex kFunction(
      R"((^|\n)[ \t]*(function[ \t]+)?([A-Za-z_][A-Za-z0-9_-]*)[ \t]*\(\))");
  std::set<std::string> names;
  std::string text(script);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kFunction);
       it != std::sregex_iterator(); ++it)
    names.insert((*it)[3].str());
  return names;
}

}  // namespace

std::vector<CommandWord> shell_command_words(std::string_view script,
                                             const std::set<std::string>& other_functions) {
  auto functions = function_names(script);
  functions.insert(other_functions.begin(), other_functions.end());
  return Scanner(script, std::move(functions)).run();
}

std::set<std::string> shell_function_names(std::string_view script) {
  return function_names(script);
}

std::vector<CommandWord> cxx_program_literals(std::string_view source) {
  // A literal system path (/usr/bin/X, /sbin/X, ...), the first literal of an argv list (and
  // what a leading "timeout" runs), or find_program("X").
  static const std::regex kSystemPath(R"re("/(usr/)?s?bin/([A-Za-z0-9_.+-]+)")re");
  static const std::regex kArgv(
      R"re((ProcessSpec|run_process|run_for_output|in_path|argv\s*=)\s*\(?\s*\{\s*\{?\s*"([^"]+)"(\s*,\s*"([^"]+)")?(\s*,\s*"([^"]+)")?)re");
  static const std::regex kFind(R"re(find_program\(\s*"([^"]+)"\s*\))re");
  std::vector<CommandWord> found;
  std::string text(source);
  auto line_at = [&](std::ptrdiff_t pos) {
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + pos, '\n'));
  };
  auto add = [&](const std::string& name, std::ptrdiff_t pos) {
    if (name == "topolab" || name == "topolab-agent") return;  // our own, not a dependency
    if (name.find('/') == std::string::npos && is_name(name)) found.push_back({name, line_at(pos)});
  };
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kSystemPath);
       it != std::sregex_iterator(); ++it)
    add((*it)[2].str(), it->position());
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kArgv);
       it != std::sregex_iterator(); ++it) {
    add((*it)[2].str(), it->position());
    if ((*it)[2].str() != "timeout") continue;
    for (int k : {4, 6}) {  // timeout DURATION PROGRAM: the first literal that is no duration
      std::string next = (*it)[k].str();
      if (next.empty() || next[0] == '-' || std::isdigit(static_cast<unsigned char>(next[0])))
        continue;
      add(next, it->position());
      break;
    }
  }
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kFind);
       it != std::sregex_iterator(); ++it)
    add((*it)[1].str(), it->position());
  return found;
}

}  // namespace topolab::test
