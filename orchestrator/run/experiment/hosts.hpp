#pragma once
// The hosts of an experiment (issue 16): `hosts = ["qemu:///system", "qemu+ssh://box/system"]`
// in the file or `--connect URI` (repeatable) on `topolab run`. Each is a libvirt URI of the QEMU
// driver checked here, at the boundary, before anything connects: the URI is later handed to
// virConnectOpen and printed in progress lines and reports, so it is bounded and plain text.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/libvirt/virt/connection_uri.hpp"

namespace topolab::experiment {

inline constexpr std::size_t kMaxHosts = 16;
inline constexpr std::size_t kMaxHostUriBytes = 256;
// The host of a single-host run that names none: today's behaviour.
inline constexpr const char* kDefaultHost = "qemu:///system";
// The host of backend "host" (the agent runs on this machine, no libvirt connection).
inline constexpr const char* kLocalHost = "local";

// "" when `uri` is one libvirt could accept for QEMU guests:
//   qemu[+unix|ssh|libssh|libssh2|tcp|tls|ext]://[user@][host][:port]/(system|session)[?query]
// otherwise what is wrong (for "FIELD 'uri': <reason>"). From a file (`hosts = [...]`) the ext
// transport and program- or file-naming parameters are refused (virt/connection_uri.hpp).
std::string host_uri_problem(std::string_view uri, virt::UriSource source);

// 'URI' (its password shown as ***) when it is short printable text, else "#N" (1-based): how
// an error names a host.
std::string shown_uri(std::string_view uri, std::size_t index);

// Two URIs of one endpoint compare equal (virt/uri_identity.hpp: driver, transport, host with
// localhost/127.0.0.1/::1 as one, default port, path; the user only for /session). Different
// routes to one machine (qemu:///system vs qemu+tcp://127.0.0.1/system) stay two hosts.
std::string host_key(std::string_view uri);

// What a host of the list is opened with (virt::ConnectionUri::connect): from a file, a remote
// URI with no_tty=1 (nothing may prompt on the terminal); otherwise `uri` unchanged ("" stays
// "", the backend's default connection).
std::string host_connect_uri(const std::string& uri, virt::UriSource source);

// "" when `uri` names no host of `earlier`; otherwise why it is a duplicate.
std::string duplicate_problem(const std::vector<std::string>& earlier, std::string_view uri);

// Checks a whole list (count 1..kMaxHosts, each URI, no duplicates); `what` names the source
// in the error ("--connect"), the file's list is checked entry by entry in experiment.cpp.
Result<void> check_host_list(const std::vector<std::string>& hosts, const std::string& what);

}  // namespace topolab::experiment
