#pragma once
// Helpers shared by the *_windows.cpp files only (never included by shared code).
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "host/topology_builder.hpp"

namespace topolab::agent::win {

std::wstring widen(std::string_view utf8);
std::string narrow(std::wstring_view wide);
// "CALL: <FormatMessage text> (error N)" for GetLastError()/WSAGetLastError() codes.
std::string error_text(const char* call, unsigned long code);
std::string last_error(const char* call);  // with GetLastError()

std::string cpuid_vendor();  // e.g. "GenuineIntel"
std::string cpuid_brand();   // e.g. "Intel(R) Xeon(R) ...", trimmed; "" when not reported
// "Windows 10.0.19045" from RtlGetVersion (GetVersionEx lies to unmanifested programs).
std::string windows_version();

// The hook serve() set with os::set_termination_hook (puts back what configure changed): the
// service's stop and shutdown controls run it before the process exits.
void run_termination_hook();

// One GetLogicalProcessorInformationEx(RelationAll) buffer turned into raw topology facts.
// CPU ids are global: group * 64 + bit. Exposed for tests of hand-made buffers.
Result<RawTopology> parse_processor_information(const unsigned char* buffer, std::size_t bytes);

}  // namespace topolab::agent::win
