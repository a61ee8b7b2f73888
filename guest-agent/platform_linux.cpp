#include <fcntl.h>
#include <linux/reboot.h>
#include <poll.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <thread>

#include "common/file_io.hpp"
#include "common/owned_fd.hpp"
#include "common/process.hpp"
#include "guest-agent/os.hpp"
#include "guest-agent/platform.hpp"
#include "host/topology_json.hpp"

namespace topolab::agent {

namespace {

class LinuxPlatform : public Platform {
 public:
  std::uint64_t uptime_ms() override {
    timespec ts{};
    if (::clock_gettime(CLOCK_BOOTTIME, &ts) == 0) {
      return static_cast<std::uint64_t>(ts.tv_sec) * 1000 +
             static_cast<std::uint64_t>(ts.tv_nsec) / 1000000;
    }
    auto text = read_attribute("/proc/uptime");
    if (!text) return 0;
    return static_cast<std::uint64_t>(std::strtod(text->c_str(), nullptr) * 1000.0);
  }

  std::string kernel() override {
    utsname u{};
    if (::uname(&u) != 0) return "";
    return std::string(u.sysname) + " " + u.release;
  }

  std::string cpu_model() override {
    auto text = read_file("/proc/cpuinfo", 16u << 20);
    if (!text) return "";
    std::istringstream in(*text);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("model name", 0) == 0) {
        auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        auto v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        return v;
      }
    }
    return "";
  }

  Result<HostTopology> read_topology() override { return os::read_local_topology(); }

  nlohmann::json topology_json(const HostTopology& t) override { return topology_to_json(t); }

  bool is_init() override { return ::getpid() == 1; }

  void early_init(const std::string& modules_order, std::ostream& log) override {
    mount_fs("proc", "/proc", "proc", log);
    mount_fs("sysfs", "/sys", "sysfs", log);
    mount_fs("devtmpfs", "/dev", "devtmpfs", log);
    load_modules(modules_order, log);
  }

  void power_off(bool as_init) override {
    ::sync();
    if (as_init) {
      ::reboot(RB_POWER_OFF);
      // Only reached when reboot() failed; init must never exit (the kernel would panic).
      for (;;) ::pause();
    }
    for (const char* program : {"/sbin/poweroff", "/usr/sbin/poweroff"}) {
      ProcessSpec spec({program});
      spec.out = spec.err = Sink::inherit();
      if (run_process(spec)) return;  // started (and ended): the system is going down
    }
  }

 private:
  static void mount_fs(const char* source, const char* target, const char* type,
                       std::ostream& log) {
    ::mkdir(target, 0755);
    if (::mount(source, target, type, MS_NOSUID | MS_NOEXEC, nullptr) != 0 && errno != EBUSY) {
      log << "topolab-agent: mount " << type << " on " << target << ": " << std::strerror(errno)
          << "\n";
    }
  }

  static void load_modules(const std::string& order_file, std::ostream& log) {
    auto list = read_file(order_file, 1u << 20);
    if (!list) {
      log << "topolab-agent: " << list.error().message << " (no modules loaded)\n";
      return;
    }
    std::istringstream in(*list);
    std::string path;
    while (std::getline(in, path)) {
      if (path.empty() || path[0] == '#') continue;
      OwnedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
      if (!fd) {
        log << "topolab-agent: module " << path << ": " << std::strerror(errno) << "\n";
        continue;
      }
      if (::syscall(SYS_finit_module, fd.get(), "", 0) != 0 && errno != EEXIST) {
        log << "topolab-agent: finit_module " << path << ": " << std::strerror(errno) << "\n";
      }
    }
  }
};

}  // namespace

std::unique_ptr<Platform> make_platform() { return std::make_unique<LinuxPlatform>(); }

namespace {

// The value of one "Key:   123 kB" line of /proc/meminfo in bytes, or -1.
long long meminfo_bytes(const std::string& text, const std::string& key) {
  std::size_t pos = 0;
  while ((pos = text.find(key, pos)) != std::string::npos) {
    if (pos == 0 || text[pos - 1] == '\n') {
      const char* p = text.c_str() + pos + key.size();
      char* end = nullptr;
      long long kib = std::strtoll(p, &end, 10);
      if (end == p || kib < 0 || kib > (1LL << 42)) return -1;
      return kib * 1024;
    }
    pos += key.size();
  }
  return -1;
}

}  // namespace

Result<std::uint64_t> mem_available_bytes() {
  TL_ASSIGN_CTX(auto text, read_file("/proc/meminfo", 1u << 20), "available memory unknown");
  long long avail = meminfo_bytes(text, "MemAvailable:");
  if (avail >= 0) return static_cast<std::uint64_t>(avail);
  // Kernels before 3.14 have no MemAvailable: the classic estimate.
  long long free = meminfo_bytes(text, "MemFree:"), buffers = meminfo_bytes(text, "Buffers:"),
            cached = meminfo_bytes(text, "Cached:");
  if (free < 0 || buffers < 0 || cached < 0) {
    return make_error(ErrorKind::input,
                      "available memory unknown: /proc/meminfo has no MemAvailable or MemFree");
  }
  return static_cast<std::uint64_t>(free + buffers + cached);
}

Result<void> spawn_and_wait(const SpawnRequest& request) {
  const std::string program = request.program.empty() ? "/proc/self/exe" : request.program;
  std::vector<std::string> argv{program};
  argv.insert(argv.end(), request.args.begin(), request.args.end());
  ProcessSpec spec(std::move(argv));
  spec.out = spec.err = Sink::null();  // its output never reaches the console
  spec.kill_grace = std::chrono::milliseconds(0);
  TL_ASSIGN_CTX(auto child, Process::spawn(spec), "'" + program + "' exec failed");
  const ProcessResult& r = child.wait(request.timeout);
  if (r.timed_out) {
    return make_error(ErrorKind::io, "'" + program + "' did not exit within " +
                                         std::to_string(request.timeout.count()) + " ms; killed");
  }
  if (!r.status.success())
    return make_error(ErrorKind::io, "'" + program + "' " + r.status.describe());
  return {};
}

}  // namespace topolab::agent
