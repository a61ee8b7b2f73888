#include "guest-agent/agent_version.hpp"

namespace topolab::agent {

const char* agent_version() { return "0.1.0"; }

}  // namespace topolab::agent
