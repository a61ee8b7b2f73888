#pragma once
// virConnectOpen with a deadline (issue 16). libvirt has no connect timeout: a black-holed
// address waits out TCP's SYN retries (about two minutes), and a peer that accepts and never
// answers (a hung libvirtd, a wrong service on the port, a stuck ssh) blocks the open forever;
// the keepalive only starts once the connection is open. So the open runs on its own thread and
// the caller waits at most the bound, for every URI and transport alike (a pre-connect TCP probe
// would cover tcp/tls only, and not a peer that accepts and stays silent).
// On the deadline the opening thread is abandoned, not cancelled (libvirt offers no way): it
// closes the connection itself if it ever opens, and otherwise ends with the process.
#include <chrono>
#include <string>

#include "common/result.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::virt {

// Every connection topolab opens (host -c, doctor -c, boot -c, run --connect, the reconnects):
// long enough for a loaded libvirtd to answer, short enough that a silent host is one line.
inline constexpr std::chrono::seconds kConnectBound{20};

// Opens `target` (an already checked URI); "cannot connect to TARGET: ..." on failure, with
// "no answer within N s" when the bound ran out.
Result<ConnectPtr> open_bounded(const std::string& target, std::chrono::milliseconds bound);

}  // namespace topolab::virt
