#pragma once
// The one place that decides what a libvirt connection URI means to topolab (issue 16):
// whether it reaches this machine's libvirtd through its local socket (the guest image is used
// from the local cache) or goes through libvirt's remote driver to a host (the image is
// uploaded into that host's `topolab` pool, docs/multi-host.md). Every connection is opened
// through open_connection(), which refuses a URI this parser refuses.
#include <string>

#include "common/result.hpp"

namespace topolab::virt {

inline constexpr const char* kDefaultConnectUri = "qemu:///system";

struct ConnectionUri {
  std::string uri;        // as given; kDefaultConnectUri for ""
  std::string driver;     // "qemu" or "test"
  std::string transport;  // "" (local), unix, tcp, tls, ssh, libssh, libssh2, ext
  std::string host;       // without user and port; "" when the URI names none
  // Through the remote driver to a host: a host part, or a network transport (ssh, tcp, tls,
  // ext) even towards localhost. qemu:///system and qemu+unix:///system are local.
  bool remote = false;
};

// Parses `driver[+transport]://[user@]host[:port]/path[?query]`. An unknown driver or
// transport (a typo such as qemo:// or qemu+tpc://) is refused with one line naming the URI
// and what is accepted, before anything is sent anywhere.
Result<ConnectionUri> parse_connection_uri(const std::string& uri);

}  // namespace topolab::virt
