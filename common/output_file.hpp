#pragma once
// write_file_atomic (file_io.hpp) for an output that may replace a file the user already has:
// the replaced file's mode and, when run as root, its owner and group carry over, as an
// editor's save would. A user's 0600 report rewritten by root came back 0644 and root's,
// readable by everyone (issue 32 class 7). A new file gets `mode`.
#include <filesystem>
#include <string>

#include "common/result.hpp"

namespace topolab {

enum class ExistingFile { kReplace, kKeepModeAndOwner };

Result<void> write_file_atomic(const std::filesystem::path& path, const std::string& content,
                               unsigned mode, ExistingFile existing);

}  // namespace topolab
