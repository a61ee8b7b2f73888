#pragma once
// Reading one sysfs attribute or directory listing, bounded and checked: the primitives that
// sysfs_reader.cpp builds a host topology from. Malformed text is refused as input.
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/cpu_list.hpp"
#include "common/result.hpp"

namespace topolab::sysfs {

bool path_exists(const std::filesystem::path& p);
bool is_directory_path(const std::filesystem::path& p);

// Quoted, cut at 80 bytes, control and non-ASCII bytes as '?': safe in a one-line message.
std::string shown_text(const std::string& text);

// The attribute's text without its trailing newline; refuses a FIFO, a device or a huge file.
Result<std::string> read_text(const std::filesystem::path& path);

// Parses "digits" (optionally negative: some arches print -1 for unknown ids).
std::optional<long long> parse_integer(std::string_view s);

Result<int> read_int(const std::filesystem::path& path, int min_value = -1,
                     int max_value = 1 << 20);

// Every list of one tree draws on one budget: a tree that names "0-8191" in each of thousands
// of files stops at kMaxExpandedCpuIds instead of expanding into gigabytes (issue 12).
Result<CpuList> read_list_file(const std::filesystem::path& path, CpuIdBudget& budget);
Result<CpuList> read_mask_file(const std::filesystem::path& path, CpuIdBudget& budget);

// Reads the first existing of `dir/list_name` (list syntax) and `dir/mask_name` (hex mask);
// nullopt when neither exists. Lists are preferred: they are what current kernels document.
Result<std::optional<CpuList>> read_cpu_set(const std::filesystem::path& dir,
                                            std::initializer_list<const char*> list_names,
                                            std::initializer_list<const char*> mask_names,
                                            CpuIdBudget& budget);

// "cpu12" -> 12, "node3" -> 3; -1 for anything else (cpufreq, cpuidle, ...); -2 for a number
// with a leading zero ("cpu01").
int numbered_entry(const std::string& name, const std::string& prefix);

// The ids of dir's `prefix`N subdirectories, sorted; refuses a leading zero and more than
// kMaxTopologyCpus of them.
Result<std::vector<int>> list_numbered_dirs(const std::filesystem::path& dir,
                                            const std::string& prefix);

}  // namespace topolab::sysfs
