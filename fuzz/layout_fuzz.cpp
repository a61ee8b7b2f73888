// Fuzzes parse_layout (orchestrator/model/layout/layout.hpp) and everything a layout flows into on
// `topolab plan/xml`: validate_layout, plan_placement on two fixed hosts, the domain XML writer
// and the intended guest topology. Layout files are user input, often copied from forums.
// Beyond "no crash": an accepted layout passes validate_layout; a plan has one placement per
// vCPU and announces a topology whose product is the vCPU count.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "orchestrator/libvirt/hostsource/capabilities_parser.hpp"
#include "orchestrator/model/layout/layout.hpp"
#include "orchestrator/model/layout/toml_depth.hpp"
#include "orchestrator/planning/domain/domain_xml_writer.hpp"
#include "orchestrator/planning/domain/intended_topology.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"
#include "orchestrator/planning/plan/guest_plan.hpp"

namespace {

// Two hosts: this machine's shape (2 CPUs, one L3) and a 2-socket, 4-L3, SMT host.
const char* const kHosts[] = {
    R"(<capabilities><host><topology><cells num='1'><cell id='0'><memory unit='KiB'>8388608</memory>
<cpus num='2'><cpu id='0' socket_id='0' die_id='0' core_id='0' siblings='0'/>
<cpu id='1' socket_id='0' die_id='0' core_id='1' siblings='1'/></cpus></cell></cells></topology>
<cache><bank id='0' level='3' type='both' size='32' unit='MiB' cpus='0-1'/></cache></host></capabilities>)",
    R"(<capabilities><host><cpu><vendor>AMD</vendor></cpu><topology><cells num='2'>
<cell id='0'><memory unit='KiB'>4194304</memory><cpus num='8'>
<cpu id='0' socket_id='0' die_id='0' core_id='0' siblings='0,8'/><cpu id='1' socket_id='0' die_id='0' core_id='1' siblings='1,9'/>
<cpu id='2' socket_id='0' die_id='1' core_id='0' siblings='2,10'/><cpu id='3' socket_id='0' die_id='1' core_id='1' siblings='3,11'/>
<cpu id='8' socket_id='0' die_id='0' core_id='0' siblings='0,8'/><cpu id='9' socket_id='0' die_id='0' core_id='1' siblings='1,9'/>
<cpu id='10' socket_id='0' die_id='1' core_id='0' siblings='2,10'/><cpu id='11' socket_id='0' die_id='1' core_id='1' siblings='3,11'/></cpus></cell>
<cell id='1'><memory unit='KiB'>4194304</memory><cpus num='8'>
<cpu id='4' socket_id='1' die_id='0' core_id='0' siblings='4,12'/><cpu id='5' socket_id='1' die_id='0' core_id='1' siblings='5,13'/>
<cpu id='6' socket_id='1' die_id='1' core_id='0' siblings='6,14'/><cpu id='7' socket_id='1' die_id='1' core_id='1' siblings='7,15'/>
<cpu id='12' socket_id='1' die_id='0' core_id='0' siblings='4,12'/><cpu id='13' socket_id='1' die_id='0' core_id='1' siblings='5,13'/>
<cpu id='14' socket_id='1' die_id='1' core_id='0' siblings='6,14'/><cpu id='15' socket_id='1' die_id='1' core_id='1' siblings='7,15'/></cpus></cell>
</cells></topology><cache>
<bank id='0' level='3' type='both' size='16' unit='MiB' cpus='0-1,8-9'/><bank id='1' level='3' type='both' size='16' unit='MiB' cpus='2-3,10-11'/>
<bank id='2' level='3' type='both' size='16' unit='MiB' cpus='4-5,12-13'/><bank id='3' level='3' type='both' size='16' unit='MiB' cpus='6-7,14-15'/>
</cache></host></capabilities>)"};

const std::vector<topolab::HostTopology>& hosts() {
  static const std::vector<topolab::HostTopology> parsed = [] {
    std::vector<topolab::HostTopology> out;
    for (const char* xml : kHosts) {
      auto t = topolab::parse_capabilities_xml(xml, "fuzz-host");
      if (!t.ok()) std::abort();
      out.push_back(*t);
    }
    return out;
  }();
  return parsed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view toml(reinterpret_cast<const char*>(data), size);
  auto layout = topolab::parse_layout(toml, "fuzz.toml");
  // The depth gate is the parser's first step: nothing over it reaches toml++.
  if (layout.ok() && !topolab::check_toml_depth(toml, "fuzz.toml").ok()) std::abort();
  if (!layout.ok()) {
    if (layout.error().message.empty()) std::abort();
    return 0;
  }
  if (!topolab::validate_layout(*layout).ok()) std::abort();  // accepted means valid
  for (const auto& host : hosts()) {
    // Through the planning stage's one entry (issue 28: nothing else calls plan_placement).
    auto planned = topolab::plan::plan_guest(*layout, topolab::plan::HostFacts{host, std::nullopt});
    if (!planned.ok()) continue;
    const topolab::PlacementPlan* plan = &planned->placement;
    if (static_cast<int>(plan->vcpus.size()) != layout->vcpu_count()) std::abort();
    if (plan->topology.vcpus() != layout->vcpu_count()) std::abort();
    (void)topolab::plan_to_json(*plan);
    auto announced =
        topolab::announce_topology(*layout, *plan, topolab::Accelerator::kTcg, host.vendor);
    if (announced.ok()) (void)topolab::intended_guest_topology(*announced);
    topolab::DomainSpec spec;
    spec.name = "topolab-fuzz-0";
    spec.layout = &*layout;
    spec.plan = &*plan;
    spec.host_vendor = host.vendor;
    auto xml = topolab::DomainXmlWriter().write(spec);
    if (!xml.ok() && xml.error().message.empty()) std::abort();
  }
  return 0;
}
