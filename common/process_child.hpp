#pragma once
// The child side of Process::spawn (process.cpp): what runs between fork and exec. Internal to
// common/; split out so the parent's bookkeeping and the async-signal-safe child read apart.
#include <sys/resource.h>
#include <sys/types.h>

#include <string>

#include "common/owned_fd.hpp"
#include "common/result.hpp"

namespace topolab::spawn_child {

struct Pipe {
  OwnedFd read, write;
};

Result<Pipe> make_pipe();

// Everything the child needs, prepared before fork: between fork and exec the child of a
// threaded process may only make async-signal-safe calls (no allocation, no locks).
struct ChildPlan {
  const char* program = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  const char* cwd = nullptr;
  int in = -1, out = -1, err = -1;  // -1: keep ours (inherit)
  int report = -1;                  // CLOEXEC pipe: errno of a failed exec
  bool new_group = true;
  bool die_with_parent = false;
  pid_t parent = 0;
  rlimit address_space{0, 0};
  bool limit_address_space = false;
};

// Sets up the streams, group, limits and signals of `plan`, then execs it; on any failure
// writes errno to plan.report and exits 127. Async-signal-safe only (see ChildPlan).
[[noreturn]] void run_child(const ChildPlan& plan);

}  // namespace topolab::spawn_child
