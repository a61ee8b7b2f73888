#pragma once
// The one table of topolab's exit codes (docs/reliability.md "Exit codes" documents it; keep
// the two in step). Commands return these; cli::fail maps an Error to one.
#include "common/result.hpp"

namespace topolab {

enum class ExitCode : int {
  ok = 0,
  failed = 1,     // refused input or a failed operation (one line on stderr)
  usage = 2,      // doctor: bad guest requirements; hook: missing DOMAIN OPERATION
  mismatch = 3,   // run: a cell failed; boot: the guest sees another topology; hook: a step failed
  internal = 70,  // a bug (EX_SOFTWARE): an unchecked Result, an unexpected exception
};

constexpr int to_int(ExitCode c) { return static_cast<int>(c); }

// An error's exit code: a bug is 70, everything else (the input, the host, libvirt, the guest)
// is 1.
constexpr ExitCode exit_code_for(ErrorKind kind) {
  return kind == ErrorKind::internal ? ExitCode::internal : ExitCode::failed;
}
inline ExitCode exit_code_for(const Error& e) { return exit_code_for(e.kind); }

}  // namespace topolab
