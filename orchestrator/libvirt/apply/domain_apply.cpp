#include "orchestrator/libvirt/apply/domain_apply.hpp"

#include <algorithm>
#include <pugixml.hpp>

#include "common/file_io.hpp"
#include "common/utc_time.hpp"
#include "orchestrator/libvirt/apply/domain_state.hpp"
#include "orchestrator/libvirt/virt/define_preview.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"
#include "orchestrator/planning/domain/domain_sections.hpp"

namespace topolab {
namespace {

Result<std::filesystem::path> write_backup(const std::filesystem::path& dir,
                                           const std::string& domain, const std::string& xml) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(ErrorKind::io, "backup dir " + dir.string() + ": " + ec.message());
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

std::filesystem::path apply_backup_dir(const ApplyOptions& opts) {
  return opts.backup_dir.empty() ? std::filesystem::path("topolab-backups") : opts.backup_dir;
}

Result<std::string> persistent_domain_xml(virDomainPtr dom, const std::string& name) {
  virt::LibvirtString raw(
      virDomainGetXMLDesc(dom, VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE));
  if (!raw) return virt::capture_libvirt_error().context("reading the XML of '" + name + "'");
  return std::string(raw.get());
}

Result<bool> check_domain_redefinable(virDomainPtr dom, const ApplyOptions& opts) {
  const int persistent = virDomainIsPersistent(dom);
  if (auto e = virt::failed(persistent)) return e->context("domain '" + opts.domain + "'");
  if (persistent != 1) {
    return make_error(
        ErrorKind::input,
        "domain '" + opts.domain + "' is transient; apply rewrites persistent definitions only");
  }
  const int active = virDomainIsActive(dom);
  if (auto e = virt::failed(active)) return e->context("domain '" + opts.domain + "'");
  if (active == 1 && !opts.live && !opts.dry_run) {
    return make_error(ErrorKind::input,
                      "domain '" + opts.domain +
                          "' is running; refusing without --live (the new definition would apply "
                          "at its next boot)");
  }
  return active == 1;
}

Result<ApplyResult> apply_layout_to_domain(const ApplyOptions& opts, const Layout& layout,
                                           const PlacementPlan& plan,
                                           const std::string& host_vendor) {
  TL_ASSIGN(const auto conn, virt::open_connection(opts.connect_uri));
  virt::DomainPtr dom(virDomainLookupByName(conn.get(), opts.domain.c_str()));
  if (!dom) return virt::capture_libvirt_error().context("domain '" + opts.domain + "'");
  TL_ASSIGN(const bool running, check_domain_redefinable(dom.get(), opts));
  TL_ASSIGN(const std::string before, persistent_domain_xml(dom.get(), opts.domain));
  DomainSpec spec;
  spec.name = opts.domain;
  spec.layout = &layout;
  spec.plan = &plan;
  spec.host_vendor = host_vendor;
  ApplyResult result;
  TL_ASSIGN(const std::string after, patch_domain_xml(before, spec, result.notes));
  // The diff is against what libvirt would store, not our text: the dry-run shows every
  // change (libvirt's normalisation included) and fails where the real apply would.
  TL_ASSIGN_CTX(const std::string predicted,
                domain::libvirt_normalised_definition(conn.get(), after),
                "apply '" + opts.domain + "' (nothing changed)");
  result.changed = predicted != before;
  result.diff =
      unified_diff(before, predicted, "a/" + opts.domain + ".xml", "b/" + opts.domain + ".xml");
  if (opts.dry_run || !result.changed) {
    if (!result.changed) result.notes.push_back("no change: the domain already matches");
    if (opts.dry_run) {
      result.notes.push_back(
          "dry run: nothing written, nothing defined (diff as libvirt would store it)");
    }
    return result;
  }
  TL_ASSIGN(result.backup, write_backup(apply_backup_dir(opts), opts.domain, before));
  virt::DomainPtr defined(
      virDomainDefineXMLFlags(conn.get(), after.c_str(), VIR_DOMAIN_DEFINE_VALIDATE));
  if (!defined) {
    return virt::capture_libvirt_error().context("defining the patched '" + opts.domain +
                                                 "' (unchanged; previous XML saved in " +
                                                 result.backup.string() + ")");
  }
  // The preview is the promise; say so if libvirt stored anything else.
  if (auto stored = persistent_domain_xml(defined.get(), opts.domain); !stored) {
    result.notes.push_back("could not read the stored definition back: " + stored.error().message);
  } else if (*stored != predicted) {
    result.notes.push_back(
        "warning: libvirt stored a definition that differs from the diff "
        "above:\n" +
        unified_diff(predicted, *stored, "predicted", "stored"));
  }
  if (running) pin_live(dom.get(), plan, result.notes);
  return result;
}

}  // namespace topolab
