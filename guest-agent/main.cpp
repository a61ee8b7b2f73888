#include <cstdio>

#include "protocol/protocol.hpp"

int main() {
  std::printf("topolab-agent (protocol %d): not built yet\n", topolab::protocol::kProtocolVersion);
  return 2;
}
