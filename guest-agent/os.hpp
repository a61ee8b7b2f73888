#pragma once
// The few OS primitives the benchmarks and the agent's entry point need, as free functions so
// the shared code (bench/*.cpp, main.cpp) has no #ifdef: os_linux.cpp implements them with
// Linux syscalls, os_windows.cpp with Win32. CMake compiles exactly one of the two. (Available
// memory and spawning children are platform.hpp's mem_available_bytes and spawn_and_wait.)
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/cpu_list.hpp"
#include "common/result.hpp"
#include "host/host_topology.hpp"

namespace topolab::agent::os {

// Once at start-up: Linux ignores SIGPIPE; Windows starts Winsock.
void process_setup();

// Runs `before_exit` when SIGTERM, SIGINT or SIGHUP arrives, then ends the process by that
// signal: what configure changed is put back on every exit but SIGKILL (on the host backend,
// with --allow-host-settings, those are the host's own settings). Linux: the first call blocks
// the signals in the calling thread (call it before starting threads) and starts one thread that
// sigwait()s; a later call replaces the hook, nullptr removes it (waiting for a running one).
// Windows: nothing (a service is stopped through the SCM and restores on its stop request).
void set_termination_hook(std::function<void()> before_exit);

// The topology this OS reports: sysfs on Linux, GetLogicalProcessorInformationEx on Windows.
Result<HostTopology> read_local_topology();

// Anonymous zeroed read-write memory (mmap / VirtualAlloc MEM_COMMIT), and its release.
Result<void*> map_memory(std::size_t bytes);
void unmap_memory(void* address, std::size_t bytes);
std::size_t page_size();

// CPUs this process may run on; CPU ids as the topology numbers them (Windows: group*64+bit).
CpuList allowed_cpus();
// Restricts the calling thread to `cpus` (sched_setaffinity / SetThreadGroupAffinity: Windows
// can only pin a thread within one processor group, so the set must lie in one group).
Result<void> pin_current_thread(const CpuList& cpus);
int current_cpu();  // the CPU the calling thread runs on now, -1 when unknown

// One cheap call that always enters the kernel, for syscall-rate: Linux syscall(SYS_getpid)
// (glibc's getpid() is not cached, but syscall() makes the entry explicit); Windows
// WaitForSingleObject(signalled event, 0), i.e. NtWaitForSingleObject (GetCurrentProcessId and
// friends read the TEB and never enter the kernel). The name goes into the result's details.
void cheap_kernel_call();
const char* cheap_kernel_call_name();

// This program's own absolute path (the Windows service registers it).
Result<std::string> self_executable();

// /proc/stat's text on Linux (steal ticks); nullopt where the OS has no steal counter.
std::optional<std::string> read_proc_stat();

// The agent's serve command with argv[first..] as its options (--name, --tcp, --poweroff, ...).
using ServeFn = std::function<int(int argc, char** argv, int first)>;
// Subcommands only one OS has (Windows: `service install|uninstall|run`): the exit code when
// argv[1] named one, nullopt otherwise.
std::optional<int> os_command(int argc, char** argv, const ServeFn& serve);

}  // namespace topolab::agent::os
