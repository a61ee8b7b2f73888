#pragma once
// The --connect/-c, --sysfs, --caps options every command that needs the host topology takes.
#include <CLI/CLI.hpp>

#include "orchestrator/libvirt/hostsource/host_source.hpp"

namespace topolab {

inline void add_topology_source_options(CLI::App* cmd, TopologySource& src) {
  auto* connect = cmd->add_option("-c,--connect", src.connect,
                                  "libvirt URI for the host topology (default qemu:///system)");
  auto* sysfs = cmd->add_option("--sysfs", src.sysfs,
                                "read the topology from a sysfs tree under ROOT (/ = this machine)")
                    ->type_name("ROOT");
  auto* caps = cmd->add_option("--caps", src.caps, "read the topology from a capabilities XML file")
                   ->type_name("FILE");
  // An empty value (e.g. an unset shell variable) would silently fall back to libvirt.
  const auto non_empty = [](const std::string& v) { return v.empty() ? "empty value" : ""; };
  for (auto* opt : {connect, sysfs, caps}) opt->check(non_empty);
  connect->excludes(sysfs)->excludes(caps);
  sysfs->excludes(caps);
}

}  // namespace topolab
