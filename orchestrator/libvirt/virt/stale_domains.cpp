#include "orchestrator/libvirt/virt/stale_domains.hpp"

#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"

namespace topolab::virt {
namespace {

struct DomainList {
  virDomainPtr* doms = nullptr;
  int n = 0;
  ~DomainList() {
    for (int i = 0; i < n; ++i) virDomainFree(doms[i]);
    free(doms);  // NOLINT: libvirt allocates with malloc
  }
};

}  // namespace

Result<std::vector<StaleDomain>> find_stale_domains(virConnectPtr conn, std::string_view prefix,
                                                    std::string_view run_id) {
  DomainList list;
  list.n = virConnectListAllDomains(conn, &list.doms, 0);
  if (auto e = failed(list.n)) {
    list.n = 0;
    return e->context("virConnectListAllDomains");
  }
  std::vector<StaleDomain> out;
  for (int i = 0; i < list.n; ++i) {
    std::string name = domain_name(list.doms[i]);
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    auto xml = domain_xml(list.doms[i], /*live=*/false);
    if (!xml) continue;  // vanished meanwhile (another run cleaning up)
    auto owner = parse_run_metadata(*xml);
    if (!owner) continue;  // not created through topolab's registry: not ours to judge
    if (!run_id.empty() && owner->run_id != run_id) continue;
    // Another orchestrator machine's domain on a shared (remote) host: its PID is not ours
    // to look up, and a live run must not lose its guest.
    if (!owner_on_this_machine(*owner)) continue;
    if (run_owner_alive(*owner)) continue;
    out.push_back(StaleDomain{name, *owner});
  }
  return out;
}

Result<std::vector<std::string>> cleanup_stale_domains(virConnectPtr conn, std::string_view prefix,
                                                       std::string_view run_id) {
  auto stale = find_stale_domains(conn, prefix, run_id);
  if (!stale) return stale.error();
  std::vector<std::string> removed;
  std::string failures;
  for (const auto& s : *stale) {
    auto dom = lookup_domain(conn, s.name);
    if (!dom) continue;
    if (auto r = destroy_and_undefine(dom->get()); !r) {
      failures += (failures.empty() ? "" : "; ") + r.error().message;
      continue;
    }
    removed.push_back(s.name);
  }
  if (!failures.empty()) return make_error(ErrorKind::libvirt, "stale domain cleanup: " + failures);
  return removed;
}

}  // namespace topolab::virt
