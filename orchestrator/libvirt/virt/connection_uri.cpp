#include "orchestrator/libvirt/virt/connection_uri.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

#include "common/safe_name.hpp"
#include "common/terminal_text.hpp"
#include "common/uri_text.hpp"

namespace topolab::virt {
namespace {

// topolab drives QEMU; "test" is libvirt's in-process mock (tests, --dry-run examples).
constexpr std::array<std::string_view, 2> kDrivers = {"qemu", "test"};
// libvirt's remote transports (https://libvirt.org/uri.html#transport-configuration).
constexpr std::array<std::string_view, 7> kTransports = {"unix",   "tcp",     "tls", "ssh",
                                                         "libssh", "libssh2", "ext"};
// libvirt's URI parameters (https://libvirt.org/uri.html#extra-parameters; root: the QEMU
// driver's embed mode). Anything else is a typo libvirt would pass on silently.
constexpr std::array<std::string_view, 15> kParams = {
    "name",      "command",      "socket",  "netcat",      "keyfile",
    "no_verify", "no_tty",       "pkipath", "known_hosts", "known_hosts_verify",
    "sshauth",   "tls_priority", "mode",    "proxy",       "root"};
// Parameters a file may carry: none of them names a program or a file on this machine, or
// weakens the host's authentication (no_verify, known_hosts_verify, tls_priority, pkipath).
struct SafeParam {
  std::string_view name;
  std::array<std::string_view, 3> values;
};
constexpr std::array<SafeParam, 3> kFileParams = {SafeParam{"no_tty", {"0", "1", ""}},
                                                  SafeParam{"mode", {"auto", "legacy", "direct"}},
                                                  SafeParam{"proxy", {"auto", "netcat", "native"}}};
constexpr std::size_t kMaxUriBytes = 4096;

template <std::size_t N>
bool one_of(std::string_view v, const std::array<std::string_view, N>& set) {
  return std::find(set.begin(), set.end(), v) != set.end();
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX and '+' decoded the way libvirt's virURIParseParams decodes a parameter; nullopt for a
// broken escape.
std::optional<std::string> decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] != '%') {
      out += s[i];
    } else if (i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
      i += 2;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

struct Authority {
  std::string_view user, host, port;  // host without port and brackets
  bool password = false;
};

// "user@host:port" -> user, host; "[::1]:16509" -> "::1".
Authority split_authority(std::string_view authority) {
  Authority a;
  if (auto at = authority.rfind('@'); at != std::string_view::npos) {
    a.user = authority.substr(0, at);
    authority.remove_prefix(at + 1);
    if (auto colon = a.user.find(':'); colon != std::string_view::npos) {
      a.password = true;
      a.user = a.user.substr(0, colon);
    }
  }
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    a.host = authority.substr(1, close == std::string_view::npos ? close : close - 1);
    authority.remove_prefix(close == std::string_view::npos ? authority.size() : close + 1);
  } else {
    a.host = authority.substr(0, authority.find(':'));
    authority.remove_prefix(a.host.size());
  }
  if (!authority.empty() && authority.front() == ':') a.port = authority.substr(1);
  return a;
}

bool valid_port(std::string_view port) {
  if (port.size() > 5 ||
      !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  const int n = std::stoi(std::string(port));
  return n >= 1 && n <= 65535;
}

std::string authority_problem(std::string_view authority, const Authority& a) {
  if (a.password)
    return "holds a password (USER:PASSWORD@): libvirt takes none in a URI, and a URI is "
           "stored and printed; use ssh keys or libvirt's auth.conf";
  if (authority.find('%') != std::string_view::npos)
    return "percent-encoding in the user or host part is not accepted";
  if (!a.user.empty() && a.user.front() == '-')
    return "a user name starting with '-' (ssh would read it as an option)";
  if (!a.host.empty() && a.host.front() == '-')
    return "a host name starting with '-' (ssh would read it as an option)";
  if (!a.port.empty() && !valid_port(a.port))
    return "port '" + std::string(a.port.substr(0, 20)) + "': expected a number 1..65535";
  return "";
}

std::string file_param_problem(const std::string& name, const std::string& value) {
  for (const auto& p : kFileParams) {
    if (p.name != name) continue;
    if (!value.empty() && one_of(value, p.values)) return "";
    std::string expected;
    for (auto v : p.values)
      expected += v.empty() ? "" : (expected.empty() ? "" : ", ") + std::string(v);
    return "parameter " + name + "='" + terminal_safe(value.substr(0, 40)) + "': expected " +
           expected;
  }
  return "parameter '" + name +
         "' names a program or a file on this machine or weakens the host's authentication: "
         "not accepted from a file (a file may carry no_tty, mode, proxy); give the host with "
         "--connect if you mean it";
}

// Splits the query on '&' and ';' (libvirt accepts both) and checks every parameter.
std::string query_problem(std::string_view query, UriSource source, ConnectionUri& out) {
  while (!query.empty()) {
    const auto end = query.find_first_of("&;");
    std::string_view item = query.substr(0, end);
    query = end == std::string_view::npos ? std::string_view() : query.substr(end + 1);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    auto name = decoded(item.substr(0, eq));
    auto value = decoded(eq == std::string_view::npos ? "" : item.substr(eq + 1));
    if (!name || !value) return "a broken %-escape in the query";
    if (has_control_chars(*name) || has_control_chars(*value))
      return "a parameter holds an encoded control character";
    if (!one_of(*name, kParams))
      return "unknown parameter '" + terminal_safe(name->substr(0, 40)) + "' (libvirt's are " +
             join_choices(kParams) + ")";
    if (source == UriSource::file) {
      if (auto p = file_param_problem(*name, *value); !p.empty()) return p;
    }
    out.params.emplace_back(*name, *value);
  }
  return "";
}

// Everything after the scheme: user, host, path and query.
std::string rest_problem(std::string_view rest, UriSource source, ConnectionUri& out) {
  if (rest.find('#') != std::string_view::npos)
    return "a '#' fragment is not part of a libvirt URI";
  const std::string_view authority = rest.substr(0, rest.find_first_of("/?"));
  const Authority a = split_authority(authority);
  if (auto p = authority_problem(authority, a); !p.empty()) return p;
  out.user = a.user;
  out.host = a.host;
  out.port = a.port;
  const auto q = rest.find('?');
  out.path = rest.substr(authority.size(), q == std::string_view::npos ? q : q - authority.size());
  return q == std::string_view::npos ? "" : query_problem(rest.substr(q + 1), source, out);
}

}  // namespace

std::string with_no_tty(std::string_view uri) {
  const auto q = uri.find('?');
  std::string out(uri.substr(0, q));
  std::string_view query = q == std::string_view::npos ? std::string_view() : uri.substr(q + 1);
  std::string kept;
  while (!query.empty()) {
    const auto end = query.find_first_of("&;");
    const std::string_view item = query.substr(0, end);
    query = end == std::string_view::npos ? std::string_view() : query.substr(end + 1);
    // Compared after decoding, as libvirt reads it: no%5Ftty is no_tty.
    if (item.empty() || decoded(item.substr(0, item.find('='))) == "no_tty") continue;
    kept += std::string(item) + "&";
  }
  return out + "?" + kept + "no_tty=1";
}

Result<ConnectionUri> parse_connection_uri(const std::string& given, UriSource source) {
  ConnectionUri out;
  out.uri = given.empty() ? kDefaultConnectUri : given;
  // Quoted visibly escaped: a newline or an escape sequence in the option stays one line.
  const std::string what =
      "connection URI '" + terminal_safe(redacted_uri(out.uri.substr(0, 200))) + "'";
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
                                            join_choices(kDrivers) + ")");
  }
  if (plus != std::string::npos && !one_of(out.transport, kTransports)) {
    return make_error(ErrorKind::input, what + ": unknown transport '" + out.transport +
                                            "' (expected " + join_choices(kTransports) + ")");
  }
  if (source == UriSource::file && out.transport == "ext") {
    return make_error(ErrorKind::input,
                      what +
                          ": transport 'ext' runs a program on this machine: not accepted "
                          "from a file; give the host with --connect if you mean it");
  }
  if (auto p = rest_problem(std::string_view(out.uri).substr(sep + 3), source, out); !p.empty()) {
    return make_error(ErrorKind::input, what + ": " + p);
  }
  out.remote = !out.host.empty() || (!out.transport.empty() && out.transport != "unix");
  out.connect = source == UriSource::file && out.remote ? with_no_tty(out.uri) : out.uri;
  return out;
}

}  // namespace topolab::virt
