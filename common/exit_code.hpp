#pragma once
// The one table of topolab's exit codes (docs/reliability.md "Exit codes" documents it; keep
// the two in step). Commands and both agents return these; cli::fail maps an Error to one by
// its kind, so a script can tell bad input from a missing file, an unreachable libvirt, a
// failing guest and a bug without reading the message (sysexits.h numbers where one fits).
#include "common/result.hpp"

namespace topolab {

enum class ExitCode : int {
  ok = 0,
  failed = 1,        // a failed operation of no finer kind (ErrorKind::failed)
  usage = 2,         // doctor: bad guest requirements; hook: missing DOMAIN OPERATION; agents
  mismatch = 3,      // run: a cell failed; boot: the guest sees another topology; hook: a step
  does_not_fit = 4,  // valid, but this host cannot hold it (CPUs, memory, nodes): try smaller
  data_error = 65,   // EX_DATAERR: refused input (a file, an option, a value out of range)
  no_input = 66,     // EX_NOINPUT: the thing asked for does not exist (a file, a domain, a row)
  unavailable = 69,  // EX_UNAVAILABLE: a libvirt call failed (daemon, connection, host)
  internal = 70,     // EX_SOFTWARE: a bug: an unchecked Result, an unexpected exception
  io_error = 74,     // EX_IOERR: reading or writing a file, a socket, a process failed
  guest = 76,        // EX_PROTOCOL: the guest (its agent) failed or answered wrongly
};

constexpr int to_int(ExitCode c) { return static_cast<int>(c); }

// An error's exit code, by its kind: one code per kind.
constexpr ExitCode exit_code_for(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::failed:
      return ExitCode::failed;
    case ErrorKind::input:
      return ExitCode::data_error;
    case ErrorKind::not_found:
      return ExitCode::no_input;
    case ErrorKind::does_not_fit:
      return ExitCode::does_not_fit;
    case ErrorKind::libvirt:
      return ExitCode::unavailable;
    case ErrorKind::io:
      return ExitCode::io_error;
    case ErrorKind::guest:
      return ExitCode::guest;
    case ErrorKind::internal:
      return ExitCode::internal;
  }
  return ExitCode::failed;
}
inline ExitCode exit_code_for(const Error& e) { return exit_code_for(e.kind); }

}  // namespace topolab
