#include "orchestrator/hostprep/isolation/hook_domain_xml.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <pugixml.hpp>

#include "common/file_io.hpp"
#include "common/terminal_text.hpp"
#include "orchestrator/hostprep/isolation/isolation_plan.hpp"
#include "orchestrator/libvirt/virt/run_identity.hpp"
#include "orchestrator/planning/domain/xml_depth.hpp"

namespace topolab::isolation {

bool may_be_a_copy(std::string_view domain) {
  return domain.substr(0, virt::kDomainPrefix.size()) == virt::kDomainPrefix;
}

Result<std::string> read_hook_xml(int fd, std::size_t max_bytes,
                                  std::chrono::milliseconds timeout) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout;
  std::string out;
  char buf[65536];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      return make_error(ErrorKind::input, "domain XML on stdin: not ended within " +
                                              std::to_string(timeout.count()) + " ms");
    }
    pollfd p{fd, POLLIN, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(left.count()));
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0)
      return make_error(ErrorKind::io, std::string("domain XML: poll: ") + strerror(errno));
    if (rc == 0) continue;  // the deadline check above ends it
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0)
      return make_error(ErrorKind::io, std::string("domain XML: read: ") + strerror(errno));
    if (n == 0) return out;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      return make_error(ErrorKind::input,
                        "domain XML: larger than " + std::to_string(max_bytes) + " bytes");
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
}

Result<std::string> read_hook_xml_from(const std::string& source) {
  if (source == "-") return read_hook_xml(STDIN_FILENO);
  TL_ASSIGN(auto fd, open_regular_file(source));
  auto text = read_hook_xml(fd.get());
  if (!text) return text.error().context(source);
  return text;
}

Result<std::string> template_of_copy(std::string_view xml, const std::string& domain) {
  pugi::xml_document doc;
  auto parsed = doc.load_buffer(xml.data(), xml.size());
  if (!parsed) {
    return make_error(ErrorKind::input, "domain XML: offset " + std::to_string(parsed.offset) +
                                            ": " + parsed.description());
  }
  if (domain::xml_depth(doc) > domain::kMaxXmlDepth) {
    return make_error(ErrorKind::input, "domain XML: nested deeper than " +
                                            std::to_string(domain::kMaxXmlDepth) + " elements");
  }
  auto root = doc.child("domain");
  if (!root) return make_error(ErrorKind::input, "domain XML: expected a <domain> root element");
  const std::string name = root.child("name").text().as_string();
  if (name != domain) {
    return make_error(ErrorKind::input, "domain XML names '" + terminal_safe(name.substr(0, 80)) +
                                            "', expected '" + domain + "'");
  }
  auto owner = virt::parse_run_metadata(xml);
  if (!owner || owner->template_domain.empty()) return std::string();
  auto ok = check_domain_name(owner->template_domain);
  if (!ok) return ok.error().context("domain XML: <topolab:run template>");
  if (owner->template_domain == domain) {
    return make_error(ErrorKind::input,
                      "domain XML: <topolab:run template> names the domain itself");
  }
  return owner->template_domain;
}

}  // namespace topolab::isolation
