#include "tests/host/test_support.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace topolab::testing {

namespace fs = std::filesystem;

fs::path unpack_fixture(const fs::path& archive, const fs::path& dir) {
  std::string name = archive.filename().string();
  std::string flag = name.ends_with(".tar.bz2")  ? "-xjf"
                     : name.ends_with(".tar.gz") ? "-xzf"
                                                 : "-xf";
  // Only sys/devices/system and proc matter; cpufreq, cpuidle and PCI trees are most of the
  // files in some captures and slow the unpack down.
  auto r =
      run_process({"/bin/tar", flag, archive.string(), "-C", dir.string(), "--exclude=cpufreq",
                   "--exclude=cpuidle", "--exclude=power", "--exclude=hotplug", "--exclude=pci*",
                   "--exclude=bus", "--exclude=class", "--exclude=firmware", "--exclude=virtual"});
  if (r.status() != 0) throw std::runtime_error("tar failed on " + archive.string() + ": " + r.err);
  std::vector<fs::path> tops;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory()) tops.push_back(e.path());
  }
  if (tops.size() != 1) throw std::runtime_error(archive.string() + ": expected one top folder");
  fs::path root = tops.front();
  if (fs::is_directory(root / "fsroot")) root /= "fsroot";
  return root;
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
}

std::string read_text(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

fs::path make_minimal_sysfs_tree(const fs::path& root) {
  fs::path cpu = root / "sys/devices/system/cpu";
  for (int i = 0; i < 4; ++i) {
    fs::path c = cpu / ("cpu" + std::to_string(i));
    write_text(c / "topology/physical_package_id", "0\n");
    write_text(c / "topology/thread_siblings_list", i < 2 ? "0-1\n" : "2-3\n");
    write_text(c / "cache/index3/level", "3\n");
    write_text(c / "cache/index3/shared_cpu_list", "0-3\n");
    write_text(c / "cache/index3/size", "16384K\n");
  }
  write_text(cpu / "online", "0-3\n");
  write_text(cpu / "isolated", "2-3\n");
  write_text(root / "sys/devices/system/node/node0/cpulist", "0-3\n");
  write_text(root / "sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:  1048576 kB\n");
  return root;
}

}  // namespace topolab::testing
