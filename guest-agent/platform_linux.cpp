#include <fcntl.h>
#include <linux/reboot.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "common/file_io.hpp"
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
    pid_t pid = ::fork();
    if (pid == 0) {
      const char* argv[] = {"poweroff", nullptr};
      ::execv("/sbin/poweroff", const_cast<char**>(argv));
      ::execv("/usr/sbin/poweroff", const_cast<char**>(argv));
      _exit(127);
    }
    if (pid > 0) ::waitpid(pid, nullptr, 0);
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
      int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        log << "topolab-agent: module " << path << ": " << std::strerror(errno) << "\n";
        continue;
      }
      if (::syscall(SYS_finit_module, fd, "", 0) != 0 && errno != EEXIST) {
        log << "topolab-agent: finit_module " << path << ": " << std::strerror(errno) << "\n";
      }
      ::close(fd);
    }
  }
};

}  // namespace

std::unique_ptr<Platform> make_platform() { return std::make_unique<LinuxPlatform>(); }

}  // namespace topolab::agent
