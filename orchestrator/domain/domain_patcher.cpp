#include "orchestrator/domain/domain_patcher.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "common/file_io.hpp"
#include "common/utc_time.hpp"
#include "orchestrator/domain/define_preview.hpp"
#include "orchestrator/domain/domain_sections.hpp"
#include "orchestrator/virt/libvirt_handles.hpp"

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
      return make_error("domain XML: unterminated tag at byte " + std::to_string(i));
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
  return make_error("domain XML: no closing root tag");
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
  auto scan = scan_top_level(original);
  if (!scan) return scan.error();
  std::string indent = "  ";
  if (!scan->children.empty()) {
    auto b = scan->children.front().begin;
    auto ls = line_start(original, b);
    if (original.find_first_not_of(" \t", ls) == b) indent = original.substr(ls, b - ls);
  }
  std::vector<Edit> edits;
  for (const auto& name : names) {
    auto node = domain.child(name.c_str());
    auto old = std::find_if(scan->children.begin(), scan->children.end(),
                            [&](const Span& sp) { return sp.name == name; });
    std::string text = node ? serialize(node, indent) : "";
    if (old != scan->children.end()) {
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
      std::size_t at = line_start(original, scan->root_close);
      for (auto sib = node.next_sibling(); sib; sib = sib.next_sibling()) {
        auto found = std::find_if(scan->children.begin(), scan->children.end(),
                                  [&](const Span& sp) { return sp.name == sib.name(); });
        if (found != scan->children.end()) {
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

Result<std::string> patch_domain_xml(const std::string& original, const DomainSpec& spec) {
  if (!spec.layout || (!spec.plan && !spec.announced)) {
    return make_error("apply: layout and plan are required");
  }
  pugi::xml_document doc;
  auto parsed = doc.load_buffer(original.data(), original.size());
  if (!parsed) {
    return make_error("domain XML: offset " + std::to_string(parsed.offset) + ": " +
                      parsed.description());
  }
  auto domain = doc.child("domain");
  if (!domain) return make_error("domain XML: expected a <domain> root element");
  const Accelerator accel = std::string(domain.attribute("type").as_string()) == "kvm"
                                ? Accelerator::kKvm
                                : Accelerator::kTcg;
  auto announced = announced_for(spec, accel);
  if (!announced) return announced.error();
  if (!announced->cells.empty()) {
    // The cells split the domain's own memory: libvirt sets <memory> to their sum.
    if (domain.child("maxMemory")) {
      return make_error(
          "apply: the domain has <maxMemory> (memory hot-plug); its NUMA cells cannot be "
          "rewritten without knowing its DIMMs (expected a domain without memory hot-plug, or a "
          "layout that does not expose numa)");
    }
    auto mem = domain::domain_memory_kib(domain);
    if (!mem) return mem.error().context("apply");
    TL_TRY(split_cell_memory(*announced, *spec.layout, *mem));
  }
  const auto opts = domain::sections_asked_by(*spec.layout);
  TL_TRY(domain::write_cpu_sections(domain, *spec.layout, *announced, opts));

  std::vector<std::string> names = {"vcpu", "vcpus", "cputune", "numatune", "cpu"};
  if (opts.memory_backing) names.push_back("memoryBacking");
  if (opts.iothreads) names.push_back("iothreads");
  return splice_sections(original, domain, names);
}

namespace {

Result<std::filesystem::path> write_backup(const std::filesystem::path& dir,
                                           const std::string& domain, const std::string& xml) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error("backup dir " + dir.string() + ": " + ec.message());
  const std::string stamp = utc_now("%Y%m%dT%H%M%SZ");
  auto path = dir / (domain + "." + stamp + ".xml");
  for (int n = 1; std::filesystem::exists(path); ++n) {
    path = dir / (domain + "." + stamp + "-" + std::to_string(n) + ".xml");
  }
  TL_TRY(write_file_atomic(path, xml, 0600));  // may hold secrets (VIR_DOMAIN_XML_SECURE)
  return path;
}

void pin_live(virDomainPtr dom, const PlacementPlan& plan, std::vector<std::string>& notes) {
  virDomainInfo info{};
  if (virDomainGetInfo(dom, &info) < 0 || info.nrVirtCpu != plan.vcpus.size()) {
    notes.push_back(
        "live: vCPU count differs from the layout; the new pinning applies at the "
        "next boot");
    return;
  }
  int max_cpu = 0;
  for (const auto& v : plan.vcpus) max_cpu = std::max(max_cpu, v.host_cpus.last());
  for (int c : plan.emulator_cpus) max_cpu = std::max(max_cpu, c);
  const int maplen = max_cpu / 8 + 1;
  auto map_of = [&](const CpuList& cpus) {
    std::vector<unsigned char> map(static_cast<std::size_t>(maplen), 0);
    for (int c : cpus)
      map[static_cast<std::size_t>(c / 8)] |= static_cast<unsigned char>(1 << (c % 8));
    return map;
  };
  int failed = 0;
  std::string first_error;  // captured at the failing call: later calls reset libvirt's error
  auto count = [&](int rc) {
    if (auto e = virt::failed(rc)) {
      if (failed++ == 0) first_error = e->message;
    }
  };
  for (const auto& v : plan.vcpus) {
    auto map = map_of(v.host_cpus);
    count(virDomainPinVcpuFlags(dom, static_cast<unsigned>(v.vcpu), map.data(), maplen,
                                VIR_DOMAIN_AFFECT_LIVE));
  }
  if (!plan.emulator_cpus.empty()) {
    auto map = map_of(plan.emulator_cpus);
    count(virDomainPinEmulator(dom, map.data(), maplen, VIR_DOMAIN_AFFECT_LIVE));
  }
  notes.push_back(failed ? "live: " + std::to_string(failed) +
                               " live pin call(s) failed: " + first_error
                         : "live: vCPU and emulator pins applied now; topology and model "
                           "changes take effect at the next boot");
}

}  // namespace

namespace {

// The domain's persistent XML as libvirt formats it (secrets included: it is what we define).
Result<std::string> persistent_xml(virDomainPtr dom, const std::string& name) {
  virt::LibvirtString raw(
      virDomainGetXMLDesc(dom, VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE));
  if (!raw) return virt::capture_libvirt_error().context("reading the XML of '" + name + "'");
  return std::string(raw.get());
}

// Running state, refusing what apply does not rewrite (transient domains).
Result<bool> check_running(virDomainPtr dom, const ApplyOptions& opts) {
  const int persistent = virDomainIsPersistent(dom);
  if (auto e = virt::failed(persistent)) return e->context("domain '" + opts.domain + "'");
  if (persistent != 1) {
    return make_error("domain '" + opts.domain +
                      "' is transient; apply rewrites persistent definitions only");
  }
  const int active = virDomainIsActive(dom);
  if (auto e = virt::failed(active)) return e->context("domain '" + opts.domain + "'");
  if (active == 1 && !opts.live && !opts.dry_run) {
    return make_error("domain '" + opts.domain +
                      "' is running; refusing without --live (the new definition would apply "
                      "at its next boot)");
  }
  return active == 1;
}

void note_memory(const std::string& xml, const Layout& layout, std::vector<std::string>& notes) {
  pugi::xml_document doc;
  if (!doc.load_string(xml.c_str())) return;
  auto kib = domain::domain_memory_kib(doc.child("domain"));
  if (kib && *kib != layout.memory_mib * 1024) {
    notes.push_back("memory: the domain keeps its own " + std::to_string(*kib / 1024) +
                    " MiB; apply does not resize a VM (layout memory_mib " +
                    std::to_string(layout.memory_mib) + " not applied)");
  }
}

}  // namespace

Result<ApplyResult> apply_layout_to_domain(const ApplyOptions& opts, const Layout& layout,
                                           const PlacementPlan& plan,
                                           const std::string& host_vendor) {
  auto conn = virt::open_connection(opts.connect_uri);
  if (!conn) return conn.error();
  virt::DomainPtr dom(virDomainLookupByName(conn->get(), opts.domain.c_str()));
  if (!dom) return virt::capture_libvirt_error().context("domain '" + opts.domain + "'");
  auto running = check_running(dom.get(), opts);
  if (!running) return running.error();
  auto before = persistent_xml(dom.get(), opts.domain);
  if (!before) return before.error();
  DomainSpec spec;
  spec.name = opts.domain;
  spec.layout = &layout;
  spec.plan = &plan;
  spec.host_vendor = host_vendor;
  auto after = patch_domain_xml(*before, spec);
  if (!after) return after.error();
  // The diff is against what libvirt would store, not our text: the dry-run shows every
  // change (libvirt's normalisation included) and fails where the real apply would.
  auto predicted = domain::libvirt_normalised_definition(conn->get(), *after);
  if (!predicted) return predicted.error().context("apply '" + opts.domain + "' (nothing changed)");
  ApplyResult result;
  result.changed = *predicted != *before;
  result.diff =
      unified_diff(*before, *predicted, "a/" + opts.domain + ".xml", "b/" + opts.domain + ".xml");
  note_memory(*before, layout, result.notes);
  if (opts.dry_run || !result.changed) {
    if (!result.changed) result.notes.push_back("no change: the domain already matches");
    if (opts.dry_run) {
      result.notes.push_back(
          "dry run: nothing written, nothing defined (diff as libvirt would store it)");
    }
    return result;
  }
  const auto dir =
      opts.backup_dir.empty() ? std::filesystem::path("topolab-backups") : opts.backup_dir;
  auto backup = write_backup(dir, opts.domain, *before);
  if (!backup) return backup.error();
  result.backup = *backup;
  virt::DomainPtr defined(
      virDomainDefineXMLFlags(conn->get(), after->c_str(), VIR_DOMAIN_DEFINE_VALIDATE));
  if (!defined) {
    return virt::capture_libvirt_error().context("defining the patched '" + opts.domain +
                                                 "' (unchanged; previous XML saved in " +
                                                 backup->string() + ")");
  }
  // The preview is the promise; say so if libvirt stored anything else.
  if (auto stored = persistent_xml(defined.get(), opts.domain); !stored) {
    result.notes.push_back("could not read the stored definition back: " + stored.error().message);
  } else if (*stored != *predicted) {
    result.notes.push_back(
        "warning: libvirt stored a definition that differs from the diff "
        "above:\n" +
        unified_diff(*predicted, *stored, "predicted", "stored"));
  }
  if (*running) pin_live(dom.get(), plan, result.notes);
  return result;
}

}  // namespace topolab
