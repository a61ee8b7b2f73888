// `topolab host [--connect URI | --sysfs ROOT | --caps FILE] [--json]`: the host topology as a
// tree or as JSON (host/topology_json.hpp shape).
#include <cstdio>
#include <iostream>

#include "host/topology_json.hpp"
#include "host/topology_printer.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/topology_source_options.hpp"
#include "orchestrator/hostsource/host_source.hpp"

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
      std::cout << topology_to_json(*topo).dump(2) << "\n";
    } else {
      print_topology_tree(std::cout, *topo);
    }
    return 0;
  }

 private:
  TopologySource source_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_host_command() { return std::make_unique<HostCommand>(); }

}  // namespace topolab::cli
