#pragma once
// Helpers for host tests: temporary directories, child processes (tests/support/child_process.hpp),
// and unpacking the real-machine fixtures in ../shared/fixtures.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "common/cpu_list.hpp"
#include "tests/support/child_process.hpp"  // run_process
#include "tests/support/temp_dir.hpp"       // TempDir

namespace topolab {
// gtest prints CpuList in list syntax instead of raw bytes.
inline void PrintTo(const CpuList& list, std::ostream* os) {
  *os << "{" << list.to_string() << "}";
}
}  // namespace topolab

namespace topolab::testing {

// Unpacks a fixture archive (tar, by extension) into dir and returns the fs root: the single
// top folder, or its fsroot/ subfolder when there is one.
std::filesystem::path unpack_fixture(const std::filesystem::path& archive,
                                     const std::filesystem::path& dir);

void write_text(const std::filesystem::path& path, const std::string& text);
std::string read_text(const std::filesystem::path& path);

// A minimal sysfs tree under root: cpu0..cpu3, two SMT pairs, one L3, one node, CPUs 2-3
// isolated. Returns root.
std::filesystem::path make_minimal_sysfs_tree(const std::filesystem::path& root);

}  // namespace topolab::testing
