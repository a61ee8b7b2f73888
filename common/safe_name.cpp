#include "common/safe_name.hpp"

#include "common/terminal_text.hpp"

namespace topolab {

std::string name_problem(std::string_view name) {
  if (name.empty()) return "expected a non-empty name";
  if (name.size() > kMaxNameBytes)
    return "expected at most " + std::to_string(kMaxNameBytes) + " bytes, got " +
           std::to_string(name.size());
  if (name.front() == '.' || name.front() == '-')
    return "expected a name not starting with '.' or '-', got '" + terminal_safe(name) + "'";
  for (char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '+' || ch == '-';
    if (!ok)
      return "expected letters, digits, '.', '_', '+' or '-' (it names a domain and a file), "
             "got '" +
             terminal_safe(name) + "'";
  }
  return "";
}

bool has_control_chars(std::string_view text) {
  for (unsigned char ch : text)
    if (ch < 0x20 || ch == 0x7f) return true;
  return false;
}

}  // namespace topolab
