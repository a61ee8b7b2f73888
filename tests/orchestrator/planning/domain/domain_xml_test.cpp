// Generated domain XML: schema-valid (virt-xml-validate), the CPU sections as planned, golden
// files for a few presets, and the intended guest topology.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <pugixml.hpp>

#include "common/file_io.hpp"
#include "orchestrator/planning/domain/domain_xml_writer.hpp"
#include "orchestrator/planning/domain/intended_topology.hpp"
#include "orchestrator/planning/placement/announced_topology.hpp"
#include "orchestrator/planning/placement/cpu_model.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"
#include "tests/orchestrator/planning/domain/xml_test_hosts.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;

using testing::TempDir;

bool validates(const std::string& xml, const fs::path& dir, const std::string& name) {
  auto file = dir / (name + ".xml");
  std::ofstream(file) << xml;
  return testing::run_argv({"virt-xml-validate", file.string(), "domain"}) == 0;
}

using testing::golden_host;

Result<std::string> xml_for(const Layout& l, const PlacementPlan& p, Accelerator a,
                            const std::string& vendor, const fs::path& base = {}) {
  DomainSpec spec;
  spec.name = "topolab-test-" + l.name;
  spec.layout = &l;
  spec.plan = &p;
  spec.accel = a;
  spec.host_vendor = vendor;
  spec.base_template = base;
  spec.boot = BootSpec{"/var/cache/topolab/image/vmlinuz", "/var/cache/topolab/image/initrd.img",
                       "console=ttyS0 quiet"};
  spec.agent_channel = ChannelSpec{};
  spec.agent_channel->socket_path = "/run/topolab/test.sock";
  spec.serial_log = "/var/log/topolab/test-console.log";
  return DomainXmlWriter{}.write(spec);
}

TEST(DomainXml, EveryPresetValidatesOnEveryTemplateAndAccelerator) {
  TempDir tmp;
  ASSERT_EQ(testing::xml_test_hosts().size(), 3u);
  int validated = 0;
  testing::for_each_placed_preset([&](const std::string& preset, const testing::NamedHost& h,
                                      const Layout& l, const PlacementPlan& plan) {
    // Fixture hosts: the built-in guest under TCG; the synthetic host: both templates and
    // accelerators (virt-xml-validate costs ~0.1 s a file).
    const bool full = h.name == "golden";
    for (auto accel : {Accelerator::kTcg, Accelerator::kKvm}) {
      for (const char* base : {"linux-direct-boot.xml", "windows-vfio.xml"}) {
        if (!full && (accel == Accelerator::kKvm || base[0] == 'w')) continue;
        if (full && l.policy == PlacementPolicy::kUnpinned && accel == Accelerator::kKvm) {
          continue;
        }
        SCOPED_TRACE(preset + " on " + h.name + " " + to_string(l.policy) + " " + to_string(accel) +
                     " " + base);
        Layout lv = l;
        if (std::string(base) == "windows-vfio.xml") {
          lv.hostdevs = {{"0000:0a:00.0", true}, {"0000:0a:00.1", true}};
          lv.hyperv = true;
          lv.hugepage_kib = 1048576;
          lv.hugepages_locked = true;
          lv.iothreads = 2;
          // A cell without memory cannot use hugepages here (announce_topology refuses it):
          // memoryless layouts go without, the others get a page per cell.
          if (!lv.memoryless_nodes.empty()) lv.hugepage_kib = 0;
          lv.memory_mib =
              std::max<std::uint64_t>(lv.memory_mib, 1024u * std::max(1, lv.numa_nodes));
        }
        auto xml = xml_for(lv, plan, accel, h.host.vendor, templates_dir() / "domains" / base);
        ASSERT_TRUE(xml) << xml.error().message;
        ASSERT_TRUE(validates(*xml, tmp.path(), "v" + std::to_string(validated))) << *xml;
        ++validated;
      }
    }
  });
  EXPECT_GT(validated, 40);
}

