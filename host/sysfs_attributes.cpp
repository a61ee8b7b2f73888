// The attribute readers of the sysfs reader (sysfs_attributes.hpp).
#include "host/sysfs_attributes.hpp"

#include <algorithm>
#include <charconv>
#include <system_error>

#include "common/file_io.hpp"
#include "host/topology_builder.hpp"

namespace topolab::sysfs {

namespace fs = std::filesystem;

namespace {
constexpr std::size_t kMaxAttributeBytes = 64 * 1024;
}  // namespace

bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

bool is_directory_path(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

std::string shown_text(const std::string& text) {
  std::string shown = text.size() > 80 ? text.substr(0, 80) + "..." : text;
  for (char& ch : shown) {
    if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f) ch = '?';
  }
  return "'" + shown + "'";
}

Result<std::string> read_text(const fs::path& path) {
  // read_file refuses a FIFO or device planted in the tree without blocking (issue 12).
  TL_ASSIGN(auto text, read_file(path, kMaxAttributeBytes));
  strip_attribute_tail(text);
  return text;
}

// Parses "digits" (optionally negative: some arches print -1 for unknown ids).
std::optional<long long> parse_integer(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  long long v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

Result<int> read_int(const fs::path& path, int min_value, int max_value) {
  TL_ASSIGN(auto text, read_text(path));
  auto v = parse_integer(text);
  if (!v || *v < min_value || *v > max_value) {
    return make_error(ErrorKind::input,
                      path.string() + ": expected an integer, got " + shown_text(text));
  }
  return static_cast<int>(*v);
}

// Every list of one tree draws on one budget: a tree that names "0-8191" in each of thousands
// of files stops at kMaxExpandedCpuIds instead of expanding into gigabytes (issue 12).
Result<CpuList> read_list_file(const fs::path& path, CpuIdBudget& budget) {
  TL_ASSIGN(auto text, read_text(path));
  TL_ASSIGN_CTX(auto list, CpuList::parse(text, &budget), path.string());
  return list;
}

Result<CpuList> read_mask_file(const fs::path& path, CpuIdBudget& budget) {
  TL_ASSIGN(auto text, read_text(path));
  TL_ASSIGN_CTX(auto list, CpuList::parse_mask(text, &budget), path.string());
  return list;
}

// Reads the first existing of `dir/list_name` (list syntax) and `dir/mask_name` (hex mask);
// nullopt when neither exists. Lists are preferred: they are what current kernels document.
Result<std::optional<CpuList>> read_cpu_set(const fs::path& dir,
                                            std::initializer_list<const char*> list_names,
                                            std::initializer_list<const char*> mask_names,
                                            CpuIdBudget& budget) {
  for (const char* name : list_names) {
    if (path_exists(dir / name)) {
      TL_ASSIGN(auto l, read_list_file(dir / name, budget));
      return std::optional<CpuList>(std::move(l));
    }
  }
  for (const char* name : mask_names) {
    if (path_exists(dir / name)) {
      TL_ASSIGN(auto l, read_mask_file(dir / name, budget));
      return std::optional<CpuList>(std::move(l));
    }
  }
  return std::optional<CpuList>();
}

// "cpu12" -> 12, "node3" -> 3; -1 for anything else (cpufreq, cpuidle, ...); -2 for a number
// with a leading zero ("cpu01"): the kernel never writes one, and reading it as cpu1 would
// silently stand in for (or duplicate) another directory.
int numbered_entry(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return -1;
  std::string_view digits(name.data() + prefix.size(), name.size() - prefix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      digits.size() > 7) {
    return -1;
  }
  if (digits.size() > 1 && digits.front() == '0') return -2;
  return static_cast<int>(*parse_integer(digits));
}

Result<std::vector<int>> list_numbered_dirs(const fs::path& dir, const std::string& prefix) {
  std::vector<int> ids;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return make_error(ErrorKind::io, dir.string() + ": " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return make_error(ErrorKind::io, dir.string() + ": " + ec.message());
    int id = numbered_entry(it->path().filename().string(), prefix);
    if (id == -2)
      return make_error(ErrorKind::input,
                        it->path().string() + ": a number with a leading zero (the kernel writes " +
                            prefix + "N without one); refusing the tree rather than guessing");
    if (id < 0 || !is_directory_path(it->path())) continue;
    ids.push_back(id);
    if (ids.size() > static_cast<std::size_t>(kMaxTopologyCpus)) {
      return make_error(ErrorKind::input, dir.string() + ": more than " +
                                              std::to_string(kMaxTopologyCpus) + " " + prefix +
                                              " entries");
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace topolab::sysfs
