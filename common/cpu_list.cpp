#include "common/cpu_list.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <utility>

namespace topolab {
namespace {

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n";
  auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

// Hostile text can be 64 KB: error messages quote its start only.
std::string shown(std::string_view text) {
  constexpr std::size_t kShown = 60;
  if (text.size() <= kShown) return "'" + std::string(text) + "'";
  return "'" + std::string(text.substr(0, kShown)) + "...' (" + std::to_string(text.size()) +
         " characters)";
}

Error list_error(std::string_view whole, const std::string& why) {
  return make_error(ErrorKind::input, "invalid CPU list " + shown(whole) + ": " + why);
}

Result<void> check_text_size(std::string_view text, const char* what) {
  if (text.size() <= kMaxCpuListText) return {};
  return make_error(ErrorKind::input, std::string(what) + " of " + std::to_string(text.size()) +
                                          " characters is longer than the " +
                                          std::to_string(kMaxCpuListText) + " allowed");
}

Result<int> parse_id(std::string_view token, std::string_view whole) {
  unsigned long long value = 0;
  auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (token.empty() || ptr != token.data() + token.size() ||
      (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    return list_error(whole, "bad number " + shown(token));
  }
  if (ec == std::errc::result_out_of_range || value >= static_cast<unsigned>(kMaxCpuIds)) {
    return list_error(whole, "CPU id " + shown(token) + " is beyond the maximum " +
                                 std::to_string(kMaxCpuIds - 1));
  }
  return static_cast<int>(value);
}

// Sorted, merged, inclusive ranges: their total length is the list's size, known before a
// single id is expanded.
std::size_t merge_ranges(std::vector<std::pair<int, int>>& ranges) {
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<int, int>> merged;
  std::size_t ids = 0;
  for (const auto& r : ranges) {
    if (!merged.empty() && r.first <= merged.back().second + 1) {
      int grown = std::max(merged.back().second, r.second);
      ids += static_cast<std::size_t>(grown - merged.back().second);
      merged.back().second = grown;
    } else {
      merged.push_back(r);
      ids += static_cast<std::size_t>(r.second - r.first) + 1;
    }
  }
  ranges = std::move(merged);
  return ids;
}

}  // namespace

Result<void> CpuIdBudget::take(std::size_t ids) {
  if (ids > max_ - used_) {
    return make_error(ErrorKind::input, "CPU lists together name more than " +
                                            std::to_string(max_) +
                                            " CPU ids; refusing to expand them");
  }
  used_ += ids;
  return {};
}

CpuList::CpuList(std::initializer_list<int> ids) : ids_(ids) {
  std::sort(ids_.begin(), ids_.end());
  ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
}

CpuList CpuList::from_vector(std::vector<int> ids) {
  CpuList list;
  list.ids_ = std::move(ids);
  std::sort(list.ids_.begin(), list.ids_.end());
  list.ids_.erase(std::unique(list.ids_.begin(), list.ids_.end()), list.ids_.end());
  return list;
}

CpuList CpuList::range(int first, int last) {
  CpuList list;
  for (int i = first; i <= last; ++i) list.ids_.push_back(i);
  return list;
}

Result<CpuList> CpuList::parse(std::string_view text, CpuIdBudget* budget) {
  TL_TRY(check_text_size(text, "CPU list"));
  std::string_view body = trim(text);
  // Ranges are collected and checked, then merged and counted, and only then expanded: "0-8191"
  // repeated thousands of times must cost its text, not billions of ids.
  std::vector<std::pair<int, int>> ranges;
  while (!body.empty()) {
    auto comma = body.find(',');
    std::string_view item = trim(body.substr(0, comma));
    body = comma == std::string_view::npos ? std::string_view{} : body.substr(comma + 1);
    if (item.empty()) return list_error(text, "empty item");
    auto dash = item.find('-');
    if (dash == std::string_view::npos) {
      TL_ASSIGN(auto id, parse_id(item, text));
      ranges.emplace_back(id, id);
      continue;
    }
    TL_ASSIGN(auto lo, parse_id(trim(item.substr(0, dash)), text));
    TL_ASSIGN(auto hi, parse_id(trim(item.substr(dash + 1)), text));
    if (hi < lo) return list_error(text, "descending range " + shown(item));
    ranges.emplace_back(lo, hi);
  }
  std::size_t size = merge_ranges(ranges);
  if (budget) TL_TRY(budget->take(size));
  CpuList list;
  list.ids_.reserve(size);
  for (const auto& [lo, hi] : ranges) {
    for (int i = lo; i <= hi; ++i) list.ids_.push_back(i);
  }
  return list;
}

Result<CpuList> CpuList::parse_mask(std::string_view text, CpuIdBudget* budget) {
  TL_TRY(check_text_size(text, "CPU mask"));
  std::string_view body = trim(text);
  std::vector<int> ids;
  // Words are most-significant first; walk hex digits from the right. Ids only grow, so the
  // vector is sorted and unique, and never longer than kMaxCpuIds.
  int bit = 0;
  bool any_digit = false;
  for (auto it = body.rbegin(); it != body.rend(); ++it) {
    char c = *it;
    if (c == ',') continue;
    int v;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      v = c - 'A' + 10;
    } else {
      return make_error(ErrorKind::input, "invalid CPU mask " + shown(text));
    }
    any_digit = true;
    for (int b = 0; b < 4; ++b) {
      if (!(v & (1 << b))) continue;
      if (bit + b >= kMaxCpuIds) {
        return make_error(ErrorKind::input, "invalid CPU mask " + shown(text) + ": sets CPU " +
                                                std::to_string(bit + b) + ", beyond the maximum " +
                                                std::to_string(kMaxCpuIds - 1));
      }
      ids.push_back(bit + b);
    }
    bit += 4;
  }
  if (!any_digit) return make_error(ErrorKind::input, "invalid CPU mask " + shown(text));
  if (budget) TL_TRY(budget->take(ids.size()));
  CpuList list;
  list.ids_ = std::move(ids);
  return list;
}

std::string CpuList::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < ids_.size();) {
    std::size_t j = i;
    while (j + 1 < ids_.size() && ids_[j + 1] == ids_[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ids_[i]);
    if (j > i) out += '-' + std::to_string(ids_[j]);
    i = j + 1;
  }
  return out;
}

bool CpuList::contains(int id) const { return std::binary_search(ids_.begin(), ids_.end(), id); }

void CpuList::insert(int id) {
  auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
  if (it == ids_.end() || *it != id) ids_.insert(it, id);
}

void CpuList::erase(int id) {
  auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
  if (it != ids_.end() && *it == id) ids_.erase(it);
}

CpuList CpuList::united(const CpuList& other) const {
  CpuList out;
  std::set_union(ids_.begin(), ids_.end(), other.ids_.begin(), other.ids_.end(),
                 std::back_inserter(out.ids_));
  return out;
}

CpuList CpuList::intersected(const CpuList& other) const {
  CpuList out;
  std::set_intersection(ids_.begin(), ids_.end(), other.ids_.begin(), other.ids_.end(),
                        std::back_inserter(out.ids_));
  return out;
}

CpuList CpuList::minus(const CpuList& other) const {
  CpuList out;
  std::set_difference(ids_.begin(), ids_.end(), other.ids_.begin(), other.ids_.end(),
                      std::back_inserter(out.ids_));
  return out;
}

bool CpuList::intersects(const CpuList& other) const { return !intersected(other).empty(); }

bool CpuList::is_subset_of(const CpuList& other) const {
  return std::includes(other.ids_.begin(), other.ids_.end(), ids_.begin(), ids_.end());
}

}  // namespace topolab
