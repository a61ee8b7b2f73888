#pragma once
// A set of CPU (or node) numbers in Linux list syntax: "0-3,8,10-11".
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace topolab {

// Limits checked on the text, before a list is expanded (issue 12, class 2; docs/reliability.md
// "Limits"). CPU ids run from 0 to kMaxCpuIds - 1: 8192 is the largest NR_CPUS Linux can be
// built with (x86_64 MAXSMP; arm64, ppc64 and s390x stop at or below it), so no host, libvirt
// capabilities document or guest names a higher id. vCPU and guest CPU ids share the bound.
inline constexpr int kMaxCpuIds = 8192;
// Longest list or mask text: all 8192 ids written singly ("0,1,2,...,8191") take 38 KB.
inline constexpr std::size_t kMaxCpuListText = 64 * 1024;
// Ids one reader may expand over all the lists it reads (a sysfs tree, a capabilities document,
// a layout's explicit lists): 1024 per possible CPU, 32 MiB of ids. A real 8192-CPU host reads
// about 8192 x (SMT siblings + L3 sharers) — well below; hostile files that repeat "0-8191"
// in thousands of places stop here instead of expanding into gigabytes.
inline constexpr std::size_t kMaxExpandedCpuIds = std::size_t{kMaxCpuIds} * 1024;

// What a reader that expands many lists has left to expand; pass the same budget to every
// parse of one document.
class CpuIdBudget {
 public:
  explicit CpuIdBudget(std::size_t max_ids = kMaxExpandedCpuIds) : max_(max_ids) {}
  // Takes `ids` from the budget, or fails naming the limit (nothing is taken then).
  Result<void> take(std::size_t ids);
  std::size_t used() const { return used_; }

 private:
  std::size_t max_;
  std::size_t used_ = 0;
};

class CpuList {
 public:
  CpuList() = default;
  CpuList(std::initializer_list<int> ids);
  static CpuList from_vector(std::vector<int> ids);
  static CpuList range(int first, int last);  // inclusive

  // Parses list syntax; empty or whitespace-only text gives an empty list. The text length and
  // every id are checked before anything is expanded, and the list's size is taken from
  // `budget` (when given) before it is expanded.
  static Result<CpuList> parse(std::string_view text, CpuIdBudget* budget = nullptr);
  // Parses a sysfs hex mask such as "00000000,0000ff0f" (comma-separated 32-bit words); leading
  // zero digits are fine, a set bit at or beyond kMaxCpuIds is refused.
  static Result<CpuList> parse_mask(std::string_view text, CpuIdBudget* budget = nullptr);

  std::string to_string() const;  // canonical list syntax, "" when empty

  bool empty() const { return ids_.empty(); }
  std::size_t size() const { return ids_.size(); }
  bool contains(int id) const;
  int first() const { return ids_.front(); }
  int last() const { return ids_.back(); }
  const std::vector<int>& ids() const { return ids_; }
  auto begin() const { return ids_.begin(); }
  auto end() const { return ids_.end(); }

  void insert(int id);
  void erase(int id);
  CpuList united(const CpuList& other) const;
  CpuList intersected(const CpuList& other) const;
  CpuList minus(const CpuList& other) const;
  bool intersects(const CpuList& other) const;
  bool is_subset_of(const CpuList& other) const;

  bool operator==(const CpuList&) const = default;
  auto operator<=>(const CpuList&) const = default;

 private:
  std::vector<int> ids_;  // sorted, unique
};

}  // namespace topolab
