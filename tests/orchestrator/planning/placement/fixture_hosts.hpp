#pragma once
// The real-machine captures in ../shared/fixtures, unpacked once per test process into a temp
// dir and read with the sysfs reader; plus hand-made hosts.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/file_io.hpp"
#include "host/sysfs_reader.hpp"
#include "host/topology_json.hpp"
#include "orchestrator/planning/placement/synthetic_host.hpp"
#include "tests/support/child_process.hpp"

namespace topolab::testing {

// Runs a PATH-searched tool (tar, virt-xml-validate); its output goes to the test's log.
inline int run_argv(std::vector<std::string> args) {
  ChildOptions options;
  options.search_path = true;
  options.capture_output = false;
  return run_process(std::move(args), options).status();
}

// The folder holding sys/devices/system/cpu below `dir` (the capture's fs root).
inline std::filesystem::path find_fs_root(const std::filesystem::path& dir) {
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() > 3) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_directory() && std::filesystem::exists(it->path() / "sys/devices/system/cpu")) {
      return it->path();
    }
  }
  return {};
}

struct NamedHost {
  std::string name;
  HostTopology host;
};

// Unpacking all captures costs ~30 s of I/O on a busy machine, so parsed topologies are cached
// as JSON in /tmp, keyed by the archive (name, size, mtime) and the host reader's sources: a
// change to either re-reads the capture.
inline std::string fixture_cache_key(const std::filesystem::path& archive) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  };
  std::error_code ec;
  mix(archive.filename().string());
  mix(std::to_string(std::filesystem::file_size(archive, ec)));
  mix(std::to_string(std::filesystem::last_write_time(archive, ec).time_since_epoch().count()));
  const std::filesystem::path host_dir = std::filesystem::path(TOPOLAB_SOURCE_DIR) / "host";
  std::vector<std::filesystem::path> sources;
  for (const auto& e : std::filesystem::directory_iterator(host_dir, ec))
    sources.push_back(e.path());
  std::sort(sources.begin(), sources.end());
  for (const auto& src : sources) {
    auto text = read_file(src);
    if (text) mix(*text);
  }
  std::ostringstream out;
  out << std::hex << h;
  return out.str();
}

inline Result<HostTopology> read_fixture(const std::filesystem::path& archive, bool bz2,
                                         const std::filesystem::path& tmp) {
  auto dest = tmp / archive.filename();
  std::filesystem::create_directories(dest);
  // Only the topology-relevant parts: the captures hold ~60k files, mostly cpufreq/cpuidle.
  std::vector<std::string> argv = {"tar", bz2 ? "xjf" : "xzf", archive.string(), "-C",
                                   dest.string()};
  for (const char* ex : {"*/cpufreq",
                         "*/cpuidle",
                         "*/power",
                         "*/microcode",
                         "*/acpi_cppc",
                         "*/hotplug",
                         "*/crash_notes",
                         "uevent",
                         "coherency_line_size",
                         "number_of_sets",
                         "physical_line_partition",
                         "ways_of_associativity",
                         "allocation_policy",
                         "write_policy",
                         "*/devices/pci*",
                         "*/devices/virtual",
                         "*/class",
                         "*/bus",
                         "*/kernel",
                         "*/firmware"}) {
    argv.push_back(std::string("--exclude=") + ex);
  }
  if (run_argv(argv) != 0) return make_error(ErrorKind::io, "tar failed on " + archive.string());
  auto root = find_fs_root(dest);
  if (root.empty()) return make_error(ErrorKind::io, "no fs root in " + archive.string());
  return read_sysfs_topology(root);
}

inline const std::vector<NamedHost>& fixture_hosts() {
  static const std::vector<NamedHost> hosts = [] {
    std::vector<NamedHost> out;
    const std::filesystem::path fixtures = TOPOLAB_FIXTURES_DIR;
    const auto cache = std::filesystem::temp_directory_path() /
                       ("topolab-fixture-topologies-" + std::to_string(getuid()));
    const auto tmp = std::filesystem::temp_directory_path() /
                     ("topolab-plan-fixtures-" + std::to_string(getpid()));
    std::error_code ec;
    std::filesystem::create_directories(cache, ec);
    for (const auto& e : std::filesystem::recursive_directory_iterator(fixtures, ec)) {
      const std::string p = e.path().string();
      const bool bz2 = p.ends_with(".tar.bz2"), gz = p.ends_with(".tar.gz");
      if (!bz2 && !gz) continue;
      std::string name = e.path().filename().string();
      name = name.substr(0, name.size() - (bz2 ? 8 : 7));
      const auto cached = cache / (name + "-" + fixture_cache_key(e.path()) + ".json");
      if (auto text = read_file(cached)) {
        auto j = nlohmann::json::parse(*text, nullptr, false);
        if (!j.is_discarded()) {
          if (auto host = topology_from_json(j)) {
            out.push_back({name, *host});
            continue;
          }
        }
      }
      auto host = read_fixture(e.path(), bz2, tmp);
      if (!host) continue;
      (void)write_file_atomic(cached, topology_to_json(*host).dump());
      out.push_back({name, *host});
    }
    std::filesystem::remove_all(tmp, ec);
    std::sort(out.begin(), out.end(),
              [](const NamedHost& a, const NamedHost& b) { return a.name < b.name; });
    return out;
  }();
  return hosts;
}

inline std::vector<NamedHost> synthetic_hosts() {
  std::vector<NamedHost> out;
  auto add = [&](const std::string& name, SyntheticHostSpec s) {
    out.push_back({name, make_synthetic_host(s)});
  };
  add("ryzen-1700x-like", {1, 2, 4, 2, false, false, 32768, true, "AuthenticAMD"});
  add("2s-xeon-adjacent", {2, 1, 8, 2, true, false, 65536, true, "GenuineIntel"});
  add("epyc-2s-ccx", {2, 8, 3, 2, false, true, 8192, true, "AuthenticAMD"});
  add("no-smt-4l3", {1, 4, 4, 1, false, false, 16384, true, "AuthenticAMD"});
  add("tiny-2cpu", {1, 1, 2, 1, false, false, 4096, true, "AuthenticAMD"});
  add("no-l3", {2, 1, 4, 1, false, false, 8192, false, "AuthenticAMD"});
  return out;
}

inline std::vector<NamedHost> all_hosts() {
  auto out = fixture_hosts();
  auto s = synthetic_hosts();
  out.insert(out.end(), s.begin(), s.end());
  return out;
}

}  // namespace topolab::testing
