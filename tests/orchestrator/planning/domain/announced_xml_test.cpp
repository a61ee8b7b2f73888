// One announced topology: the domain XML is read back and compared with the AnnouncedTopology it
// was written from, and with what verify expects (intended_guest_topology of the same object):
// for every preset, host, accelerator and vendor, the guest QEMU builds from the XML is the one
// the verifier expects. Mutating the object changes both the XML and the expectation.
#include <gtest/gtest.h>

#include <map>
#include <pugixml.hpp>

#include "orchestrator/planning/domain/domain_xml_writer.hpp"
#include "orchestrator/planning/domain/intended_topology.hpp"
#include "orchestrator/planning/placement/announced_topology.hpp"
#include "tests/orchestrator/planning/domain/xml_test_hosts.hpp"

namespace topolab {
namespace {

// What the XML tells libvirt, read back from the text.
struct ReadBack {
  std::string type, mode, model;
  GuestTopology topology;
  std::vector<AnnouncedCell> cells;  // host_node from <numatune><memnode>
  std::map<int, std::string> pins;   // vcpu -> cpuset
  std::string vcpu_cpuset;
};

int attr_int(pugi::xml_node n, const char* name) { return n.attribute(name).as_int(-1); }

ReadBack read_back(const std::string& xml) {
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_string(xml.c_str()));
  auto d = doc.child("domain");
  ReadBack r;
  r.type = d.attribute("type").value();
  auto cpu = d.child("cpu");
  r.mode = cpu.attribute("mode").value();
  r.model = cpu.child("model").text().get();
  auto t = cpu.child("topology");
  r.topology = {attr_int(t, "sockets"), attr_int(t, "dies"), attr_int(t, "cores"),
                attr_int(t, "threads")};
  for (auto c : cpu.child("numa").children("cell")) {
    AnnouncedCell cell;
    cell.id = attr_int(c, "id");
    cell.cpus = *CpuList::parse(c.attribute("cpus").value());
    cell.memory_kib = c.attribute("memory").as_ullong();
    r.cells.push_back(cell);
  }
  for (auto m : d.child("numatune").children("memnode")) {
    const auto id = static_cast<std::size_t>(attr_int(m, "cellid"));
    if (id < r.cells.size()) r.cells[id].host_node = m.attribute("nodeset").as_int(-1);
  }
  for (auto p : d.child("cputune").children("vcpupin")) {
    r.pins[attr_int(p, "vcpu")] = p.attribute("cpuset").value();
  }
  r.vcpu_cpuset = d.child("vcpu").attribute("cpuset").value();
  return r;
}

Result<std::string> write(const Layout& l, const AnnouncedTopology& a) {
  DomainSpec spec;
  spec.name = "topolab-test-" + l.name;
  spec.layout = &l;
  spec.announced = &a;
  return DomainXmlWriter{}.write(spec);
}

void expect_xml_is_the_object(const ReadBack& r, const AnnouncedTopology& a) {
  EXPECT_EQ(r.type, a.accel == Accelerator::kKvm ? "kvm" : "qemu");
  EXPECT_EQ(r.mode, a.cpu_model.mode);
  EXPECT_EQ(r.model, a.cpu_model.model);
  EXPECT_EQ(r.topology.sockets, a.topology().sockets);
  EXPECT_EQ(r.topology.dies, a.topology().dies);
  EXPECT_EQ(r.topology.cores, a.topology().cores);
  EXPECT_EQ(r.topology.threads, a.topology().threads);
  ASSERT_EQ(r.cells.size(), a.cells.size());
  for (std::size_t i = 0; i < a.cells.size(); ++i) {
    EXPECT_EQ(r.cells[i].id, a.cells[i].id);
    EXPECT_EQ(r.cells[i].cpus, a.cells[i].cpus);
    EXPECT_EQ(r.cells[i].memory_kib, a.cells[i].memory_kib);
    if (!a.placement.memory_nodes.empty()) {
      EXPECT_EQ(r.cells[i].host_node, a.cells[i].host_node);
    }
  }
  const auto& plan = a.placement;
  if (plan.pinned) {
    ASSERT_EQ(r.pins.size(), plan.vcpus.size());
    for (const auto& v : plan.vcpus) EXPECT_EQ(r.pins.at(v.vcpu), v.host_cpus.to_string());
  } else {
    EXPECT_TRUE(r.pins.empty());
    EXPECT_EQ(r.vcpu_cpuset, plan.vcpus.front().host_cpus.to_string());
  }
}

// The guest QEMU builds from the XML alone (threads fastest, then cores, dies, sockets; the
// <numa> cells as nodes, node 0 without cells) must be the one verify expects. L3 is the CPU
// model's doing and is checked through the object (announced_topology_test).
void expect_verifier_expects_the_xml(const ReadBack& r, const HostTopology& intended) {
  const auto& t = r.topology;
  ASSERT_EQ(static_cast<int>(intended.cpus.size()), t.sockets * t.dies * t.cores * t.threads);
  EXPECT_EQ(static_cast<int>(intended.packages.size()), t.sockets);
  EXPECT_EQ(static_cast<int>(intended.dies.size()), t.sockets * t.dies);
  for (const auto& c : intended.cpus) {
    const int core = c.id / t.threads;
    EXPECT_EQ(c.core, core) << "cpu " << c.id;
    EXPECT_EQ(c.die, c.id / (t.threads * t.cores)) << "cpu " << c.id;
    EXPECT_EQ(c.package, c.id / (t.threads * t.cores * t.dies)) << "cpu " << c.id;
    EXPECT_EQ(c.siblings, CpuList::range(core * t.threads, core * t.threads + t.threads - 1));
    int node = r.cells.empty() ? 0 : -1;
    for (const auto& cell : r.cells) {
      if (cell.cpus.contains(c.id)) node = cell.id;
    }
    EXPECT_EQ(c.node, node) << "cpu " << c.id;
  }
  EXPECT_EQ(intended.numa_nodes.size(), r.cells.empty() ? 1u : r.cells.size());
}

TEST(AnnouncedXml, XmlAndVerifierReadTheSameObjectForEveryPreset) {
  int checked = 0;
  testing::for_each_placed_preset([&](const std::string& preset, const testing::NamedHost& h,
                                      const Layout& l, const PlacementPlan& plan) {
    for (auto accel : {Accelerator::kTcg, Accelerator::kKvm}) {
      for (const char* vendor : {"AuthenticAMD", "GenuineIntel"}) {
        SCOPED_TRACE(preset + " on " + h.name + " " + to_string(l.policy) + " " + to_string(accel) +
                     " " + vendor);
        auto a = announce_topology(l, plan, accel, vendor);
        ASSERT_TRUE(a) << a.error().message;
        auto xml = write(l, *a);
        ASSERT_TRUE(xml) << xml.error().message;
        const ReadBack r = read_back(*xml);
        expect_xml_is_the_object(r, *a);
        expect_verifier_expects_the_xml(r, intended_guest_topology(*a));
        ++checked;
      }
    }
  });
  EXPECT_GT(checked, 100);
}

TEST(AnnouncedXml, MutatingTheObjectChangesXmlAndExpectationTogether) {
  auto l = *load_layout_or_preset("opteron-6140");  // numa exposure, 2 cells x 4 cores
  auto plan = plan_placement(l, testing::golden_host());
  ASSERT_TRUE(plan) << plan.error().message;
  auto a = announce_topology(l, *plan, Accelerator::kKvm, "AuthenticAMD");
  ASSERT_TRUE(a) << a.error().message;
  ASSERT_EQ(a->cells.size(), 2u);
  ASSERT_EQ(intended_guest_topology(*a).cpus[3].node, 0);

  // vCPU 3 moves to cell 1; cell 1's memory moves to cell 0's host node; another model.
  a->vcpus[3].cell = 1;
  a->cells[0].cpus = a->cells[0].cpus.minus(CpuList{3});
  a->cells[1].cpus.insert(3);
  a->cells[1].host_node = a->cells[0].host_node;
  a->cpu_model.mode = "custom";
  a->cpu_model.model = "EPYC-Rome";
  a->placement.vcpus[0].host_cpus = a->placement.vcpus[1].host_cpus;

  auto xml = write(l, *a);
  ASSERT_TRUE(xml) << xml.error().message;
  const ReadBack r = read_back(*xml);
  expect_xml_is_the_object(r, *a);
  EXPECT_EQ(r.cells[1].cpus.to_string(), "3-7");
  EXPECT_EQ(r.model, "EPYC-Rome");
  const HostTopology intended = intended_guest_topology(*a);
  expect_verifier_expects_the_xml(r, intended);
  EXPECT_EQ(intended.cpus[3].node, 1);
  EXPECT_EQ(intended.numa_nodes[1].cpus.to_string(), "3-7");
}

}  // namespace
}  // namespace topolab