TEST(DomainXml, CpuSectionsFollowThePlan) {
  auto host = golden_host();
  auto l = *load_layout_or_preset("opteron-6140");  // numa exposure, 2 x 4 x 1
  l.housekeeping_cpus = CpuList{0, 32};
  auto plan = plan_placement(l, host);
  ASSERT_TRUE(plan);
  auto xml = xml_for(l, *plan, Accelerator::kTcg, "AuthenticAMD");
  ASSERT_TRUE(xml);
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(xml->c_str()));
  auto d = doc.child("domain");
  EXPECT_STREQ(d.attribute("type").value(), "qemu");
  EXPECT_STREQ(d.child_value("vcpu"), "8");
  int pins = 0;
  for (auto pin : d.child("cputune").children("vcpupin")) {
    const int v = pin.attribute("vcpu").as_int();
    EXPECT_EQ(pin.attribute("cpuset").value(),
              plan->vcpus[static_cast<std::size_t>(v)].host_cpus.to_string());
    ++pins;
  }
  EXPECT_EQ(pins, 8);
  EXPECT_STREQ(d.child("cputune").child("emulatorpin").attribute("cpuset").value(), "0,32");
  auto cpu = d.child("cpu");
  // TCG default: Skylake-Server (EPYC-Rome loses topoext under QEMU 7.2's TCG).
  EXPECT_STREQ(cpu.child_value("model"), "Skylake-Server");
  EXPECT_STREQ(cpu.child("topology").attribute("sockets").value(), "1");
  EXPECT_STREQ(cpu.child("topology").attribute("cores").value(), "8");
  bool topoext = false;
  for (auto f : cpu.children("feature")) {
    topoext |= std::string(f.attribute("name").value()) == "topoext";
  }
  EXPECT_FALSE(topoext) << "an Intel-style model needs no topoext";
  auto cells = cpu.child("numa");
  std::vector<std::string> cell_cpus;
  std::uint64_t total = 0;
  for (auto c : cells.children("cell")) {
    cell_cpus.push_back(c.attribute("cpus").value());
    total += c.attribute("memory").as_ullong();
  }
  EXPECT_EQ(cell_cpus, (std::vector<std::string>{"0-3", "4-7"}));
  EXPECT_EQ(total, l.memory_mib * 1024);
  EXPECT_EQ(std::distance(d.child("numatune").children("memnode").begin(),
                          d.child("numatune").children("memnode").end()),
            2);
  // Direct boot, console log and agent channel.
  EXPECT_STREQ(d.child("os").child_value("kernel"), "/var/cache/topolab/image/vmlinuz");
  EXPECT_STREQ(d.child("devices").child("serial").child("log").attribute("file").value(),
               "/var/log/topolab/test-console.log");
  auto ch = d.child("devices").child("channel");
  EXPECT_STREQ(ch.child("target").attribute("name").value(), "org.topolab.agent.0");
  EXPECT_STREQ(ch.child("source").attribute("path").value(), "/run/topolab/test.sock");
  EXPECT_FALSE(d.child("devices").child("disk"));
  EXPECT_FALSE(d.child("devices").child("interface"));
  EXPECT_TRUE(d.child("features").child("acpi"));
  EXPECT_TRUE(d.child("features").child("apic"));
}

TEST(DomainXml, KvmUsesHostPassthroughWithEmulatedCache) {
  auto l = *load_layout_or_preset("ryzen-1700x");
  auto plan = plan_placement(l, golden_host());
  ASSERT_TRUE(plan);
  auto xml = xml_for(l, *plan, Accelerator::kKvm, "AuthenticAMD");
  ASSERT_TRUE(xml);
  pugi::xml_document doc;
  doc.load_string(xml->c_str());
  auto cpu = doc.child("domain").child("cpu");
  EXPECT_STREQ(doc.child("domain").attribute("type").value(), "kvm");
  EXPECT_STREQ(cpu.attribute("mode").value(), "host-passthrough");
  EXPECT_STREQ(cpu.child("cache").attribute("mode").value(), "emulate");
  EXPECT_STREQ(cpu.child("feature").attribute("name").value(), "topoext");
  // Layout override wins.
  l.cpu_model = "Skylake-Server";
  l.cpu_features_disable = {"avx512f"};
  auto sky = choose_cpu_model(l, Accelerator::kKvm, "AuthenticAMD");
  EXPECT_EQ(sky.model, "Skylake-Server");
  EXPECT_EQ(sky.style, CpuVendorStyle::kIntel);
  EXPECT_EQ(sky.disable, std::vector<std::string>{"avx512f"});
}

