// Linux side of os.hpp: syscalls, sysfs and procfs.
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <mutex>
#include <thread>

#include "common/file_io.hpp"
#include "guest-agent/os.hpp"
#include "host/sysfs_reader.hpp"

namespace topolab::agent::os {

void process_setup() { ::signal(SIGPIPE, SIG_IGN); }

namespace {

std::mutex g_hook_mu;
std::function<void()> g_hook;  // guarded by g_hook_mu

sigset_t termination_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  return set;
}

[[noreturn]] void wait_for_termination() {
  const sigset_t set = termination_signals();
  int sig = 0;
  while (sigwait(&set, &sig) != 0) {
  }
  {
    std::lock_guard lock(g_hook_mu);
    if (g_hook) g_hook();
  }
  // Ends by the signal itself, so whoever waits for the agent sees how it was stopped.
  ::signal(sig, SIG_DFL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);
}

}  // namespace

void set_termination_hook(std::function<void()> before_exit) {
  static std::once_flag once;
  std::call_once(once, [] {
    const sigset_t set = termination_signals();
    ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread(wait_for_termination).detach();
    // A parent that made us die with it (the runner's die_with_parent: SIGKILL) gets SIGTERM
    // instead, so that even a SIGKILLed runner leaves its host's settings put back.
    int death_signal = 0;
    if (::prctl(PR_GET_PDEATHSIG, &death_signal) == 0 && death_signal == SIGKILL) {
      const pid_t parent = ::getppid();
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != parent) ::kill(::getpid(), SIGTERM);  // it died meanwhile
    }
  });
  std::lock_guard lock(g_hook_mu);
  g_hook = std::move(before_exit);
}

Result<HostTopology> read_local_topology() { return read_sysfs_topology("/"); }

Result<void*> map_memory(std::size_t bytes) {
  void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    return make_error(ErrorKind::io,
                      "mmap " + std::to_string(bytes) + " bytes: " + std::strerror(errno));
  }
  return m;
}

void unmap_memory(void* address, std::size_t bytes) {
  if (address) ::munmap(address, bytes);
}

std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

CpuList allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return CpuList{0};
  std::vector<int> ids;
  for (int i = 0; i < CPU_SETSIZE; ++i) {
    if (CPU_ISSET(i, &set)) ids.push_back(i);
  }
  return CpuList::from_vector(std::move(ids));
}

Result<void> pin_current_thread(const CpuList& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int id : cpus) {
    if (id < 0 || id >= CPU_SETSIZE)
      return make_error(ErrorKind::input, "cannot pin to CPU " + std::to_string(id));
    CPU_SET(id, &set);
  }
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    return make_error(ErrorKind::io,
                      "sched_setaffinity(" + cpus.to_string() + "): " + std::strerror(errno));
  }
  return {};
}

int current_cpu() { return sched_getcpu(); }

void cheap_kernel_call() { ::syscall(SYS_getpid); }
const char* cheap_kernel_call_name() { return "syscall(SYS_getpid)"; }

Result<std::string> self_executable() {
  char buf[PATH_MAX];
  ssize_t len = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (len <= 0)
    return make_error(ErrorKind::io,
                      std::string("readlink /proc/self/exe: ") + std::strerror(errno));
  return std::string(buf, static_cast<std::size_t>(len));
}

std::optional<std::string> read_proc_stat() {
  auto text = read_file("/proc/stat", 1 << 20);
  if (!text) return std::nullopt;
  return *text;
}

std::optional<int> os_command(int, char**, const ServeFn&) { return std::nullopt; }

}  // namespace topolab::agent::os
