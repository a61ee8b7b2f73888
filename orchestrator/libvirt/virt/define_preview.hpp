#pragma once
// What libvirt would store for a domain definition, found without touching the domain: the XML
// is defined once under a throw-away name with VIR_DOMAIN_DEFINE_VALIDATE, read back, and
// undefined at once. `apply` diffs THIS against the current definition, so its dry-run shows
// every change libvirt makes (normalisation, <memory> recomputed from NUMA cells, ...) and
// refuses, with libvirt's reason, a definition libvirt would refuse.
#include <libvirt/libvirt.h>

#include <string>

#include "common/result.hpp"

namespace topolab::domain {

// The throw-away has the name topolab-preview-<pid>-<n> and no <uuid> (libvirt refuses a second
// domain with the real one's UUID); it is undefined keeping NVRAM and TPM state, which belong to
// the real domain. The returned text has the real <name> and <uuid> elements put back, so it
// compares line for line with the domain's own XML (VIR_DOMAIN_XML_INACTIVE | _SECURE).
Result<std::string> libvirt_normalised_definition(virConnectPtr conn, const std::string& xml);

}  // namespace topolab::domain
