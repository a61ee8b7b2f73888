#pragma once
#include <cstddef>
#include <filesystem>
#include <string>

#include "common/result.hpp"

namespace topolab {

// Reads a whole file, refusing anything larger than max_bytes. Errors name the path.
Result<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes = 64u << 20);

// Reads a one-line sysfs/procfs attribute and strips the trailing newline and blanks.
Result<std::string> read_attribute(const std::filesystem::path& path);

// Strips what follows a sysfs/procfs attribute's value: newlines, blanks, CRs and NULs.
void strip_attribute_tail(std::string& text);

// Writes atomically: to a temporary sibling, then rename.
Result<void> write_file_atomic(const std::filesystem::path& path, const std::string& content,
                               unsigned mode = 0644);

}  // namespace topolab
