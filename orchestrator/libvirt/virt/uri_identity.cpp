#include "orchestrator/libvirt/virt/uri_identity.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>

namespace topolab::virt {
namespace {

constexpr const char* kThisMachine = "localhost";

bool loopback(const sockaddr* a) {
  if (a->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(a);
    return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
  }
  if (a->sa_family != AF_INET6) return false;
  const auto& v6 = reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr;
  return IN6_IS_ADDR_LOOPBACK(&v6) || (IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127);
}

// A numeric address in the form inet_ntop writes, "localhost" for a loopback one, the name
// unchanged otherwise. AI_NUMERICHOST: parsed as the connect would parse it, never looked up.
std::string canonical_address(const std::string& host) {
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) return host;
  std::string out = host;
  char text[INET6_ADDRSTRLEN] = {};
  const sockaddr* a = found->ai_addr;
  if (loopback(a)) {
    out = kThisMachine;
  } else if (a->sa_family == AF_INET &&
             inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a)->sin_addr, text,
                       sizeof text)) {
    out = text;
  } else if (a->sa_family == AF_INET6 &&
             inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr, text,
                       sizeof text)) {
    out = text;
  }
  freeaddrinfo(found);
  return out;
}

std::string canonical_host(std::string host, const std::string& transport) {
  std::transform(host.begin(), host.end(), host.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!host.empty() && host.back() == '.') host.pop_back();  // "box." is "box"
  // Without a host a network transport goes to localhost (libvirt's remote driver).
  if (host.empty()) return transport == "unix" ? "" : kThisMachine;
  return host == kThisMachine ? host : canonical_address(host);
}

std::string canonical_port(const std::string& port, const std::string& transport) {
  if (!port.empty()) return std::to_string(std::stoi(port));  // validated 1..65535 digits
  if (transport == "tcp") return "16509";
  if (transport == "tls") return "16514";
  if (transport == "ssh") return "22";
  return "";
}

}  // namespace

std::string endpoint_key(const ConnectionUri& uri) {
  std::string transport = uri.transport;
  if (transport.empty()) transport = uri.host.empty() ? "unix" : "tls";  // libvirt's defaults
  if (transport == "libssh" || transport == "libssh2") transport = "ssh";
  // The path as written: libvirt's QEMU driver compares it exactly ("/system/" is refused,
  // "unexpected qemu URI path"), so a trailing slash is no other spelling of an endpoint.
  const std::string& path = uri.path;
  const std::string user = path == "/session" ? uri.user : "";
  std::string host = canonical_host(uri.host, transport);
  if (host.find(':') != std::string::npos) host = "[" + host + "]";  // an IPv6 address
  return uri.driver + "+" + transport + "://" + user + "@" + host + ":" +
         canonical_port(uri.port, transport) + path;
}

}  // namespace topolab::virt
