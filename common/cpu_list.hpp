#pragma once
// A set of CPU (or node) numbers in Linux list syntax: "0-3,8,10-11".
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace topolab {

class CpuList {
 public:
  CpuList() = default;
  CpuList(std::initializer_list<int> ids);
  static CpuList from_vector(std::vector<int> ids);
  static CpuList range(int first, int last);  // inclusive

  // Parses list syntax; empty or whitespace-only text gives an empty list.
  static Result<CpuList> parse(std::string_view text);
  // Parses a sysfs hex mask such as "00000000,0000ff0f" (comma-separated 32-bit words).
  static Result<CpuList> parse_mask(std::string_view text);

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