TEST(DomainXml, UnpinnedUsesVcpuCpusetAndNoVcpupin) {
  auto l = *load_layout_or_preset("flat-8");
  l.policy = PlacementPolicy::kUnpinned;
  l.host_cpus = CpuList::range(4, 7);
  auto plan = plan_placement(l, golden_host());
  ASSERT_TRUE(plan);
  auto xml = xml_for(l, *plan, Accelerator::kTcg, "");
  ASSERT_TRUE(xml);
  pugi::xml_document doc;
  doc.load_string(xml->c_str());
  auto d = doc.child("domain");
  EXPECT_STREQ(d.child("vcpu").attribute("cpuset").value(), "4-7");
  EXPECT_FALSE(d.child("cputune").child("vcpupin"));
  EXPECT_FALSE(d.child("numatune"));
}

TEST(DomainXml, GoldenFiles) {
  const fs::path data = fs::path(TOPOLAB_TESTS_DIR) / "orchestrator/planning/domain/data";
  struct Case {
    const char* preset;
    Accelerator accel;
    const char* base;
  };
  for (auto c : {Case{"ryzen-1700x", Accelerator::kTcg, "linux-direct-boot.xml"},
                 Case{"opteron-6140", Accelerator::kTcg, "linux-direct-boot.xml"},
                 Case{"xeon-2s", Accelerator::kKvm, "linux-direct-boot.xml"},
                 Case{"threadripper-1950x", Accelerator::kKvm, "windows-vfio.xml"}}) {
    SCOPED_TRACE(c.preset);
    auto l = *load_layout_or_preset(c.preset);
    if (std::string(c.base) == "windows-vfio.xml") {
      l.hostdevs = {{"0000:0a:00.0", true}};
      l.hyperv = true;
      l.hugepage_kib = 1048576;
      l.hugepages_locked = true;
      l.iothreads = 1;
      l.housekeeping_cpus = CpuList{0, 32};
    }
    auto plan = plan_placement(l, golden_host());
    ASSERT_TRUE(plan) << plan.error().message;
    auto xml = xml_for(l, *plan, c.accel, "AuthenticAMD", templates_dir() / "domains" / c.base);
    ASSERT_TRUE(xml);
    const auto file = data / (std::string(c.preset) + "-" + to_string(c.accel) + ".xml");
    ::topolab::testing::expect_golden_file(file, *xml);
  }
}

// What the verifier expects for a layout placed on a host, announced for accel + host vendor.
HostTopology intended_for(const Layout& l, const PlacementPlan& p,
                          Accelerator accel = Accelerator::kKvm,
                          const std::string& vendor = "AuthenticAMD") {
  auto a = announce_topology(l, p, accel, vendor);
  EXPECT_TRUE(a) << a.error().message;
  return a ? intended_guest_topology(*a) : HostTopology{};
}

TEST(IntendedTopology, RyzenDies) {
  auto l = *load_layout_or_preset("ryzen-1700x");
  auto plan = plan_placement(l, golden_host());
  ASSERT_TRUE(plan);
  auto g = intended_for(l, *plan);
  ASSERT_EQ(g.cpus.size(), 16u);
  ASSERT_EQ(g.packages.size(), 1u);
  EXPECT_EQ(g.packages[0].cpus.to_string(), "0-15");
  ASSERT_EQ(g.dies.size(), 2u);
  EXPECT_EQ(g.dies[0].cpus.to_string(), "0-7");
  EXPECT_EQ(g.dies[1].cpus.to_string(), "8-15");
  EXPECT_EQ(g.dies[1].die_id, 1);
  ASSERT_EQ(g.l3_domains.size(), 2u);
  EXPECT_EQ(g.l3_domains[1].cpus.to_string(), "8-15");
  EXPECT_EQ(g.cpus[5].siblings.to_string(), "4-5");
  EXPECT_EQ(g.cores().size(), 8u);
  ASSERT_EQ(g.numa_nodes.size(), 1u);
  EXPECT_EQ(g.numa_nodes[0].id, 0);
  EXPECT_EQ(g.numa_nodes[0].cpus.to_string(), "0-15");
}

