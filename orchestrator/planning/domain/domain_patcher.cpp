#include "orchestrator/planning/domain/domain_patcher.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "common/accelerator.hpp"
#include "orchestrator/planning/domain/domain_features.hpp"
#include "orchestrator/planning/domain/domain_memory.hpp"
#include "orchestrator/planning/domain/domain_sections.hpp"

namespace topolab {
namespace {

// A top-level child element of the root, as a byte range [begin, end) of the original text.
struct Span {
  std::string name;
  std::size_t begin = 0, end = 0;
};

// Skips a markup construct starting at s[i] == '<' that is not an element; returns the index
// after it, or npos when s[i] starts an element or end tag.
std::size_t skip_non_element(const std::string& s, std::size_t i) {
  auto skip_to = [&](const char* close) {
    auto e = s.find(close, i);
    return e == std::string::npos ? s.size() : e + std::strlen(close);
  };
  if (s.compare(i, 4, "<!--") == 0) return skip_to("-->");
  if (s.compare(i, 9, "<![CDATA[") == 0) return skip_to("]]>");
  if (s.compare(i, 2, "<?") == 0) return skip_to("?>");
  if (s.compare(i, 2, "<!") == 0) return skip_to(">");
  return std::string::npos;
}

// End of a tag starting at s[i] == '<' (index after '>'), honouring quoted attribute values.
std::size_t tag_end(const std::string& s, std::size_t i) {
  char quote = 0;
  for (std::size_t k = i + 1; k < s.size(); ++k) {
    char c = s[k];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      return k + 1;
    }
  }
  return std::string::npos;
}

std::string tag_name(const std::string& s, std::size_t i) {
  std::size_t k = i + 1;
  if (k < s.size() && s[k] == '/') ++k;
  std::size_t e = k;
  while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e])) && s[e] != '>' &&
         s[e] != '/') {
    ++e;
  }
  return s.substr(k, e - k);
}

struct Scan {
  std::vector<Span> children;
  std::size_t root_close = std::string::npos;  // index of "</domain>"
};

Result<Scan> scan_top_level(const std::string& s) {
  Scan out;
  int depth = 0;
  Span current;
  std::size_t i = 0;
  while ((i = s.find('<', i)) != std::string::npos) {
    if (auto skip = skip_non_element(s, i); skip != std::string::npos) {
      i = skip;
      continue;
    }
    auto end = tag_end(s, i);
    if (end == std::string::npos)
      return make_error(ErrorKind::input,
                        "domain XML: unterminated tag at byte " + std::to_string(i));
    const bool closing = s[i + 1] == '/';
    const bool self_closing = !closing && s[end - 2] == '/';
    if (closing) {
      --depth;
      if (depth == 1) {
        current.end = end;
        out.children.push_back(current);
      } else if (depth == 0) {
        out.root_close = i;
        return out;
      }
    } else {
      if (depth == 1) {
        current = {tag_name(s, i), i, end};
        if (self_closing) out.children.push_back(current);
      }
      if (!self_closing) ++depth;
    }
    i = end;
  }
  return make_error(ErrorKind::input, "domain XML: no closing root tag");
}

std::string serialize(pugi::xml_node node, const std::string& indent) {
  std::ostringstream out;
  node.print(out, indent.c_str(), pugi::format_indent | pugi::format_attribute_single_quote,
             pugi::encoding_utf8, 1);
  return domain::libvirt_style(out.str());
}

std::size_t line_start(const std::string& s, std::size_t i) {
  auto nl = s.rfind('\n', i == 0 ? 0 : i - 1);
  return nl == std::string::npos || i == 0 ? 0 : nl + 1;
}

struct Edit {
  std::size_t begin, end;
  std::string text;
};

