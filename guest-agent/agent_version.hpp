#pragma once

namespace topolab::agent {

const char* agent_version();

}  // namespace topolab::agent
