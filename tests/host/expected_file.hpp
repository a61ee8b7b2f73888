#pragma once
// Reads the fixtures' NAME.expected.txt files: the hwloc-console section (hwloc/) or the lscpu
// section (util-linux-epyc7451/), whichever the file has.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "common/cpu_list.hpp"

namespace topolab::testing {

struct ExpectedL3 {
  CpuList cpus;
  std::uint64_t size_kib = 0;  // 0 when the file gives none
};

struct ExpectedTopology {
  std::map<std::string, int> counts;    // "Package", "NUMANode", "L3Cache", "Core", "PU", "Die"
  std::map<int, CpuList> packages;      // by physical package id
  std::map<int, CpuList> numa_nodes;    // by node id
  std::vector<ExpectedL3> l3_domains;   // in file order
  std::map<int, int> threads_per_core;  // threads -> number of cores
  CpuList pus;
};

ExpectedTopology read_expected_file(const std::filesystem::path& path);

}  // namespace topolab::testing