// The original text with each named top-level element replaced by the patched document's
// (removed when it has none, inserted in libvirt's order when the original had none); every
// other byte of the original is kept.
Result<std::string> splice_sections(const std::string& original, pugi::xml_node domain,
                                    const std::vector<std::string>& names) {
  TL_ASSIGN(auto scan, scan_top_level(original));
  std::string indent = "  ";
  if (!scan.children.empty()) {
    auto b = scan.children.front().begin;
    auto ls = line_start(original, b);
    if (original.find_first_not_of(" \t", ls) == b) indent = original.substr(ls, b - ls);
  }
  std::vector<Edit> edits;
  for (const auto& name : names) {
    auto node = domain.child(name.c_str());
    auto old = std::find_if(scan.children.begin(), scan.children.end(),
                            [&](const Span& sp) { return sp.name == name; });
    std::string text = node ? serialize(node, indent) : "";
    if (old != scan.children.end()) {
      if (node) {
        // The original line keeps its indentation and newline; splice the element only.
        text = text.substr(indent.size());
        if (!text.empty() && text.back() == '\n') text.pop_back();
        edits.push_back({old->begin, old->end, text});
      } else {
        auto b = line_start(original, old->begin);
        auto e = old->end < original.size() && original[old->end] == '\n' ? old->end + 1 : old->end;
        edits.push_back({b, e, ""});
      }
    } else if (node) {
      // Insert before the first existing element that libvirt orders after this one.
      std::size_t at = line_start(original, scan.root_close);
      for (auto sib = node.next_sibling(); sib; sib = sib.next_sibling()) {
        auto found = std::find_if(scan.children.begin(), scan.children.end(),
                                  [&](const Span& sp) { return sp.name == sib.name(); });
        if (found != scan.children.end()) {
          at = line_start(original, found->begin);
          break;
        }
      }
      edits.push_back({at, at, text});
    }
  }
  std::stable_sort(edits.begin(), edits.end(),
                   [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
  std::string out = original;
  for (const auto& e : edits) out.replace(e.begin, e.end - e.begin, e.text);
  return out;
}

}  // namespace

namespace {

bool a_disk_uses_an_iothread(pugi::xml_node domain) {
  for (auto d : domain.child("devices").children("disk")) {
    if (d.child("driver").attribute("iothread")) return true;
  }
  return false;
}

// The layout fields beyond the CPU sections: hyperv and [[hostdev]] written, each said in a
// note; the names of the top-level sections they touched are added to `names`.
void patch_features_and_hostdevs(pugi::xml_node domain, const Layout& l,
                                 std::vector<std::string>& names, std::vector<std::string>& notes) {
  if (l.hyperv) {
    const bool own = domain.child("features").child("hyperv");
    write_hyperv_features(domain);
    names.insert(names.end(), {"features", "clock"});
    notes.push_back(own ? "hyperv: the domain's own <hyperv> kept; HPET hidden and hypervclock "
                          "on where they were not set"
                        : "hyperv: Hyper-V enlightenments added (<features><hyperv>, HPET "
                          "hidden, hypervclock)");
  }
  if (l.hostdevs.empty()) return;
  auto devices = domain.child("devices") ? domain.child("devices") : domain.append_child("devices");
  const auto added = add_missing_hostdevs(devices, l);
  for (const auto& dev : l.hostdevs) {
    const bool is_new = std::find(added.begin(), added.end(), dev.pci_address) != added.end();
    notes.push_back("hostdev " + dev.pci_address +
                    (is_new ? ": passed through (added <hostdev>)" : ": already passed through"));
  }
  if (!added.empty()) names.push_back("devices");
}

}  // namespace

Result<std::string> patch_domain_xml(const std::string& original, const DomainSpec& spec) {
  std::vector<std::string> notes;
  return patch_domain_xml(original, spec, notes);
}

Result<std::string> patch_domain_xml(const std::string& original, const DomainSpec& given,
                                     std::vector<std::string>& notes) {
  DomainSpec spec = given;
  if (!spec.layout || (!spec.plan && !spec.announced)) {
    return make_error(ErrorKind::internal, "apply: layout and plan are required");
  }
  pugi::xml_document doc;
  auto parsed = doc.load_buffer(original.data(), original.size());
  if (!parsed) {
    return make_error(ErrorKind::input, "domain XML: offset " + std::to_string(parsed.offset) +
                                            ": " + parsed.description());
  }
  auto domain = doc.child("domain");
  if (!domain) return make_error(ErrorKind::input, "domain XML: expected a <domain> root element");
  // I/O threads no disk runs in would be pinned CPUs for nothing: not added, and said why.
  Layout layout = *spec.layout;
  if (layout.iothreads > 0 && !a_disk_uses_an_iothread(domain)) {
    notes.push_back("iothreads: the layout asks for " + std::to_string(layout.iothreads) +
                    ", but no disk of the domain names one (<driver iothread='1'>): not added; "
                    "add iothread='1' to a disk's <driver> and apply again");
    layout.iothreads = 0;
    spec.layout = &layout;
  }
  // <memory>: the layout's memory_mib when it gives one (the cells below split that), else the
  // domain's own; refused when its hugepages would not divide it.
  std::vector<std::string> names = {"vcpu", "vcpus", "cputune", "numatune", "cpu"};
  TL_TRY(domain::patch_memory(domain, layout, names, notes));
  const Accelerator accel = accelerator_of_domain_type(domain.attribute("type").as_string());
  TL_ASSIGN(auto announced, announced_for(spec, accel));
  if (!announced.cells.empty()) {
    // The cells split the domain's memory (as patched above): libvirt sets <memory> to their
    // sum.
    if (domain.child("maxMemory")) {
      return make_error(
          ErrorKind::input,
          "apply: the domain has <maxMemory> (memory hot-plug); its NUMA cells cannot be "
          "rewritten without knowing its DIMMs (expected a domain without memory hot-plug, or a "
          "layout that does not expose numa)");
    }
    TL_ASSIGN_CTX(auto mem, domain::domain_memory_kib(domain), "apply");
    TL_TRY(split_cell_memory(announced, *spec.layout, mem));
    for (const auto& c : announced.cells) {
      if (c.memory_kib != 0) continue;
      return make_error(ErrorKind::input,
                        "apply: NUMA cell " + std::to_string(c.id) +
                            " has no memory; a memoryless cell needs machine type " +
                            kMemorylessMachine +
                            " and apply does not change a domain's machine type (expected a "
                            "layout without guest.memoryless_nodes, or topolab xml/boot)");
    }
  }
  const auto opts = domain::sections_asked_by(*spec.layout);
  TL_TRY(domain::write_cpu_sections(domain, *spec.layout, announced, opts));

  if (opts.memory_backing) names.push_back("memoryBacking");
  if (opts.iothreads) names.push_back("iothreads");
  patch_features_and_hostdevs(domain, *spec.layout, names, notes);
  return splice_sections(original, domain, names);
}

}  // namespace topolab
