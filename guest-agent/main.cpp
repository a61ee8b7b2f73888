// topolab-agent: the static guest agent.
//   topolab-agent [serve] [--port PATH | --unix PATH | --tcp PORT | --name PORTNAME] [--poweroff]
//   topolab-agent run BENCH [--param k=v ...] [--json]
//   topolab-agent topology [--json]
//   topolab-agent --version
//   topolab-agent.exe service install|uninstall|run   (Windows only: os_windows/service_windows)
// As PID 1 (the built-in image's /init) it mounts proc/sys/devtmpfs, loads /modules.order and
// serves the default port; shutdown powers the guest off.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <thread>

#include "common/exit_code.hpp"
#include "guest-agent/agent.hpp"
#include "guest-agent/agent_version.hpp"
#include "guest-agent/benchmarks.hpp"
#include "guest-agent/os.hpp"
#include "guest-agent/platform.hpp"
#include "guest-agent/settings.hpp"
#include "guest-agent/transport.hpp"
#include "host/topology_printer.hpp"
#include "protocol/protocol.hpp"

namespace {

using namespace topolab;
using namespace topolab::agent;

constexpr const char* kDefaultPort = "org.topolab.agent.0";
constexpr const char* kModulesOrder = "/modules.order";

const char* kUsage =
    "usage: topolab-agent [serve] [--port PATH | --unix PATH | --tcp PORT | --name PORTNAME]\n"
    "                     [--poweroff]   (--tcp: 127.0.0.1 only)\n"
    "                     [--io-timeout MS] [--idle-timeout MS]   (client bounds; defaults\n"
    "                     10000 and, for --unix and --tcp, 600000)\n"
    "                     [--hang-after N] [--garbage]   (test-only faults)\n"
    "                     [--settings-root DIR]   (test-only: os.* files under DIR, not /)\n"
    "       topolab-agent run BENCH [--param k=v ...] [--json]   (run --list: benchmarks)\n"
    "       topolab-agent topology [--json]\n"
    "       topolab-agent --version\n";

constexpr int kMaxTimeoutMs = 86400000;  // one day
// Idle bound for UNIX-socket clients: long enough for a host between requests, short enough that
// a forgotten connection frees the agent.
constexpr int kDefaultUnixIdleMs = 600000;

struct ServeArgs {
  std::string port, unix_path, name = kDefaultPort;
  std::uint16_t tcp_port = 0;
  bool poweroff = false;
  int idle_timeout_ms = kDefaultUnixIdleMs;  // listening sockets (UNIX, TCP) only
  AgentOptions options;
};

// A decimal integer in [0, max], or nullopt.
std::optional<int> parse_count(const std::string& v, long max) {
  char* end = nullptr;
  errno = 0;
  long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || end == v.c_str() || *end != '\0' || errno != 0 || n < 0 || n > max) {
    return std::nullopt;
  }
  return static_cast<int>(n);
}

// Returns an error message, or "" when the arguments are fine.
std::string parse_serve_args(int argc, char** argv, int first, ServeArgs& a) {
  int transports = 0;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](std::string& out) -> bool {
      // An empty value ("--unix ''") fell back to the virtio port and waited forever (redteam).
      if (i + 1 >= argc || argv[i + 1][0] == '\0') return false;
      out = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "--port") {
      if (!value(a.port)) return "--port needs a device path";
      ++transports;
    } else if (arg == "--unix") {
      if (!value(a.unix_path)) return "--unix needs a socket path";
      ++transports;
    } else if (arg == "--tcp") {
      if (!value(v)) return "--tcp needs a port number";
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (end == v.c_str() || *end != '\0' || n < 1 || n > 65535) {
        return "--tcp: expected a port number 1..65535, got '" + v + "'";
      }
      a.tcp_port = static_cast<std::uint16_t>(n);
      ++transports;
    } else if (arg == "--name") {
      if (!value(a.name)) return "--name needs a port name";
      ++transports;
    } else if (arg == "--poweroff") {
      a.poweroff = true;
    } else if (arg == "--garbage") {
      a.options.garbage = true;
    } else if (arg == "--settings-root") {
      if (!value(v) || v.empty()) return "--settings-root needs a folder";
      os::set_settings_root(v);
    } else if (arg == "--hang-after") {
      if (!value(v)) return "--hang-after needs a number";
      auto n = parse_count(v, 1000000000);
      if (!n) return "--hang-after: expected an integer in [0, 1000000000], got '" + v + "'";
      a.options.hang_after = *n;
    } else if (arg == "--io-timeout" || arg == "--idle-timeout") {
      if (!value(v)) return arg + " needs milliseconds";
      auto n = parse_count(v, kMaxTimeoutMs);
      if (!n || *n < 100) {
        return arg + ": expected milliseconds in [100, " + std::to_string(kMaxTimeoutMs) +
               "], got '" + v + "'";
      }
      if (arg == "--io-timeout") {
        a.options.write_timeout_ms = a.options.line_timeout_ms = *n;
      } else {
        a.idle_timeout_ms = *n;
      }
    } else {
      return "unknown argument '" + arg + "'";
    }
  }
  if (transports > 1) return "give only one of --port, --unix, --tcp, --name";
  // Only a listening socket can have a second client waiting behind a silent first one.
  if (!a.unix_path.empty() || a.tcp_port != 0) a.options.idle_timeout_ms = a.idle_timeout_ms;
  return "";
}

