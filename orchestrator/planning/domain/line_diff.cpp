// A small unified diff over lines (LCS by dynamic programming; domain XML is a few hundred
// lines, so O(n*m) is fine; very large inputs fall back to one whole-file hunk).
#include <algorithm>
#include <sstream>
#include <vector>

#include "orchestrator/planning/domain/domain_patcher.hpp"

namespace topolab {
namespace {

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

struct Op {
  char kind;         // ' ', '-', '+'
  std::size_t a, b;  // line index in before/after (for ' ' both)
};

std::vector<Op> edit_script(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<Op> ops;
  if (n * m > 25'000'000) {
    for (std::size_t i = 0; i < n; ++i) ops.push_back({'-', i, 0});
    for (std::size_t j = 0; j < m; ++j) ops.push_back({'+', n, j});
    return ops;
  }
  std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t j = m; j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      ops.push_back({' ', i++, j++});
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      ops.push_back({'-', i++, j});
    } else {
      ops.push_back({'+', i, j++});
    }
  }
  return ops;
}

}  // namespace

std::string unified_diff(const std::string& before, const std::string& after,
                         const std::string& before_name, const std::string& after_name,
                         int context) {
  const auto a = split_lines(before), b = split_lines(after);
  const auto ops = edit_script(a, b);
  const auto ctx = static_cast<std::size_t>(std::max(context, 0));
  std::ostringstream out;
  std::size_t k = 0;
  bool header = false;
  while (k < ops.size()) {
    // Next change.
    while (k < ops.size() && ops[k].kind == ' ') ++k;
    if (k == ops.size()) break;
    std::size_t start = k >= ctx ? k - ctx : 0;
    // Extend the hunk while changes are within 2*ctx of each other.
    std::size_t end = k;
    std::size_t equal_run = 0;
    for (std::size_t x = k; x < ops.size(); ++x) {
      if (ops[x].kind == ' ') {
        if (++equal_run > 2 * ctx) break;
      } else {
        equal_run = 0;
        end = x;
      }
    }
    std::size_t stop = std::min(ops.size(), end + 1 + ctx);
    std::size_t a_start = ops[start].a, b_start = ops[start].b, a_len = 0, b_len = 0;
    for (std::size_t x = start; x < stop; ++x) {
      if (ops[x].kind != '+') ++a_len;
      if (ops[x].kind != '-') ++b_len;
    }
    if (!header) {
      out << "--- " << before_name << "\n+++ " << after_name << "\n";
      header = true;
    }
    out << "@@ -" << (a_len ? a_start + 1 : a_start) << "," << a_len << " +"
        << (b_len ? b_start + 1 : b_start) << "," << b_len << " @@\n";
    for (std::size_t x = start; x < stop; ++x) {
      const auto& op = ops[x];
      out << op.kind << (op.kind == '+' ? b[op.b] : a[op.a]) << "\n";
    }
    k = stop;
  }
  return out.str();
}

}  // namespace topolab
