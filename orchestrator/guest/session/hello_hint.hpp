#pragma once
// What to check when an own guest's agent never said hello (issue 14): a real OS fails to say
// hello for reasons topolab cannot see from outside (agent not installed or not running, no
// virtio-serial driver, a template's channel renamed), so the error names each one with what
// the transient domain actually had, and where its console log was kept.
#include <filesystem>
#include <string>
#include <string_view>

namespace topolab {

// `base_xml`: the own guest's base domain XML (the template's, disks overlaid) before topolab
// patched it; `live_xml`: the running transient domain's XML; `channel`: the port name the
// host waited on (org.topolab.agent.0).
std::string own_guest_hello_hint(std::string_view base_xml, std::string_view live_xml,
                                 std::string_view channel,
                                 const std::filesystem::path& console_log);

}  // namespace topolab
