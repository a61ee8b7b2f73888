#pragma once
// After SIGINT/SIGTERM/SIGHUP the process must end by that signal once the signal watcher
// (orchestrator/libvirt/virt/domain_registry.cpp) has destroyed what the run created and said so.
// Until the watcher's kill, every other thread keeps running and meets the consequences of that
// cleanup: a start that fails because its domain was destroyed, an agent channel that closed,
// a define refused. Those are not results and not errors of the command. So every place where
// the process records or reports an outcome (the results store, the progress lines, a command's
// error, its exit) first calls hold_if_interrupted(): it returns at once when no signal
// arrived, and otherwise holds the calling thread until the watcher ends the process.
namespace topolab::interrupt {

// Called from the signal handler: lock-free and async-signal-safe. The first signal wins.
void note_signal(int sig) noexcept;
// The signal noted, 0 when none.
int pending_signal() noexcept;

// Marks the calling thread as one that cleans up after a signal: it is never held (the watcher,
// and a thread while it holds the domain registry's lock, which the watcher needs).
class NeverHeld {
 public:
  NeverHeld() noexcept;
  ~NeverHeld();
  NeverHeld(const NeverHeld&) = delete;
  NeverHeld& operator=(const NeverHeld&) = delete;
};

// Returns at once when no signal was noted or the calling thread is NeverHeld. Otherwise blocks
// until the watcher ends the process; bounded (90 s: its reconnect window plus the libvirt
// calls), after which it ends the process by the signal itself.
void hold_if_interrupted();

// Ends the process by `sig` with its default action (the exit status a shell reports as 128+N):
// the watcher after its report, and hold_if_interrupted() when its bound runs out.
[[noreturn]] void end_by_signal(int sig);

}  // namespace topolab::interrupt
