#include "common/cpu_list.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <utility>

namespace topolab {
namespace {

constexpr int kMaxCpuId = 1 << 20;  // bounds hostile input; real kernels stop at 8192

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n";
  auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

Result<int> parse_id(std::string_view token, std::string_view whole) {
  int value = -1;
  auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (token.empty() || ec != std::errc() || ptr != token.data() + token.size() || value < 0 ||
      value > kMaxCpuId) {
    return make_error("invalid CPU list '" + std::string(whole) + "': bad number '" +
                      std::string(token) + "'");
  }
  return value;
}

}  // namespace

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

Result<CpuList> CpuList::parse(std::string_view text) {
  std::string_view body = trim(text);
  // Collect ranges first and expand after merging them: hostile text such as "0-1048576"
  // repeated thousands of times must not expand to billions of ids (found by fuzz_cpu_list).
  std::vector<std::pair<int, int>> ranges;
  while (!body.empty()) {
    auto comma = body.find(',');
    std::string_view item = trim(body.substr(0, comma));
    body = comma == std::string_view::npos ? std::string_view{} : body.substr(comma + 1);
    if (item.empty()) {
      return make_error("invalid CPU list '" + std::string(text) + "': empty item");
    }
    auto dash = item.find('-');
    if (dash == std::string_view::npos) {
      auto id = parse_id(item, text);
      if (!id) return id.error();
      ranges.emplace_back(*id, *id);
      continue;
    }
    auto lo = parse_id(trim(item.substr(0, dash)), text);
    if (!lo) return lo.error();
    auto hi = parse_id(trim(item.substr(dash + 1)), text);
    if (!hi) return hi.error();
    if (*hi < *lo) {
      return make_error("invalid CPU list '" + std::string(text) + "': descending range '" +
                        std::string(item) + "'");
    }
    ranges.emplace_back(*lo, *hi);
  }
  std::sort(ranges.begin(), ranges.end());
  CpuList list;
  for (const auto& [lo, hi] : ranges) {
    int from = list.ids_.empty() ? lo : std::max(lo, list.ids_.back() + 1);
    for (int i = from; i <= hi; ++i) list.ids_.push_back(i);
  }
  return list;
}

Result<CpuList> CpuList::parse_mask(std::string_view text) {
  std::string_view body = trim(text);
  std::vector<int> ids;
  // Words are most-significant first; walk hex digits from the right.
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
      return make_error("invalid CPU mask '" + std::string(text) + "'");
    }
    any_digit = true;
    for (int b = 0; b < 4; ++b) {
      if (v & (1 << b)) ids.push_back(bit + b);
    }
    bit += 4;
    if (bit > kMaxCpuId) return make_error("CPU mask too long '" + std::string(text) + "'");
  }
  if (!any_digit) return make_error("invalid CPU mask '" + std::string(text) + "'");
  return from_vector(std::move(ids));
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
