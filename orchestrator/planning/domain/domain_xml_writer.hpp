#pragma once
// Writes a libvirt domain XML (pugixml) from a base template plus a Layout and what is
// announced to the guest (AnnouncedTopology): <vcpu>, <cputune>, <cpu> (model, features,
// topology, numa cells), <numatune>, memory backing, iothreads, hostdevs, direct kernel boot and
// the agent channel.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/accelerator.hpp"
#include "common/result.hpp"
#include "orchestrator/model/layout/layout.hpp"
#include "orchestrator/planning/placement/announced_topology.hpp"

namespace topolab {

struct BootSpec {
  std::filesystem::path kernel, initrd;
  std::string cmdline;
};
struct ChannelSpec {
  std::string name = "org.topolab.agent.0";
  std::filesystem::path socket_path;  // empty: libvirt chooses
};
struct DomainSpec {
  std::string name;
  const Layout* layout = nullptr;
  // What the guest is told. When null it is announced here from plan + accel + host_vendor
  // (announce_topology); a caller that also verifies the guest passes the one it verifies with.
  const AnnouncedTopology* announced = nullptr;
  const PlacementPlan* plan = nullptr;
  Accelerator accel = Accelerator::kTcg;
  std::string host_vendor;              // "AuthenticAMD", "GenuineIntel", "" unknown
  std::filesystem::path base_template;  // empty: templates/domains/linux-direct-boot.xml
  std::optional<BootSpec> boot;
  std::optional<ChannelSpec> agent_channel;
  std::filesystem::path serial_log;  // console log file, empty: none
  // A guest on a remote host (issue 16): its console is read through libvirt
  // (virDomainOpenConsole, which needs a pty serial), not from a file of this machine: the
  // first serial becomes a pty without <source>/<log>; serial_log is then ignored.
  bool console_stream = false;
  // The built-in initramfs guest: no USB controller, the agent's virtio-serial controller on
  // pcie.0 (so libvirt adds no PCIe root ports). Own-disk and Windows guests keep the defaults.
  bool minimal_devices = false;
  // When set, the writer appends what it kept from the base or replaced (host devices), for the
  // caller's log or diff.
  std::vector<std::string>* notes = nullptr;
};

// Directory of the shipped templates (install_paths(): TOPOLAB_TEMPLATES_DIR, the installed
// share/topolab/templates, or the source tree's when run from the build tree).
std::filesystem::path templates_dir();
std::filesystem::path default_base_template();

// spec.announced, or the topology announced from spec.plan, spec.accel and spec.host_vendor.
Result<AnnouncedTopology> announced_for(const DomainSpec& spec, Accelerator accel);

class DomainXmlWriter {
 public:
  Result<std::string> write(const DomainSpec&) const;
};

}  // namespace topolab
