#pragma once
// Building blocks shared by DomainXmlWriter (whole domain from a template) and the patcher
// (`apply`, which touches only the CPU sections of an existing domain).
#include <cstdint>
#include <pugixml.hpp>
#include <string>

#include "orchestrator/planning/domain/domain_xml_writer.hpp"
#include "orchestrator/planning/placement/announced_topology.hpp"

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

// A size in libvirt's units (b, KB, KiB, MiB, G, ...) as KiB; `tag` (the element) for errors.
Result<std::uint64_t> libvirt_size_kib(const std::string& text, const std::string& unit,
                                       const std::string& tag);
// A domain's <memory> in KiB (libvirt's units; KiB when absent).
Result<std::uint64_t> domain_memory_kib(pugi::xml_node domain);

// <vcpu>, <iothreads>, <cputune>, <cpu>, <numatune>, <memoryBacking>: read from the announced
// topology (the layout gives only iothreads and memory backing).
Result<void> write_cpu_sections(pugi::xml_node domain, const Layout&, const AnnouncedTopology&,
                                const SectionOptions&);

// pugixml writes "<a x='1' />"; libvirt writes "<a x='1'/>". Output matches libvirt's style so
// `apply` diffs show real changes only.
std::string libvirt_style(std::string xml);

}  // namespace topolab::domain
