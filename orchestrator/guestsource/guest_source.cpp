#include "orchestrator/guestsource/guest_source.hpp"

namespace topolab::guestsource {

Result<std::string> parse_guest_os(const std::string& os) {
  if (os == "linux" || os == "windows") return os;
  return make_error("guest os '" + os.substr(0, 40) + "': expected linux or windows");
}

}  // namespace topolab::guestsource
