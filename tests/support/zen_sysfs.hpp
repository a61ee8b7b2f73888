#pragma once
// Sysfs trees of Ryzen desktop chips (Zen 2/3/4), written by hand like tr2990wx_sysfs.hpp (no
// capture of these chips is in ../shared/fixtures): one package, one NUMA node, SMT2, one L3
// domain per CCX (Zen 2: two CCX per CCD; Zen 3/4: the CCD is the CCX). Linux on these chips
// usually numbers the second thread of core n as n + cores (`lscpu -e`: CPU 0 and 16 are core
// 0 on a 5950X); some firmware numbers the threads of a core as adjacent pairs (0,1), which the
// `adjacent` numbering writes.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/tr2990wx_sysfs.hpp"

namespace topolab::testing {

enum class SmtNumbering { kSplit, kAdjacent };

struct ZenChip {
  int cores_per_l3 = 8;
  std::vector<std::uint64_t> l3_kib;  // one entry per L3 domain, in CPU order
  SmtNumbering numbering = SmtNumbering::kSplit;
};

inline ZenChip ryzen_5950x(SmtNumbering n = SmtNumbering::kSplit) { return {8, {32768, 32768}, n}; }
inline ZenChip ryzen_7950x3d(SmtNumbering n = SmtNumbering::kSplit) {
  return {8, {98304, 32768}, n};  // CCD 0 carries the 3D V-Cache (96 MiB), CCD 1 32 MiB
}
inline ZenChip ryzen_5900x() { return {6, {32768, 32768}}; }
inline ZenChip ryzen_3900x() { return {3, {16384, 16384, 16384, 16384}}; }

// Writes the tree under `root` (root/sys/devices/system/...); returns root.
inline std::filesystem::path write_zen_sysfs(const std::filesystem::path& root,
                                             const ZenChip& chip) {
  const auto cpu = root / "sys/devices/system/cpu";
  const auto node = root / "sys/devices/system/node";
  const int cores = chip.cores_per_l3 * static_cast<int>(chip.l3_kib.size());
  const int n_cpus = 2 * cores;
  const bool split = chip.numbering == SmtNumbering::kSplit;
  auto cpu_of = [&](int core, int thread) {
    return split ? core + thread * cores : 2 * core + thread;
  };
  auto list_of_cores = [&](int first, int count) {
    std::string out;
    for (int t = 0; t < 2; ++t) {
      for (int c = first; c < first + count; ++c) {
        out += (out.empty() ? "" : ",") + std::to_string(cpu_of(c, t));
      }
    }
    return out;  // the reader accepts a plain comma list
  };
  const std::string all = "0-" + std::to_string(n_cpus - 1);
  write_sysfs_file(cpu / "online", all);
  write_sysfs_file(cpu / "possible", all);
  for (int core = 0; core < cores; ++core) {
    const int l3 = core / chip.cores_per_l3;
    const std::string siblings =
        std::to_string(cpu_of(core, 0)) + "," + std::to_string(cpu_of(core, 1));
    for (int t = 0; t < 2; ++t) {
      const auto dir = cpu / ("cpu" + std::to_string(cpu_of(core, t)));
      write_amd_sysfs_cpu(dir, core, siblings,
                          std::to_string(chip.l3_kib[static_cast<std::size_t>(l3)]) + "K",
                          list_of_cores(l3 * chip.cores_per_l3, chip.cores_per_l3));
    }
  }
  write_sysfs_file(node / "node0/cpulist", all);
  write_sysfs_file(node / "node0/meminfo", "Node 0 MemTotal:       65536000 kB");
  write_sysfs_file(node / "node0/distance", "10");
  write_sysfs_file(node / "online", "0");
  // The vendor (the doctor's kvm_amd advice, the CPU model choice); svm: AMD-V.
  write_sysfs_file(root / "proc/cpuinfo",
                   "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD Ryzen (test "
                   "tree)\nflags\t\t: fpu sse2 ht svm topoext\n");
  return root;
}

}  // namespace topolab::testing
