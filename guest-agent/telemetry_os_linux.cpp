// Linux side of telemetry_os.hpp.
#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "common/file_io.hpp"
#include "guest-agent/telemetry_os.hpp"

namespace topolab::agent::os {

namespace {

double timeval_seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
}

// Field 39 (processor) of /proc/PID/task/TID/stat: counted after the last ')', because the
// command name (field 2) may itself hold spaces and parentheses.
int stat_processor(std::string_view stat) {
  const auto close = stat.rfind(')');
  if (close == std::string_view::npos) return -1;
  std::string_view rest = stat.substr(close + 1);
  int field = 2;
  std::size_t pos = 0;
  while (pos < rest.size()) {
    while (pos < rest.size() && rest[pos] == ' ') ++pos;
    const std::size_t end = std::min(rest.find(' ', pos), rest.size());
    if (++field == 39) {
      int cpu = -1;
      auto [ptr, ec] = std::from_chars(rest.data() + pos, rest.data() + end, cpu);
      return ec == std::errc() ? cpu : -1;
    }
    pos = end;
  }
  return -1;
}

}  // namespace

Result<ProcessCpuTimes> process_cpu_times() {
  rusage u{};
  if (::getrusage(RUSAGE_SELF, &u) != 0)
    return make_error(ErrorKind::io, std::string("getrusage: ") + std::strerror(errno));
  ProcessCpuTimes t;
  t.user_s = timeval_seconds(u.ru_utime);
  t.sys_s = timeval_seconds(u.ru_stime);
  t.voluntary_switches = static_cast<std::uint64_t>(u.ru_nvcsw);
  t.involuntary_switches = static_cast<std::uint64_t>(u.ru_nivcsw);
  return t;
}

std::string ctx_switches_why() { return ""; }

std::int64_t current_thread_id() { return static_cast<std::int64_t>(::syscall(SYS_gettid)); }

Result<std::vector<ThreadCpu>> thread_cpus(std::size_t max_threads) {
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr)
    return make_error(ErrorKind::io, std::string("/proc/self/task: ") + std::strerror(errno));
  std::vector<ThreadCpu> out;
  while (const dirent* e = ::readdir(dir)) {
    std::int64_t tid = 0;
    const std::string_view name(e->d_name);
    auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), tid);
    if (ec != std::errc() || ptr != name.data() + name.size()) continue;
    if (out.size() >= max_threads) break;
    auto stat = read_file("/proc/self/task/" + std::string(name) + "/stat", 4096);
    if (!stat) continue;  // the thread ended between readdir and open
    out.push_back({tid, stat_processor(*stat)});
  }
  ::closedir(dir);
  return out;
}

Result<std::int64_t> start_migration_counter() {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_MIGRATIONS;
  attr.inherit = 1;  // threads the benchmark creates after this call are counted too
  attr.exclude_kernel = 0;
  const long fd = ::syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0)
    return make_error(ErrorKind::io,
                      std::string("perf_event_open(CPU_MIGRATIONS): ") + std::strerror(errno));
  return static_cast<std::int64_t>(fd);
}

Result<std::uint64_t> stop_migration_counter(std::int64_t handle) {
  std::uint64_t count = 0;
  const auto fd = static_cast<int>(handle);
  const ssize_t n = ::read(fd, &count, sizeof(count));
  const int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(sizeof(count)))
    return make_error(ErrorKind::io,
                      std::string("read perf counter: ") + (n < 0 ? std::strerror(err) : "short"));
  return count;
}

}  // namespace topolab::agent::os
