// Fuzzes topology_from_json (host/topology_json.hpp): the guest agent's hello carries the
// guest-seen topology, and a guest is untrusted. Beyond "no crash": what is accepted re-encodes
// to JSON that decodes to the same topology (a fixed point after one round).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "host/topology_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto json = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return 0;
  auto topo = topolab::topology_from_json(json);
  if (!topo.ok()) {
    if (topo.error().message.empty()) std::abort();
    return 0;
  }
  auto once = topolab::topology_to_json(*topo);
  auto again = topolab::topology_from_json(once);
  if (!again.ok() || topolab::topology_to_json(*again) != once) std::abort();
  return 0;
}
