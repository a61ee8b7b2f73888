#pragma once
// The hosts the domain XML tests place every preset on: the big synthetic host the golden files
// are made on (deterministic) and two real captures (an EPYC 7451, a 2-socket Intel with SMT).
#include <vector>

#include "tests/orchestrator/placement/fixture_hosts.hpp"

namespace topolab::testing {

inline HostTopology golden_host() { return make_synthetic_host({2, 4, 4, 2, false, true, 16384}); }

inline std::vector<NamedHost> xml_test_hosts() {
  std::vector<NamedHost> hosts = {{"golden", golden_host()}};
  for (const auto& h : fixture_hosts()) {
    if (h.name == "x86_64-epyc_7451" || h.name == "32intel64-2p8co2t+8ve") hosts.push_back(h);
  }
  return hosts;
}

}  // namespace topolab::testing
