#pragma once
// Requests whose replies are larger than a socket's buffers, for the agent's client-bound tests
// on both OSes (agent_bounds_test.cpp over UNIX sockets, windows/bounds_wine_test.cpp over
// loopback TCP under wine).
#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "protocol/protocol.hpp"

namespace topolab::testing {

inline std::string run_line(int id, const std::string& bench, const nlohmann::json& params) {
  return protocol::encode(protocol::run_message(static_cast<std::uint64_t>(id), bench, params));
}

// A placement line of about `target` bytes; its echo makes the next result as large.
inline std::string placement_of_size(std::size_t target) {
  using nlohmann::json;
  std::string odd;  // "1,3,5,...": a list that does not compress into ranges
  for (int c = 1; c < 8192; c += 2) odd += (odd.empty() ? "" : ",") + std::to_string(c);
  json vcpus = json::array();
  std::size_t bytes = protocol::encode(protocol::placement_message(vcpus)).size();
  int v = 0;
  // Large entries, then small ones to land within ~40 bytes of the target.
  for (const std::string& cpus : {odd, std::string("1")}) {
    for (;; ++v) {
      const json entry = {{"vcpu", v}, {"host_cpus", cpus}};
      const std::size_t add = entry.dump().size() + 1;
      if (bytes + add > target) break;
      vcpus.push_back(entry);
      bytes += add;
    }
  }
  std::string line = protocol::encode(protocol::placement_message(vcpus));
  EXPECT_LE(line.size() - 1, protocol::kMaxLineBytes);
  EXPECT_GT(line.size() + 100, target);
  return line;
}

// `count` pings from id `first_id` on, as one buffer.
inline std::string ping_lines(int count, std::uint64_t first_id) {
  std::string out;
  for (int i = 0; i < count; ++i)
    out += protocol::encode(protocol::ping_message(first_id + static_cast<std::uint64_t>(i)));
  return out;
}

}  // namespace topolab::testing
