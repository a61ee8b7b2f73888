// `topolab host [--connect URI | --sysfs ROOT | --caps FILE] [--json]`: the host topology as a
// tree or as JSON (host/topology_json.hpp shape).
#include <cstdio>
#include <iostream>

#include "common/json_text.hpp"
#include "host/topology_json.hpp"
#include "host/topology_printer.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/topology_source_options.hpp"
#include "orchestrator/libvirt/hostsource/host_source.hpp"
#include "orchestrator/libvirt/virt/connection_uri.hpp"

namespace topolab::cli {
namespace {

class HostCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* cmd = app.add_subcommand(
        "host", "Show the host CPU topology: packages, dies, L3 domains, cores, NUMA nodes");
    add_topology_source_options(cmd, source_);
    cmd->add_flag("--json", json_, "print JSON instead of a tree");
    return cmd;
  }

  int run() override {
    auto topo = load_host_topology(source_);
    if (!topo) return fail("host", topo.error());
    if (json_) {
      std::cout << json_document(topology_to_json(*topo));
    } else {
      print_topology_tree(std::cout, *topo);
      print_remote_note();
    }
    return to_int(ExitCode::ok);
  }

 private:
  // Capabilities carry no isolcpus, free hugepage counts or brand string: for this machine
  // they come from /sys and /proc (host_source.hpp); for another host the tree's "isolated
  // CPUs: none" only means "not known here".
  void print_remote_note() const {
    if (source_.connect.empty()) return;
    auto uri = virt::parse_connection_uri(source_.connect);
    if (!uri || !uri->remote) return;
    std::cout << "note: read through " << uri->uri
              << " (libvirt capabilities): isolated CPUs, free hugepages and the CPU brand "
                 "string of that host are not known here; run `topolab host` on it for them\n";
  }

  TopologySource source_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_host_command() { return std::make_unique<HostCommand>(); }

}  // namespace topolab::cli
