#include "orchestrator/planning/domain/domain_memory.hpp"

#include "orchestrator/planning/domain/domain_sections.hpp"

namespace topolab::domain {
namespace {

constexpr std::uint64_t kDefaultHugepageKib = 2048;

std::string mib_text(std::uint64_t kib) {
  return kib % 1024 == 0 ? std::to_string(kib / 1024) + " MiB" : std::to_string(kib) + " KiB";
}

std::string page_text(std::uint64_t kib) {
  return kib % (1024 * 1024) == 0 ? std::to_string(kib / (1024 * 1024)) + " GiB pages"
                                  : mib_text(kib) + " pages";
}

// The hugepages that will back the domain after the patch, and where they come from.
Result<void> check_hugepages_divide(pugi::xml_node domain, const Layout& l, std::uint64_t kib) {
  std::vector<std::uint64_t> pages;
  std::string whose;
  if (l.hugepage_kib != 0) {
    pages = {l.hugepage_kib};
    whose = "the layout's memory.hugepages";
  } else {
    TL_ASSIGN_CTX(pages, domain_hugepage_kib(domain), "apply: <memoryBacking>");
    whose = "the domain's own <memoryBacking><hugepages>";
  }
  for (std::uint64_t page : pages) {
    if (page == 0 || kib % page == 0) continue;
    return make_error(ErrorKind::input,
                      "apply: memory " + mib_text(kib) + " is not a whole number of " +
                          page_text(page) + " (" + whose +
                          "): libvirt would define a domain that cannot start; expected a "
                          "guest.memory_mib that is a multiple of " +
                          mib_text(page) + ", or other hugepages");
  }
  return {};
}

}  // namespace

void write_memory_kib(pugi::xml_node domain, std::uint64_t kib) {
  const std::string text = std::to_string(kib);
  for (const char* name : {"memory", "currentMemory"}) {
    auto n = replace_child(domain, name);
    n.append_attribute("unit") = "KiB";
    n.append_child(pugi::node_pcdata).set_value(text.c_str());
  }
}

Result<std::vector<std::uint64_t>> domain_hugepage_kib(pugi::xml_node domain) {
  auto hugepages = domain.child("memoryBacking").child("hugepages");
  if (!hugepages) return std::vector<std::uint64_t>{};
  std::vector<std::uint64_t> out;
  for (auto page : hugepages.children("page")) {
    const std::string unit = page.attribute("unit") ? page.attribute("unit").value() : "KiB";
    TL_ASSIGN(auto kib, libvirt_size_kib(page.attribute("size").value(), unit, "page"));
    out.push_back(kib);
  }
  if (out.empty()) out.push_back(kDefaultHugepageKib);
  return out;
}

Result<void> patch_memory(pugi::xml_node domain, const Layout& l, std::vector<std::string>& names,
                          std::vector<std::string>& notes) {
  TL_ASSIGN_CTX(const std::uint64_t own, domain_memory_kib(domain), "apply");
  if (!l.memory_given) {
    TL_TRY(check_hugepages_divide(domain, l, own));
    notes.push_back("memory: the layout gives no guest.memory_mib; the domain keeps its own " +
                    mib_text(own));
    return {};
  }
  const std::uint64_t kib = l.memory_mib * 1024;
  TL_TRY(check_hugepages_divide(domain, l, kib));
  if (kib == own) {
    notes.push_back("memory: already " + mib_text(kib) + " (layout memory_mib)");
    return {};
  }
  if (domain.child("maxMemory")) {
    return make_error(ErrorKind::input,
                      "apply: the domain has <maxMemory> (memory hot-plug): its <memory> counts "
                      "its DIMMs, so apply does not resize it (expected a layout without "
                      "guest.memory_mib, or resize it with virsh edit)");
  }
  write_memory_kib(domain, kib);
  names.insert(names.end(), {"memory", "currentMemory"});
  notes.push_back("memory: " + mib_text(own) + " -> " + mib_text(kib) +
                  " (layout memory_mib; <memory> and <currentMemory>)");
  return {};
}

}  // namespace topolab::domain
