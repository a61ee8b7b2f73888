#include "orchestrator/layout/layout.hpp"

namespace topolab {
namespace {

nlohmann::json cpus_json(const std::optional<CpuList>& cpus) {
  return cpus ? nlohmann::json(cpus->to_string()) : nlohmann::json();
}

}  // namespace

nlohmann::json layout_to_json(const Layout& l) {
  nlohmann::json explicit_cpus = nlohmann::json::array();
  for (const auto& c : l.explicit_cpus) explicit_cpus.push_back(c.to_string());
  nlohmann::json hostdevs = nlohmann::json::array();
  for (const auto& d : l.hostdevs)
    hostdevs.push_back({{"address", d.pci_address}, {"managed", d.managed}});
  // Keys are the file keys, so that a difference can be named as the user wrote it.
  return {{"guest.l3_groups", l.l3_groups},
          {"guest.cores_per_group", l.cores_per_group},
          {"guest.threads_per_core", l.threads_per_core},
          {"guest.memory_mib", l.memory_mib},
          {"guest.iothreads", l.iothreads},
          {"guest.hyperv", l.hyperv},
          {"guest.kernel_cmdline_extra", l.kernel_cmdline_extra},
          {"guest.os", l.guest_os},
          {"expose.as", to_string(l.expose)},
          {"placement.policy", to_string(l.policy)},
          {"placement.host_cpus", cpus_json(l.host_cpus)},
          {"placement.housekeeping_cpus", cpus_json(l.housekeeping_cpus)},
          {"placement.explicit", explicit_cpus},
          {"cpu.model", l.cpu_model},
          {"cpu.features_disable", l.cpu_features_disable},
          {"cpu.features_require", l.cpu_features_require},
          {"memory.hugepages", l.hugepage_kib},
          {"memory.locked", l.hugepages_locked},
          {"hostdev", hostdevs}};
}

}  // namespace topolab
