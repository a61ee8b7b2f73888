#include "common/ci_retry_log.hpp"

#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/file_io.hpp"

namespace topolab {

void note_retry_for_ci(const std::string& kind, const std::string& what, int attempt,
                       const std::string& reason, bool planted) {
  const char* path = std::getenv("TOPOLAB_BOOT_RETRY_LOG");
  if (path == nullptr || *path == '\0') return;
  auto fd = open_private_append(path);
  if (!fd) return;
  const nlohmann::json line = {{"kind", kind.substr(0, 16)},
                               {"boot", what.substr(0, 200)},
                               {"attempt", attempt},
                               {"planted", planted},
                               {"reason", reason.substr(0, 200)}};
  const std::string text =
      line.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace) + "\n";
  (void)!::write(fd->get(), text.data(), text.size());
}

bool names_planted_fault(std::string_view text) {
  constexpr std::string_view kKey = "topolab.fault=";
  for (auto at = text.find(kKey); at != std::string_view::npos; at = text.find(kKey, at + 1)) {
    const std::string_view value = text.substr(at + kKey.size());
    if (value.substr(0, 4) == "hang" || value.substr(0, 5) == "stall") return true;
  }
  return false;
}

}  // namespace topolab
