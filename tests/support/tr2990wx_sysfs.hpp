#pragma once
// A sysfs tree of an AMD Threadripper 2990WX, written by hand (no capture of this chip is in
// ../shared/fixtures): 1 package, 4 dies = 4 NUMA nodes, 2 CCX (L3, 8 MiB) per die, 4 cores
// per CCX, SMT2 with Linux numbering (CPU n and n + 32 are siblings). Nodes 1 and 3 have CPUs
// but no memory (MemTotal 0 kB, as on the real chip); distances 10 local, 16 remote.
#include <filesystem>
#include <fstream>
#include <string>

namespace topolab::testing {

inline void write_sysfs_file(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text << "\n";
}

// One CPU's topology/ and cache/index3/ files as Linux writes them for an AMD chip (one
// package, die_id 0: Zen kernels report no dies); the hand-made trees share it.
inline void write_amd_sysfs_cpu(const std::filesystem::path& dir, int core,
                                const std::string& siblings, const std::string& l3_size,
                                const std::string& l3_cpus) {
  write_sysfs_file(dir / "topology/physical_package_id", "0");
  write_sysfs_file(dir / "topology/die_id", "0");
  write_sysfs_file(dir / "topology/core_id", std::to_string(core));
  write_sysfs_file(dir / "topology/core_cpus_list", siblings);
  write_sysfs_file(dir / "topology/thread_siblings_list", siblings);
  write_sysfs_file(dir / "cache/index3/level", "3");
  write_sysfs_file(dir / "cache/index3/type", "Unified");
  write_sysfs_file(dir / "cache/index3/size", l3_size);
  write_sysfs_file(dir / "cache/index3/shared_cpu_list", l3_cpus);
}

// Writes the tree under `root` (root/sys/devices/system/...); returns root.
inline std::filesystem::path write_tr2990wx_sysfs(const std::filesystem::path& root) {
  const auto cpu = root / "sys/devices/system/cpu";
  const auto node = root / "sys/devices/system/node";
  auto range = [](int a, int b) { return std::to_string(a) + "-" + std::to_string(b); };
  write_sysfs_file(cpu / "online", "0-63");
  write_sysfs_file(cpu / "possible", "0-63");
  for (int id = 0; id < 64; ++id) {
    const int core = id % 32, ccx = core / 4;
    const auto dir = cpu / ("cpu" + std::to_string(id));
    const std::string siblings = std::to_string(core) + "," + std::to_string(core + 32);
    write_amd_sysfs_cpu(dir, core, siblings, "8192K",
                        range(ccx * 4, ccx * 4 + 3) + "," + range(ccx * 4 + 32, ccx * 4 + 35));
  }
  for (int n = 0; n < 4; ++n) {
    const auto dir = node / ("node" + std::to_string(n));
    write_sysfs_file(dir / "cpulist",
                     range(n * 8, n * 8 + 7) + "," + range(n * 8 + 32, n * 8 + 39));
    const bool memory = n % 2 == 0;
    write_sysfs_file(dir / "meminfo", "Node " + std::to_string(n) + " MemTotal:       " +
                                          (memory ? "32780000" : "0") + " kB");
    std::string d;
    for (int m = 0; m < 4; ++m) d += (m ? " " : "") + std::string(m == n ? "10" : "16");
    write_sysfs_file(dir / "distance", d);
  }
  write_sysfs_file(node / "online", "0-3");
  return root;
}

}  // namespace topolab::testing
