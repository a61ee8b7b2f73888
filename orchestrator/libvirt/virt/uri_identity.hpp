#pragma once
// When two libvirt URIs name one endpoint (issue 16 follow-up): an experiment that lists one
// host twice under two spellings would run two workers against one daemon, their measurements
// sharing the machine. Decided here, next to the parser every URI goes through, and used by the
// experiment's host list (experiment/hosts.hpp: duplicate_problem).
//
// One endpoint = one driver, transport, daemon address and path:
//   - transport: libvirt's default made explicit (a host without one is tls, no host the local
//     socket); libssh and libssh2 are ssh;
//   - host: lower case, no trailing dot; a numeric address in its canonical form (127.1 and
//     2130706433 are 127.0.0.1, 0:0::1 is ::1); localhost, 127.0.0.0/8, ::1 and
//     ::ffff:127.x.x.x are one name (this machine), and so is no host with a network transport
//     (libvirt connects to localhost);
//   - port: the transport's default made explicit (tcp 16509, tls 16514, ssh 22), leading zeros
//     dropped;
//   - path as written (libvirt refuses "/system/": a trailing slash is not a spelling); the
//     user only for /session (one daemon per user; /system is the machine's one daemon
//     whoever logs in);
//   - the query's parameters (no_tty, mode, proxy...) are not part of it.
// Not resolved, on purpose: host names through DNS (the check contacts nothing), and different
// transports or ports towards one machine (qemu:///system and qemu+tcp://127.0.0.1:16509/system
// reach one daemon through two routes; a local port may be a tunnel to another machine). The
// remote tests run two lanes on this machine exactly so.
//
// The key is for comparing only: it is never stored (a store's host column keeps the URI as
// written, so existing stores and their resumed runs are unchanged).
#include <string>

#include "orchestrator/libvirt/virt/connection_uri.hpp"

namespace topolab::virt {

// The endpoint of a parsed URI, as text: equal for two spellings of one endpoint.
std::string endpoint_key(const ConnectionUri& uri);

}  // namespace topolab::virt
