#include "orchestrator/experiment/hosts.hpp"

#include <algorithm>

#include "orchestrator/virt/connection_uri.hpp"

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
  // A refused URI is echoed only when it is short printable text (it goes to a terminal).
  const bool printable =
      uri.size() <= kMaxHostUriBytes &&
      std::all_of(uri.begin(), uri.end(), [](char c) { return c > ' ' && c < 127; });
  return printable ? "'" + std::string(uri) + "'" : "#" + std::to_string(index + 1);
}

std::string host_uri_problem(std::string_view uri) {
  if (uri.empty()) return "expected a libvirt URI such as qemu:///system, got an empty string";
  if (uri.size() > kMaxHostUriBytes)
    return "longer than " + std::to_string(kMaxHostUriBytes) + " bytes";
  if (!only(uri, "+:/@.-_[]%?=&,~"))
    return "holds a character that is not part of a libvirt URI (spaces, quotes and control "
           "characters are refused)";
  // The driver, the transport and the scheme's shape: the one URI parser every connection
  // goes through (virt/connection_uri.hpp), so a host the file accepts is one topolab can open.
  auto parsed = virt::parse_connection_uri(std::string(uri));
  if (!parsed) {
    // Its line starts "connection URI 'U': "; the caller names the URI (and FILE:LINE) already.
    const std::string& m = parsed.error().message;
    const auto cut =
        m.rfind("': ", m.find("unknown ") == std::string::npos ? m.size() : m.find("unknown "));
    return cut == std::string::npos ? m : m.substr(cut + 3);
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

Result<void> check_host_list(const std::vector<std::string>& hosts, const std::string& what) {
  if (hosts.size() > kMaxHosts)
    return make_error(what + ": " + std::to_string(hosts.size()) + " hosts, more than the limit " +
                      std::to_string(kMaxHosts));
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (auto p = host_uri_problem(hosts[i]); !p.empty())
      return make_error(what + " " + shown_uri(hosts[i], i) + ": " + p);
    for (std::size_t j = 0; j < i; ++j)
      if (hosts[j] == hosts[i])
        return make_error(what + " '" + hosts[i] +
                          "': given twice (each host runs every cell once)");
  }
  return {};
}

}  // namespace topolab::experiment
