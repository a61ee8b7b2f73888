#include "common/uri_text.hpp"

namespace topolab {

std::string redacted_uri(std::string_view uri) {
  const auto sep = uri.find("://");
  if (sep == std::string_view::npos) return std::string(uri);
  const auto start = sep + 3;
  const auto end = uri.find_first_of("/?#", start);
  const std::string_view authority =
      uri.substr(start, end == std::string_view::npos ? end : end - start);
  const auto at = authority.rfind('@');
  const auto colon = authority.find(':');
  if (at == std::string_view::npos || colon == std::string_view::npos || colon > at)
    return std::string(uri);
  return std::string(uri.substr(0, start + colon + 1)) + "***" +
         std::string(uri.substr(start + at));
}

}  // namespace topolab
