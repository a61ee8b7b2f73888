#include "protocol/protocol.hpp"

namespace topolab::protocol {

int protocol_version() { return kProtocolVersion; }

}  // namespace topolab::protocol
