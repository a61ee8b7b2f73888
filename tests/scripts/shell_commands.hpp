#pragma once
// The programs a bash script runs, read from its text (issue 31: every program the scripts and
// tests run must come from a package the test command installs or from Debian's minbase). A
// small scanner, not a bash parser: it follows quotes, $( ), ` `, ${ }, $(( )), heredocs,
// comments and case patterns, and reports a word where bash would run a command (the start of
// a line or pipeline part, after the keywords that start one, past assignments and the wrappers
// that run their argument: exec, env, timeout N, setsid, ...). A word made of expansions
// ("$CMD") cannot be named and is not reported; functions of the script are not programs.
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace topolab::test {

struct CommandWord {
  std::string name;  // as written, or the base name of /bin/X, /usr/bin/X, /sbin/X, /usr/sbin/X
  int line = 0;      // 1-based
};

// `other_functions`: functions defined in files the script sources (they are no programs).
std::vector<CommandWord> shell_command_words(std::string_view script,
                                             const std::set<std::string>& other_functions = {});

// The functions a script defines.
std::set<std::string> shell_function_names(std::string_view script);

// argv[0] of the processes a C++ source starts with a literal name: ProcessSpec({"x", ...}),
// run_process({"x", ...}), in_path({"x", ...}) and the like.
std::vector<CommandWord> cxx_program_literals(std::string_view source);

}  // namespace topolab::test
