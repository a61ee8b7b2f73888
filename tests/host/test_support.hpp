#pragma once
// Helpers for host tests: temporary directories, fork/exec of child processes (never a shell),
// and unpacking the real-machine fixtures in ../shared/fixtures.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "common/cpu_list.hpp"

namespace topolab {
// gtest prints CpuList in list syntax instead of raw bytes.
inline void PrintTo(const CpuList& list, std::ostream* os) {
  *os << "{" << list.to_string() << "}";
}
}  // namespace topolab

namespace topolab::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct ProcessResult {
  int exit_code = -1;  // 128+signal when killed by a signal
  std::string out, err;
};

// Runs argv[0] (a path) with argv, stdout/stderr captured through files in a temp dir.
ProcessResult run_process(const std::vector<std::string>& argv);

// Unpacks a fixture archive (tar, by extension) into dir and returns the fs root: the single
// top folder, or its fsroot/ subfolder when there is one.
std::filesystem::path unpack_fixture(const std::filesystem::path& archive,
                                     const std::filesystem::path& dir);

void write_text(const std::filesystem::path& path, const std::string& text);
std::string read_text(const std::filesystem::path& path);

}  // namespace topolab::testing
