#pragma once
// Golden-file comparison, in one place for every golden test (issue 33: goldens must not rewrite
// themselves). Always compares `got` with the file as committed. Update mode
// (TOPOLAB_UPDATE_GOLDEN=1, run by scripts/update-goldens.sh) also writes `got` to the file, then
// still fails where it differed from the committed one, so an update run never passes
// vacuously: the script prints the diff to review. Update mode is refused when CI is set.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/file_io.hpp"

namespace topolab::testing {

inline bool golden_update_requested() { return std::getenv("TOPOLAB_UPDATE_GOLDEN") != nullptr; }

inline void expect_golden_file(const std::filesystem::path& path, const std::string& got) {
  const bool update = golden_update_requested();
  if (update && std::getenv("CI") != nullptr) {
    FAIL() << "TOPOLAB_UPDATE_GOLDEN is set with CI set: CI never rewrites " << path;
  }
  auto committed = read_file(path);
  if (update) {
    auto w = write_file_atomic(path, got);
    ASSERT_TRUE(w) << w.error().message;
  }
  ASSERT_TRUE(committed) << committed.error().message
                         << (update ? " (written now: review and commit it)"
                                    : " (scripts/update-goldens.sh writes it)");
  EXPECT_EQ(got, *committed) << "differs from the committed " << path
                             << (update ? " (rewritten: review `git diff`)"
                                        : " (scripts/update-goldens.sh rewrites it)");
}

}  // namespace topolab::testing
