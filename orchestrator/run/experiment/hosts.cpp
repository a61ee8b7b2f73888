#include "orchestrator/run/experiment/hosts.hpp"

#include <algorithm>

#include "common/terminal_text.hpp"
#include "orchestrator/libvirt/virt/connection_uri.hpp"
#include "orchestrator/libvirt/virt/uri_identity.hpp"

namespace topolab::experiment {
namespace {

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool only(std::string_view s, std::string_view extra) {
  return std::all_of(s.begin(), s.end(), [&](char c) {
    return is_alnum(c) || extra.find(c) != std::string_view::npos;
  });
}

}  // namespace

std::string shown_uri(std::string_view uri, std::size_t index) {
  // A refused URI is echoed only when it is short printable text (it goes to a terminal), and
  // never with its password.
  const bool printable =
      uri.size() <= kMaxHostUriBytes &&
      std::all_of(uri.begin(), uri.end(), [](char c) { return c > ' ' && c < 127; });
  return printable ? "'" + virt::redacted_uri(uri) + "'" : "#" + std::to_string(index + 1);
}

std::string host_key(std::string_view uri) {
  auto p = virt::parse_connection_uri(std::string(uri));
  return p ? virt::endpoint_key(*p) : std::string(uri);
}

std::string host_connect_uri(const std::string& uri, virt::UriSource source) {
  if (uri.empty()) return uri;
  auto p = virt::parse_connection_uri(uri, source);
  return p ? p->connect : uri;  // a refused URI never gets here (checked when parsed)
}

std::string host_uri_problem(std::string_view uri, virt::UriSource source) {
  if (uri.empty()) return "expected a libvirt URI such as qemu:///system, got an empty string";
  if (uri.size() > kMaxHostUriBytes)
    return "longer than " + std::to_string(kMaxHostUriBytes) + " bytes";
  if (!only(uri, "+:/@.-_[]%?=&,~"))
    return "holds a character that is not part of a libvirt URI (spaces, quotes and control "
           "characters are refused)";
  // The driver, the transport and the scheme's shape: the one URI parser every connection
  // goes through (virt/connection_uri.hpp), so a host the file accepts is one topolab can open.
  auto parsed = virt::parse_connection_uri(std::string(uri), source);
  if (!parsed) {
    // Its line starts "connection URI 'U': "; the caller names the URI (and FILE:LINE) already.
    const std::string& m = parsed.error().message;
    const std::string prefix =
        "connection URI '" + terminal_safe(virt::redacted_uri(uri.substr(0, 200))) + "': ";
    return m.rfind(prefix, 0) == 0 ? m.substr(prefix.size()) : m;
  }
  if (parsed->driver != "qemu")
    return "driver '" + parsed->driver +
           "': an experiment boots QEMU guests (expected qemu or qemu+TRANSPORT)";
  const auto sep = uri.find("://");
  std::string_view rest = uri.substr(sep + 3);
  const auto query = rest.find('?');
  if (query != std::string_view::npos) {
    if (!only(rest.substr(query + 1), "=&_-.,%/:")) return "the query part holds a bad character";
    rest = rest.substr(0, query);
  }
  const auto slash = rest.find('/');
  if (slash == std::string_view::npos) return "missing the path: expected /system or /session";
  const std::string_view authority = rest.substr(0, slash), path = rest.substr(slash);
  if (!only(authority, ".-_:[]@%")) return "the host part holds a bad character";
  if (std::count(authority.begin(), authority.end(), '@') > 1)
    return "the host part holds more than one '@'";
  if (path != "/system" && path != "/session")
    return "path '" + std::string(path) + "': the QEMU driver expects /system or /session";
  return "";
}

std::string duplicate_problem(const std::vector<std::string>& earlier, std::string_view uri) {
  const std::string key = host_key(uri);
  for (const auto& e : earlier) {
    if (e == uri) return "given twice (each host runs every cell once)";
    if (host_key(e) == key)
      return "the same host as '" + e +
             "' written differently (case, default port or transport, localhost/127.0.0.1/::1 "
             "or the user of /system)";
  }
  return "";
}

Result<void> check_host_list(const std::vector<std::string>& hosts, const std::string& what) {
  if (hosts.size() > kMaxHosts)
    return make_error(ErrorKind::input, what + ": " + std::to_string(hosts.size()) +
                                            " hosts, more than the limit " +
                                            std::to_string(kMaxHosts));
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (auto p = host_uri_problem(hosts[i], virt::UriSource::command_line); !p.empty())
      return make_error(ErrorKind::input, what + " " + shown_uri(hosts[i], i) + ": " + p);
    const std::vector<std::string> earlier(hosts.begin(), hosts.begin() + static_cast<long>(i));
    if (auto d = duplicate_problem(earlier, hosts[i]); !d.empty())
      return make_error(ErrorKind::input, what + " '" + hosts[i] + "': " + d);
  }
  return {};
}

}  // namespace topolab::experiment
