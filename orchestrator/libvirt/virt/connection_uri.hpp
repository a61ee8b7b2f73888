#pragma once
// The one place that decides what a libvirt connection URI means to topolab (issue 16):
// whether it reaches this machine's libvirtd through its local socket (the guest image is used
// from the local cache) or goes through libvirt's remote driver to a host (the image is
// uploaded into that host's `topolab` pool, docs/multi-host.md). Every connection is opened
// through open_connection(), which refuses a URI this parser refuses.
//
// Who wrote the URI matters (redteam wave 3): libvirt's `ext` transport and the parameters
// command=, netcat=, socket=, keyfile=, known_hosts=, pkipath=... make libvirt run a program or
// trust a file on *this* machine, as topolab's user (root). A URI typed on the command line is
// the user's own choice; a URI from an experiment file (files are shared) may carry none of
// them (UriSource::file). See docs/multi-host.md "What a host URI may carry".
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "common/uri_text.hpp"

namespace topolab::virt {

inline constexpr const char* kDefaultConnectUri = "qemu:///system";

// Where a URI came from: the command line (-c/--connect, typed by the user) or a file
// (`hosts = [...]` in an experiment, written by anyone).
using topolab::UriSource;  // common/uri_text.hpp

struct ConnectionUri {
  std::string uri;        // as given; kDefaultConnectUri for ""
  std::string driver;     // "qemu" or "test"
  std::string transport;  // "" (local), unix, tcp, tls, ssh, libssh, libssh2, ext
  std::string user;       // "" when the URI names none
  std::string host;       // without user and port; "" when the URI names none
  std::string port;       // "" when the URI names none
  std::string path;       // "/system", "/session", ...
  // The query's parameters, percent-decoded as libvirt decodes them (name, value).
  std::vector<std::pair<std::string, std::string>> params;
  // Through the remote driver to a host: a host part, or a network transport (ssh, tcp, tls,
  // ext) even towards localhost. qemu:///system and qemu+unix:///system are local.
  bool remote = false;
  // The text handed to libvirt (virConnectOpen, virsh -c): `uri`, except that a remote URI
  // from a file always ends in no_tty=1, any no_tty it gave dropped. A shared file must never
  // make topolab wait for a password on the terminal: with no_tty=1 libvirt runs ssh with
  // BatchMode=yes and no tty (an ssh that needs a password fails at once, naming the host),
  // and topolab's open passes no auth callback, so libvirt itself never prompts either. Where
  // the URI is stored or printed, `uri` (as written) is used.
  std::string connect;
};

// Parses `driver[+transport]://[user@]host[:port]/path[?name=value&...]`. Refused, with one
// line naming the URI (its password, if any, never shown) and what is accepted, before
// anything is sent anywhere: an unknown driver or transport (a typo such as qemo:// or
// qemu+tpc://), a password in the user part (libvirt takes none; it would be stored and
// printed), a user or host starting with '-' (ssh would read it as an option), percent-encoding
// in the user or host, a parameter libvirt does not know (after percent-decoding: co%6Dmand is
// command), and, from a file, the ext transport and every parameter but no_tty, mode, proxy.
Result<ConnectionUri> parse_connection_uri(const std::string& uri,
                                           UriSource source = UriSource::command_line);

// `uri` with every no_tty parameter of its query replaced by one no_tty=1 at the end (what a
// URI from a file is opened with, ConnectionUri::connect); the other parameters are kept as
// written, in order.
std::string with_no_tty(std::string_view uri);

// How a message shows a URI that may hold a password (common/uri_text.hpp).
using topolab::redacted_uri;

}  // namespace topolab::virt
