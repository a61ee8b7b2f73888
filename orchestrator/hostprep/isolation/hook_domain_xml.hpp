#pragma once
// What `topolab hook` reads of the domain XML libvirt gives the qemu hook on stdin (issue 34).
// An experiment's copy of a template domain (`run --domain T`, named topolab-LAYOUT-RUNID) has
// no layout of its own; its metadata names T (<topolab:run template='T'>,
// virt/run_identity.hpp), and the hook isolates it with T's registered layout. The XML is
// untrusted input: bounded in size, time and nesting depth; its <name> must be the hook's
// DOMAIN, and the template must be a plain domain name.
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace topolab::isolation {

inline constexpr std::size_t kMaxHookXmlBytes = std::size_t{4} << 20;
inline constexpr std::chrono::milliseconds kHookXmlTimeout{10000};

// Only a domain named like topolab's copies (virt::kDomainPrefix) is looked up as a copy: the
// XML of any other domain is never read.
bool may_be_a_copy(std::string_view domain);

// Everything on `fd` up to its end: more than max_bytes, or no end within `timeout` (a writer
// that never closes, a terminal), is an error.
Result<std::string> read_hook_xml(int fd, std::size_t max_bytes = kMaxHookXmlBytes,
                                  std::chrono::milliseconds timeout = kHookXmlTimeout);

// `source`: "-" (stdin) or a file; read within the bounds above.
Result<std::string> read_hook_xml_from(const std::string& source);

// The template `domain` is a copy of according to its XML; "" when the XML names none.
Result<std::string> template_of_copy(std::string_view xml, const std::string& domain);

}  // namespace topolab::isolation
