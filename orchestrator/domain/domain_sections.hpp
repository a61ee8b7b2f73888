#pragma once
// Building blocks shared by DomainXmlWriter (whole domain from a template) and the patcher
// (`apply`, which touches only the CPU sections of an existing domain).
#include <cstdint>
#include <optional>
#include <pugixml.hpp>
#include <string>

#include "orchestrator/domain/cpu_model.hpp"
#include "orchestrator/domain/domain_xml_writer.hpp"

namespace topolab::domain {

// Top-level <domain> children in libvirt's own order; new elements are inserted accordingly.
pugi::xml_node ensure_child(pugi::xml_node domain, const char* name);
// Replaces (or creates) a top-level child with an empty element of the same name.
pugi::xml_node replace_child(pugi::xml_node domain, const char* name);

struct SectionOptions {
  bool memory_backing = false;  // touch <memoryBacking> (layout asks for hugepages/locked)
  bool iothreads = false;       // touch <iothreads> (layout asks for iothreads)
  // Memory the NUMA cells split, in KiB. `apply` passes the domain's own <memory>: libvirt
  // sets <memory> to the sum of the cells, so cells from the layout's memory_mib would silently
  // resize the VM. Unset (the writer): the layout's memory_mib.
  std::optional<std::uint64_t> numa_memory_kib;
};
SectionOptions sections_asked_by(const Layout&);

// A domain's <memory> in KiB (libvirt's units: b, KB, KiB, MiB, G, ...; KiB when absent).
Result<std::uint64_t> domain_memory_kib(pugi::xml_node domain);

// <vcpu>, <iothreads>, <cputune>, <cpu>, <numatune>, <memoryBacking> from layout + plan.
Result<void> write_cpu_sections(pugi::xml_node domain, const Layout&, const PlacementPlan&,
                                const CpuModelChoice&, const SectionOptions&);

// pugixml writes "<a x='1' />"; libvirt writes "<a x='1'/>". Output matches libvirt's style so
// `apply` diffs show real changes only.
std::string libvirt_style(std::string xml);

}  // namespace topolab::domain
