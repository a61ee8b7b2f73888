// Fuzzes parse_capabilities_xml (orchestrator/libvirt/hostsource/capabilities_parser.hpp):
// capabilities come from libvirt, possibly a remote host, or from a file the user gives with
// --caps. Beyond "no crash": an accepted topology must survive the JSON round trip that `topolab
// host
// --json` and the guest hello use (topology_to_json -> topology_from_json).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "host/topology_json.hpp"
#include "orchestrator/libvirt/hostsource/capabilities_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view xml(reinterpret_cast<const char*>(data), size);
  auto topo = topolab::parse_capabilities_xml(xml, "fuzz.xml");
  if (!topo.ok()) {
    if (topo.error().message.empty()) std::abort();
    return 0;
  }
  auto json = topolab::topology_to_json(*topo);
  auto back = topolab::topology_from_json(json);
  if (!back.ok()) {
    std::fprintf(stderr, "accepted capabilities do not round-trip: %s\n",
                 back.error().message.c_str());
    std::abort();
  }
  if (topolab::topology_to_json(*back) != json) std::abort();
  return 0;
}
