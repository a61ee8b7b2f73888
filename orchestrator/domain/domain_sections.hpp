#pragma once
// Building blocks shared by DomainXmlWriter (whole domain from a template) and the patcher
// (`apply`, which touches only the CPU sections of an existing domain).
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
};
SectionOptions sections_asked_by(const Layout&);

// <vcpu>, <iothreads>, <cputune>, <cpu>, <numatune>, <memoryBacking> from layout + plan.
Result<void> write_cpu_sections(pugi::xml_node domain, const Layout&, const PlacementPlan&,
                                const CpuModelChoice&, const SectionOptions&);

}  // namespace topolab::domain