TEST(IntendedTopology, SocketsFlatAndNuma) {
  auto host = golden_host();
  auto x = *load_layout_or_preset("xeon-2s");
  auto g = intended_for(x, *plan_placement(x, host));
  ASSERT_EQ(g.packages.size(), 2u);
  EXPECT_EQ(g.packages[1].cpus.to_string(), "8-15");
  EXPECT_EQ(g.dies.size(), 2u);
  EXPECT_EQ(g.l3_domains.size(), 2u);

  auto f = *load_layout_or_preset("ryzen-1700x");
  f.expose = Exposure::kFlat;
  g = intended_for(f, *plan_placement(f, host));
  ASSERT_EQ(g.l3_domains.size(), 1u);
  EXPECT_EQ(g.l3_domains[0].cpus.to_string(), "0-15");
  EXPECT_EQ(g.dies.size(), 1u);

  auto n = *load_layout_or_preset("opteron-6140");
  auto np = *plan_placement(n, host);
  g = intended_for(n, np);  // KVM on an AMD host: host-passthrough, AMD style
  ASSERT_EQ(g.numa_nodes.size(), 2u);
  EXPECT_EQ(g.numa_nodes[1].cpus.to_string(), "4-7");
  ASSERT_EQ(g.l3_domains.size(), 2u) << "AMD-style models: L3 follows the NUMA cells";
  g = intended_for(n, np, Accelerator::kTcg);  // TCG: Skylake-Server, Intel style
  EXPECT_EQ(g.l3_domains.size(), 1u) << "Skylake: one L3 across the cells (measured)";
}

// Which levels a TCG guest can show for each exposure of the 2-group ryzen-1700x layout, and which
// are verified against the CPU model's view instead (issue 33; measured in
// ../shared/docs/qemu-guest-topology.md): under TCG the model is Skylake-Server, which shows
// packages, dies, SMT and an L3 per socket or die, but shares one L3 across the NUMA cells of a
// socket; so only numa's L3 level is adjusted. Under KVM on an AMD host nothing is.
TEST(IntendedTopology, TcgAdjustsOnlyNumaL3PerExposure) {
  auto host = golden_host();
  struct Case {
    Exposure expose;
    Accelerator accel;
    std::size_t l3_domains;
    std::vector<std::string> adjusted;
  };
  for (const auto& c : {Case{Exposure::kFlat, Accelerator::kTcg, 1, {}},
                        Case{Exposure::kSockets, Accelerator::kTcg, 2, {}},
                        Case{Exposure::kDies, Accelerator::kTcg, 2, {}},
                        Case{Exposure::kNuma, Accelerator::kTcg, 1, {"l3_domains"}},
                        Case{Exposure::kNuma, Accelerator::kKvm, 2, {}}}) {
    auto l = *load_layout_or_preset("ryzen-1700x");
    l.expose = c.expose;
    SCOPED_TRACE(to_string(c.expose) + " under " + to_string(c.accel));
    auto plan = plan_placement(l, host);
    ASSERT_TRUE(plan) << plan.error().message;
    auto a = announce_topology(l, *plan, c.accel, "AuthenticAMD");
    ASSERT_TRUE(a) << a.error().message;
    std::vector<std::string> adjusted;
    for (const auto& x : a->adjusted_levels) {
      adjusted.push_back(x.level);
      EXPECT_NE(x.why.find("Skylake-Server (tcg) shares L3 per socket"), std::string::npos)
          << x.why;
    }
    EXPECT_EQ(adjusted, c.adjusted);
    // The expectation the verifier uses is the adjusted one: what the model shows.
    const auto g = intended_guest_topology(*a);
    EXPECT_EQ(g.l3_domains.size(), c.l3_domains);
    EXPECT_EQ(g.numa_nodes.size(), c.expose == Exposure::kNuma ? 2u : 1u);
  }
}

}  // namespace
}  // namespace topolab
