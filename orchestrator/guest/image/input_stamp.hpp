#pragma once
// Whether a guest image's inputs changed since it was built, without reading them (issue 17:
// every `topolab boot` re-read the kernel (~8 MB), the agent and the modules, packed the cpio
// and hashed it all to find its cached image: ~60-80 ms per cell). A stamp records each input
// file's identity as stat() reports it (size, mtime, ctime, inode, device: ctime cannot be set
// back from user space, so a rewrite shows even with its mtime restored) and the content hash
// of the image built from them. Unchanged stamp -> that image, no input read.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace topolab::image {

// One line per file: "size mtime_ns ctime_ns inode device path"; an error names the first file
// that cannot be stat'ed.
Result<std::string> stat_lines(const std::vector<std::filesystem::path>& files);

struct InputStamp {
  std::vector<std::filesystem::path> files;  // every input read for the image
  std::string stat;                          // stat_lines(files) when the image was built
  std::string content_hash;                  // the image folder's name (16 hex digits)
};

// The stamp at `path`, if it is a stamp (at most 1 MiB of JSON, every field of its type, a
// content hash of 16 lower-case hex digits); anything else reads as none (then built anew).
std::optional<InputStamp> read_stamp(const std::filesystem::path& path);
// The content hash when `stamp` still describes the files as they are now.
std::optional<std::string> unchanged_hash(const InputStamp& stamp);
Result<void> write_stamp(const std::filesystem::path& path, const InputStamp& stamp);

}  // namespace topolab::image
