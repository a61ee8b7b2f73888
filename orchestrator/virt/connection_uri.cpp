#include "orchestrator/virt/connection_uri.hpp"

#include <array>
#include <string_view>

#include "common/safe_name.hpp"
#include "common/terminal_text.hpp"

namespace topolab::virt {
namespace {

// topolab drives QEMU; "test" is libvirt's in-process mock (tests, --dry-run examples).
constexpr std::array<std::string_view, 2> kDrivers = {"qemu", "test"};
// libvirt's remote transports (https://libvirt.org/uri.html#transport-configuration).
constexpr std::array<std::string_view, 7> kTransports = {"unix",   "tcp",     "tls", "ssh",
                                                         "libssh", "libssh2", "ext"};
constexpr std::size_t kMaxUriBytes = 4096;

template <std::size_t N>
bool one_of(std::string_view v, const std::array<std::string_view, N>& set) {
  for (auto s : set) {
    if (v == s) return true;
  }
  return false;
}

template <std::size_t N>
std::string listed(const std::array<std::string_view, N>& set) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    out += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(set[i]);
  }
  return out;
}

// "user@host:port" -> "host"; "[::1]:16509" -> "::1".
std::string host_of(std::string_view authority) {
  if (auto at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);
  }
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    return std::string(authority.substr(1, close == std::string_view::npos ? close : close - 1));
  }
  return std::string(authority.substr(0, authority.find(':')));
}

}  // namespace

Result<ConnectionUri> parse_connection_uri(const std::string& given) {
  ConnectionUri out;
  out.uri = given.empty() ? kDefaultConnectUri : given;
  // Quoted visibly escaped: a newline or an escape sequence in the option stays one line.
  const std::string what = "connection URI '" + terminal_safe(out.uri.substr(0, 200)) + "'";
  if (out.uri.size() > kMaxUriBytes) {
    return make_error(ErrorKind::input, what + ": longer than " + std::to_string(kMaxUriBytes));
  }
  if (has_control_chars(out.uri)) {
    return make_error(ErrorKind::input, what + ": holds a control character");
  }
  auto sep = out.uri.find("://");
  if (sep == std::string::npos || sep == 0) {
    return make_error(ErrorKind::input,
                      what +
                          ": expected DRIVER[+TRANSPORT]://[HOST]/PATH, e.g. qemu:///system "
                          "or qemu+ssh://root@box/system");
  }
  std::string scheme = out.uri.substr(0, sep);
  auto plus = scheme.find('+');
  out.driver = scheme.substr(0, plus);
  if (plus != std::string::npos) out.transport = scheme.substr(plus + 1);
  if (!one_of(out.driver, kDrivers)) {
    return make_error(ErrorKind::input, what + ": unknown driver '" + out.driver + "' (expected " +
                                            listed(kDrivers) + ")");
  }
  if (plus != std::string::npos && !one_of(out.transport, kTransports)) {
    return make_error(ErrorKind::input, what + ": unknown transport '" + out.transport +
                                            "' (expected " + listed(kTransports) + ")");
  }
  std::string_view rest = std::string_view(out.uri).substr(sep + 3);
  out.host = host_of(rest.substr(0, rest.find_first_of("/?")));
  out.remote = !out.host.empty() || (!out.transport.empty() && out.transport != "unix");
  return out;
}

}  // namespace topolab::virt
