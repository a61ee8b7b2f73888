#include "orchestrator/libvirt/virt/run_identity.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <iomanip>
#include <pugixml.hpp>
#include <random>
#include <sstream>

#include "common/file_io.hpp"
#include "common/safe_name.hpp"
#include "common/terminal_text.hpp"
#include "common/utc_time.hpp"

namespace topolab::virt {
namespace {

std::string sanitize(std::string_view s) {
  std::string out;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.';
    out += ok ? c : '_';
  }
  return out;
}

template <typename T>
std::optional<T> to_number(std::string_view s) {
  T v{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

pugi::xml_node find_run_element(const pugi::xml_node& root) {
  // Accept any prefix bound to our namespace URI, as libvirt may rewrite the prefix.
  return root.find_node([](const pugi::xml_node& n) {
    std::string_view name = n.name();
    auto colon = name.find(':');
    std::string_view local = colon == std::string_view::npos ? name : name.substr(colon + 1);
    if (local != "run") return false;
    std::string attr =
        colon == std::string_view::npos ? "xmlns" : "xmlns:" + std::string(name.substr(0, colon));
    return std::string_view(n.attribute(attr.c_str()).value()) == kMetadataUri;
  });
}

}  // namespace

std::string make_run_id() {
  std::random_device rd;
  std::ostringstream os;
  os << utc_now("%Y%m%dT%H%M%S") << '-' << std::hex << std::setw(6) << std::setfill('0')
     << (rd() & 0xffffffu);
  return os.str();
}

std::string run_id_problem(std::string_view run_id) {
  std::string problem = name_problem(run_id);
  if (problem.empty() && run_id.find('+') != std::string_view::npos)
    problem = "expected letters, digits, '.', '-', '_' only";
  return problem.empty() ? "" : "run id '" + terminal_safe(run_id.substr(0, 80)) + "': " + problem;
}

std::string domain_name_for(std::string_view layout, std::string_view run_id) {
  return std::string(kDomainPrefix) + sanitize(layout) + "-" + sanitize(run_id);
}

std::optional<unsigned long long> process_start_time(long pid) {
  auto stat = read_file("/proc/" + std::to_string(pid) + "/stat", 1 << 16);
  if (!stat) return std::nullopt;
  // The command name (field 2) may contain spaces and ')': fields restart after the last ')'.
  auto close = stat->rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(stat->substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 22) return to_number<unsigned long long>(field);
  }
  return std::nullopt;
}

RunOwner current_run_owner(const std::string& run_id) {
  RunOwner o;
  o.run_id = run_id;
  o.pid = static_cast<long>(getpid());
  o.start_time = process_start_time(o.pid).value_or(0);
  o.machine = this_machine_id();
  return o;
}

namespace {
bool is_machine_id(std::string_view v) {
  return v.size() == 32 && std::all_of(v.begin(), v.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}
}  // namespace

const std::string& this_machine_id() {
  static const std::string id = [] {
    auto text = read_file("/etc/machine-id", 256);
    if (!text) return std::string();
    std::string v = text->substr(0, text->find_first_of(" \n"));
    return is_machine_id(v) ? v : std::string();
  }();
  return id;
}

bool owner_on_this_machine(const RunOwner& owner) {
  return owner.machine.empty() || this_machine_id().empty() || owner.machine == this_machine_id();
}

bool run_owner_alive(const RunOwner& owner) {
  if (owner.pid <= 0) return false;
  auto start = process_start_time(owner.pid);
  if (!start) return false;
  return owner.start_time == 0 || *start == owner.start_time;
}

Result<std::string> add_run_metadata(std::string_view domain_xml, const RunOwner& owner) {
  pugi::xml_document doc;
  auto parsed = doc.load_buffer(domain_xml.data(), domain_xml.size(),
                                pugi::parse_default | pugi::parse_declaration);
  if (!parsed)
    return make_error(ErrorKind::input,
                      std::string("domain XML does not parse: ") + parsed.description());
  pugi::xml_node domain = doc.child("domain");
  if (!domain) return make_error(ErrorKind::input, "domain XML has no <domain> root");
  pugi::xml_node metadata = domain.child("metadata");
  if (!metadata) {
    // libvirt keeps <metadata> after <name>/<uuid>/<title>/<description>; place it there.
    pugi::xml_node after = domain.child("name");
    for (const char* n : {"uuid", "genid", "title", "description"}) {
      if (domain.child(n)) after = domain.child(n);
    }
    metadata =
        after ? domain.insert_child_after("metadata", after) : domain.prepend_child("metadata");
  }
  if (find_run_element(metadata))
    return make_error(ErrorKind::input, "domain XML already has a topolab:run element");
  std::string tag = std::string(kMetadataPrefix) + ":run";
  pugi::xml_node run = metadata.append_child(tag.c_str());
  run.append_attribute(("xmlns:" + std::string(kMetadataPrefix)).c_str()) =
      std::string(kMetadataUri).c_str();
  run.append_attribute("id") = owner.run_id.c_str();
  run.append_attribute("pid") = std::to_string(owner.pid).c_str();
  run.append_attribute("start") = std::to_string(owner.start_time).c_str();
  if (!owner.machine.empty()) run.append_attribute("machine") = owner.machine.c_str();
  if (!owner.template_domain.empty())
    run.append_attribute("template") = owner.template_domain.c_str();
  std::ostringstream out;
  doc.save(out, "  ");
  return out.str();
}

std::optional<RunOwner> parse_run_metadata(std::string_view xml) {
  pugi::xml_document doc;
  if (!doc.load_buffer(xml.data(), xml.size())) return std::nullopt;
  pugi::xml_node run = find_run_element(doc);
  // virDomainGetMetadata returns the element alone, without its namespace declaration.
  if (!run && std::string_view(doc.document_element().name()) == "run")
    run = doc.document_element();
  if (!run) return std::nullopt;
  RunOwner o;
  o.run_id = run.attribute("id").value();
  auto pid = to_number<long>(run.attribute("pid").value());
  if (o.run_id.empty() || !pid) return std::nullopt;
  o.pid = *pid;
  o.start_time = to_number<unsigned long long>(run.attribute("start").value()).value_or(0);
  if (is_machine_id(run.attribute("machine").value())) o.machine = run.attribute("machine").value();
  o.template_domain = run.attribute("template").value();  // checked by whoever acts on it
  return o;
}

}  // namespace topolab::virt
