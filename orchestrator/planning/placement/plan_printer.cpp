#include "orchestrator/planning/placement/plan_printer.hpp"

#include <iomanip>

namespace topolab {

std::string describe_layout(const Layout& l) {
  return l.name + ": " + std::to_string(l.l3_groups) + " L3 group" + (l.l3_groups == 1 ? "" : "s") +
         " x " + std::to_string(l.cores_per_group) + " cores x " +
         std::to_string(l.threads_per_core) + " threads = " + std::to_string(l.vcpu_count()) +
         " vCPUs, " + std::to_string(l.memory_mib) + " MiB, expose " + to_string(l.expose) +
         ", policy " + to_string(l.policy);
}

void print_plan(std::ostream& out, const Layout& l, const PlacementPlan& plan,
                const HostTopology& host) {
  out << "layout  " << describe_layout(l) << "\n";
  out << "host    " << host.source << (host.model.empty() ? "" : " (" + host.model + ")") << ", "
      << host.online_cpus().size() << " online CPUs, " << host.l3_domains.size() << " L3 domains\n";
  const auto& t = plan.topology;
  out << "guest   sockets=" << t.sockets << " dies=" << t.dies << " cores=" << t.cores
      << " threads=" << t.threads << " (cores per die)\n\n";
  out << "group  host L3  L3 CPUs (host)        node  pinned to\n";
  for (const auto& g : plan.groups) {
    std::string l3 = g.host_l3 >= 0 ? std::to_string(g.host_l3) : "-";
    std::string l3cpus = g.host_l3 >= 0 && g.host_l3 < static_cast<int>(host.l3_domains.size())
                             ? host.l3_domains[static_cast<std::size_t>(g.host_l3)].cpus.to_string()
                             : (plan.pinned ? "(spans several)" : "(unpinned)");
    out << std::left << std::setw(7) << g.group << std::setw(9) << l3 << std::setw(22) << l3cpus
        << std::setw(6) << (g.host_node >= 0 ? std::to_string(g.host_node) : "-")
        << g.host_cpus.to_string() << "\n";
  }
  out << "\nvCPU  group  core  thread  host CPUs\n";
  for (const auto& v : plan.vcpus) {
    out << std::left << std::setw(6) << v.vcpu << std::setw(7) << v.group << std::setw(6) << v.core
        << std::setw(8) << v.thread << v.host_cpus.to_string() << "\n";
  }
  out << "\nemulator  " << (plan.emulator_cpus.empty() ? "-" : plan.emulator_cpus.to_string())
      << "\n";
  if (l.iothreads > 0)
    out << "iothreads " << l.iothreads << " on " << plan.iothread_cpus.to_string() << "\n";
  out << "memory    "
      << (plan.memory_nodes.empty() ? std::string("no numatune")
                                    : std::string(plan.memory_strict ? "strict" : "preferred") +
                                          " on host node(s) " + plan.memory_nodes.to_string())
      << "\n";
  for (const auto& n : plan.notes) out << "note: " << n << "\n";
  for (const auto& w : plan.warnings) out << "warning: " << w << "\n";
}

}  // namespace topolab