Result<std::unique_ptr<Transport>> open_transport(const ServeArgs& a) {
  if (!a.unix_path.empty()) return listen_unix(a.unix_path);
  if (a.tcp_port != 0) return listen_tcp_loopback(a.tcp_port);
  if (!a.port.empty()) return open_virtio_port(a.port);
  return open_virtio_port_by_name(a.name);
}

int serve(const ServeArgs& a, Platform& platform, bool as_init) {
  auto transport = open_transport(a);
  if (!transport) {
    std::cerr << "topolab-agent: " << transport.error().message << "\n";
    return to_int(exit_code_for(transport.error()));
  }
  std::cerr << "topolab-agent " << agent_version() << ": serving on " << (*transport)->describe()
            << "\n";
  Agent agent(platform, a.options, std::cerr);
  // A stopped agent (SIGTERM from the host backend's runner, ^C) first puts back what it
  // changed. Never as PID 1: the kernel does not deliver those signals to init by default.
  if (!as_init) os::set_termination_hook([&agent] { agent.restore_settings(); });
  const bool clean = agent.serve(**transport);
  if (!as_init) os::set_termination_hook(nullptr);
  if (clean && (as_init || a.poweroff)) platform.power_off(as_init);
  return to_int(clean ? ExitCode::ok : ExitCode::failed);
}

int topology_command(int argc, char** argv, Platform& platform) {
  bool json = false;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) {
      json = true;
    } else {
      std::fprintf(stderr, "topolab-agent topology: unknown argument '%s'\n", argv[i]);
      return to_int(ExitCode::usage);
    }
  }
  auto topo = platform.read_topology();
  if (!topo) {
    std::fprintf(stderr, "topolab-agent topology: %s\n", topo.error().message.c_str());
    return to_int(exit_code_for(topo.error()));
  }
  if (!json) {
    print_topology_tree(std::cout, *topo);
    return to_int(ExitCode::ok);
  }
  std::cout << platform.topology_json(*topo).dump(2) << "\n";
  return to_int(ExitCode::ok);
}

// PID 1 must never exit (the kernel would panic): serve, and power off when done or broken.
[[noreturn]] void run_as_init(Platform& platform) {
  platform.early_init(kModulesOrder, std::cerr);
  ServeArgs a;
  std::ifstream cmdline_file("/proc/cmdline");
  std::string cmdline;
  std::getline(cmdline_file, cmdline);
  std::string bad = apply_cmdline_faults(cmdline, a.options);
  if (!bad.empty()) std::cerr << "topolab-agent: ignoring " << bad << "\n";
#ifdef TOPOLAB_CHAOS_HANG_FIRST_BOOT
  // Chaos build (CMake TOPOLAB_CHAOS_HANG_FIRST_BOOT, test-only): every boot behaves as with
  // topolab.fault=hang-boot-first, so every first attempt is retried by the host's watchdog.
  a.options.hang_boot_first = true;
#endif
  if (a.options.garbage || a.options.hang_after >= 0) {
    std::cerr << "topolab-agent: test faults on: garbage=" << a.options.garbage
              << " hang_after=" << a.options.hang_after << "\n";
  }
  if (a.options.stall_boot) {
    std::cerr << "topolab-agent: test fault stall-boot: no hello, a stall report every second\n";
    for (;;) {  // PID 1 must not exit
      std::cerr << "watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [topolab-agent:1]\n";
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
  if (a.options.hangs_at_boot()) {
    std::cerr << "topolab-agent: test fault hang-boot: no hello, silent from here\n";
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));  // PID 1 must not exit; silent
  }
  for (;;) {
    int rc = serve(a, platform, /*as_init=*/true);
    std::cerr << "topolab-agent: serving ended (" << rc << "), powering off\n";
    platform.power_off(true);
  }
}

}  // namespace

int main(int argc, char** argv) {
  os::process_setup();
  auto platform = make_platform();
  try {
    if (platform->is_init()) run_as_init(*platform);
    std::string cmd = argc > 1 ? argv[1] : "serve";
    if (cmd == "--version") {
      std::printf("topolab-agent %s (protocol %d)\n", agent_version(), protocol::kProtocolVersion);
      return to_int(ExitCode::ok);
    }
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
      std::fputs(kUsage, stdout);
      return to_int(ExitCode::ok);
    }
    if (cmd == "run") return run_benchmark_command(argc - 1, argv + 1);
    if (cmd == "topology") return topology_command(argc, argv, *platform);
    auto serve_command = [&](int count, char** args, int first) {
      ServeArgs a;
      std::string err = parse_serve_args(count, args, first, a);
      if (!err.empty()) {
        std::fprintf(stderr, "topolab-agent: %s\n%s", err.c_str(), kUsage);
        return to_int(ExitCode::usage);
      }
      return serve(a, *platform, false);
    };
    if (auto code = os::os_command(argc, argv, serve_command)) return *code;
    return serve_command(argc, argv, cmd == "serve" ? 2 : 1);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "topolab-agent: internal error: %s\n", e.what());
    if (platform->is_init()) platform->power_off(true);
    return to_int(ExitCode::internal);
  }
}
