#pragma once
// Wire protocol between topolab (host) and topolab-agent (guest): JSON lines.
// The agent implementation owns the details; this header is compiled into both sides.

namespace topolab::protocol {

inline constexpr int kProtocolVersion = 1;

int protocol_version();

}  // namespace topolab::protocol
