#pragma once
// The most vCPUs a layout may have and still boot (issue 12 class 11), checked at plan time so
// an unbootable layout is refused with its reason instead of failing at start or at hello:
//  - the machine type's limit, from libvirt's domain capabilities (<vcpu max='288'/> for
//    QEMU 7.2's q35, the machine topolab's domain templates use) when libvirt is the source;
//  - the hello bound: the agent's hello carries the guest's topology in one protocol line of at
//    most proto::kMaxLineBytes; kMaxHelloVcpus is the largest count whose worst-case hello fits
//    (tests/orchestrator/guest/session/vcpu_limits_test.cpp builds that hello and measures it).
// Without libvirt (--sysfs, --caps) only the hello bound applies: the machine limit depends on
// the QEMU that will boot the guest, which is not known there.
#include <string>

#include "common/result.hpp"
#include "orchestrator/model/layout/layout.hpp"
#include "orchestrator/planning/plan/vcpu_limit.hpp"

namespace topolab::session {

// The limit and its check are the planning stage's (plan/vcpu_limit.hpp); here is where the
// limit is read from.
using plan::check_vcpu_limit;
using plan::kMaxHelloVcpus;
using plan::VcpuLimit;
inline constexpr const char* kLimitMachine = "q35";

VcpuLimit static_vcpu_limit();
// min(machine limit, hello bound). libvirt without domain capabilities (e.g. test:///) gives
// the static limit, its source saying why.
VcpuLimit libvirt_vcpu_limit(const std::string& uri);
// The machine limit in a domain capabilities XML (<domainCapabilities><vcpu max='N'/>).
Result<int> parse_domcaps_vcpu_max(const std::string& xml);

}  // namespace topolab::session
