#pragma once
// Runs a helper program (qemu-img) by argv through posix_spawn: never a shell, output bounded,
// time bounded (killed at the deadline).
#include <chrono>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace topolab::guestsource {

struct ProgramOutput {
  int exit_code = -1;
  std::string output;  // stdout and stderr together, at most max_output bytes
};

// argv[0] is searched in PATH. An exit code other than 0 is returned, not an error; a program
// that cannot start or outlives `timeout` is an error.
Result<ProgramOutput> run_program(const std::vector<std::string>& argv,
                                  std::chrono::milliseconds timeout,
                                  std::size_t max_output = 1u << 20);

}  // namespace topolab::guestsource
