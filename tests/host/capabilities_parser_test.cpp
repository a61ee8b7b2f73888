#include "orchestrator/libvirt/hostsource/capabilities_parser.hpp"

#include <gtest/gtest.h>

#include "tests/host/test_support.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
const fs::path kData = fs::path(TOPOLAB_TESTS_DIR) / "host/data";

HostTopology parse_file(const std::string& name) {
  auto t = parse_capabilities_xml(testing::read_text(kData / name), name);
  if (!t) throw std::runtime_error(t.error().message);
  return *t;
}

TEST(CapabilitiesParser, ThisMachineCapture) {
  // Captured with `virsh -c qemu:///system capabilities` on the 2-CPU lab VM.
  HostTopology t = parse_file("caps-this-machine.xml");
  EXPECT_EQ(t.online_cpus(), (CpuList{0, 1}));
  ASSERT_EQ(t.packages.size(), 1u);
  EXPECT_EQ(t.packages[0].cpus, (CpuList{0, 1}));
  ASSERT_EQ(t.l3_domains.size(), 1u);
  EXPECT_EQ(t.l3_domains[0].cpus, (CpuList{0, 1}));
  EXPECT_EQ(t.l3_domains[0].size_kib, 32u * 1024);
  ASSERT_EQ(t.numa_nodes.size(), 1u);
  EXPECT_EQ(t.numa_nodes[0].cpus, (CpuList{0, 1}));
  EXPECT_GT(t.numa_nodes[0].memory_kib, 0u);
  EXPECT_EQ(t.cores().size(), 2u);
  EXPECT_EQ(t.vendor, "AuthenticAMD");
  EXPECT_EQ(t.source, "caps:caps-this-machine.xml");
  // Base 4 KiB pages are not a hugepage pool; 2 MiB and 1 GiB are.
  ASSERT_EQ(t.numa_nodes[0].hugepages.size(), 2u);
  EXPECT_EQ(t.numa_nodes[0].hugepages[0].page_kib, 2048u);
}

TEST(CapabilitiesParser, SeveralCellsDiesBanksAndOfflineCpu) {
  HostTopology t = parse_file("caps-2s-4dies-smt-offline.xml");
  ASSERT_EQ(t.cpus.size(), 16u);
  EXPECT_FALSE(t.cpu(13)->online);
  EXPECT_EQ(t.online_cpus(), CpuList::range(0, 15).minus(CpuList{13}));
  ASSERT_EQ(t.packages.size(), 2u);
  EXPECT_EQ(t.packages[1].cpus, (CpuList{8, 9, 10, 11, 12, 14, 15}));
  ASSERT_EQ(t.dies.size(), 4u);
  EXPECT_EQ(t.dies[2].package, 1);
  EXPECT_EQ(t.dies[2].die_id, 0);
  EXPECT_EQ(t.dies[3].die_id, 1);
  EXPECT_EQ(t.cpu(14)->die, 3);
  ASSERT_EQ(t.l3_domains.size(), 4u);  // level-2 banks ignored
  EXPECT_EQ(t.l3_domains[3].cpus, (CpuList{12, 14, 15}));
  EXPECT_EQ(t.l3_domains[3].size_kib, 16u * 1024);
  EXPECT_EQ(t.cpu(9)->l3, 2);
  EXPECT_EQ(t.cpu(12)->siblings, (CpuList{12}));  // sibling 13 is offline
  EXPECT_EQ(t.cpu(0)->siblings, (CpuList{0, 1}));
  EXPECT_EQ(t.cores().size(), 8u);
  ASSERT_EQ(t.numa_nodes.size(), 2u);
  EXPECT_EQ(t.numa_nodes[1].cpus, t.packages[1].cpus);
  EXPECT_EQ(t.numa_nodes[0].memory_kib, 16777216u);
  ASSERT_EQ(t.numa_nodes[0].hugepages.size(), 2u);
  EXPECT_EQ(t.numa_nodes[0].hugepages[0].total, 16u);
  EXPECT_EQ(t.cpu(8)->node, 1);
  EXPECT_EQ(t.model, "EPYC-Rome");
}

TEST(CapabilitiesParser, SparseCellsNoDieIdMemoryOnlyCell) {
  HostTopology t = parse_file("caps-sparse-cells.xml");
  EXPECT_EQ(t.all_cpus(), (CpuList{0, 1, 3, 4, 5}));  // CPU 2 is not listed at all
  ASSERT_EQ(t.numa_nodes.size(), 3u);
  EXPECT_EQ(t.numa_nodes[1].id, 2);
  EXPECT_EQ(t.numa_nodes[1].memory_kib, 4096u * 1024);
  ASSERT_EQ(t.numa_nodes[1].hugepages.size(), 1u);
  EXPECT_EQ(t.numa_nodes[1].hugepages[0].page_kib, 1048576u);
  EXPECT_EQ(t.numa_nodes[2].id, 3);
  EXPECT_TRUE(t.numa_nodes[2].cpus.empty());
  EXPECT_EQ(t.cpu(4)->node, 2);
  EXPECT_EQ(t.dies.size(), 2u);        // one per package when die_id is absent
  ASSERT_EQ(t.l3_domains.size(), 2u);  // the code-only bank is skipped
  EXPECT_EQ(t.l3_domains[0].cpus, (CpuList{0, 1, 3}));
  EXPECT_EQ(t.l3_domains[0].size_kib, 20480u);
  EXPECT_EQ(t.vendor, "GenuineIntel");
}

TEST(CapabilitiesParser, LibvirtOriginKeptAsSource) {
  auto t = parse_capabilities_xml(testing::read_text(kData / "caps-this-machine.xml"),
                                  "libvirt:qemu:///system");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->source, "libvirt:qemu:///system");
}

TEST(CapabilitiesBadInput, InvalidXmlNamesOriginAndOffset) {
  auto t = parse_capabilities_xml("<capabilities><host><topology>", "/tmp/broken.xml");
  ASSERT_FALSE(t.ok());
  const std::string& msg = t.error().message;
  EXPECT_EQ(msg.rfind("/tmp/broken.xml: invalid XML at offset ", 0), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST(CapabilitiesBadInput, NoHostOrNoCpus) {
  auto a = parse_capabilities_xml("<domain/>", "a.xml");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("a.xml"), std::string::npos);
  auto b = parse_capabilities_xml(
      "<capabilities><host><topology><cells/></topology></host>"
      "</capabilities>",
      "b.xml");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("no CPUs"), std::string::npos) << b.error().message;
  auto c = parse_capabilities_xml("", "c.xml");
  EXPECT_FALSE(c.ok());
}

class CapsGarbled : public ::testing::TestWithParam<const char*> {};

TEST_P(CapsGarbled, ErrorNamesOriginAndValue) {
  std::string xml = std::string("<capabilities><host><topology><cells><cell id='0'>") + GetParam() +
                    "</cell></cells></topology></host></capabilities>";
  auto t = parse_capabilities_xml(xml, "garbled.xml");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("garbled.xml"), std::string::npos) << t.error().message;
  EXPECT_NE(t.error().message.find("xyz"), std::string::npos) << t.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Fields, CapsGarbled,
    ::testing::Values("<cpus><cpu id='xyz' socket_id='0' siblings='0'/></cpus>",
                      "<cpus><cpu id='0' socket_id='xyz' siblings='0'/></cpus>",
                      "<cpus><cpu id='0' socket_id='0' die_id='xyz' siblings='0'/></cpus>",
                      "<cpus><cpu id='0' socket_id='0' siblings='0-xyz'/></cpus>",
                      "<memory unit='KiB'>xyz</memory><cpus><cpu id='0' socket_id='0'/></cpus>",
                      "<memory unit='xyz'>1</memory><cpus><cpu id='0' socket_id='0'/></cpus>",
                      "<pages unit='KiB' size='2048'>xyz</pages><cpus><cpu id='0' "
                      "socket_id='0'/></cpus>"));

TEST(CapabilitiesBadInput, GarbledCacheBank) {
  auto t = parse_capabilities_xml(
      "<capabilities><host><topology><cells><cell id='0'><cpus><cpu id='0' socket_id='0' "
      "siblings='0'/></cpus></cell></cells></topology><cache><bank level='3' cpus='xyz' "
      "size='1' unit='MiB'/></cache></host></capabilities>",
      "bank.xml");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("bank.xml"), std::string::npos);
  EXPECT_NE(t.error().message.find("xyz"), std::string::npos) << t.error().message;
}

TEST(CapabilitiesBadInput, DuplicateCpuIds) {
  auto t = parse_capabilities_xml(
      "<capabilities><host><topology><cells><cell id='0'><cpus><cpu id='0' socket_id='0'/>"
      "</cpus></cell><cell id='1'><cpus><cpu id='0' socket_id='1'/></cpus></cell></cells>"
      "</topology></host></capabilities>",
      "dup.xml");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("dup.xml"), std::string::npos);
  EXPECT_NE(t.error().message.find("twice"), std::string::npos);
}

}  // namespace
// --- issue 12, class 2: limits before expansion ---

std::string caps_with_cpus(const std::string& cpus) {
  return "<capabilities><host><topology><cells><cell id='0'><cpus>" + cpus +
         "</cpus></cell></cells></topology></host></capabilities>";
}

TEST(CapabilitiesLimits, ManyFullSiblingListsStopAtTheExpansionBudget) {
  std::string cpus;
  for (int i = 0; i < 1100; ++i) {
    cpus += "<cpu id='" + std::to_string(i) + "' socket_id='0' core_id='0' siblings='0-8191'/>";
  }
  auto t = parse_capabilities_xml(caps_with_cpus(cpus), "many.xml");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("many.xml: <cpu> attribute siblings: CPU lists together name "
                                   "more than 8388608 CPU ids"),
            std::string::npos)
      << t.error().message;
}

TEST(CapabilitiesLimits, IdsAndRangesBeyondTheMaximumAreRefused) {
  auto id = parse_capabilities_xml(caps_with_cpus("<cpu id='8192' socket_id='0' siblings='0'/>"),
                                   "id.xml");
  ASSERT_FALSE(id.ok());
  EXPECT_NE(id.error().message.find("id='8192': expected an integer from 0 to 8191"),
            std::string::npos)
      << id.error().message;
  auto range = parse_capabilities_xml(
      caps_with_cpus("<cpu id='0' socket_id='0' siblings='0-4000000000'/>"), "range.xml");
  ASSERT_FALSE(range.ok());
  EXPECT_NE(range.error().message.find("CPU id '4000000000' is beyond the maximum 8191"),
            std::string::npos)
      << range.error().message;
  auto top = parse_capabilities_xml(
      caps_with_cpus("<cpu id='8191' socket_id='0' siblings='8190-8191'/>"), "top.xml");
  EXPECT_TRUE(top.ok()) << top.error().message;
}

}  // namespace topolab

namespace topolab {
namespace {

// Issue 32 classes 3 and 4: each of these was accepted (exit 0) with a wrapped size or with a
// duplicate dropped; the message names what was refused.
TEST(CapabilitiesAmbiguity, DuplicatesWrapsAndOverflowsAreRefused) {
  const fs::path dir = fs::path(TOPOLAB_TESTS_DIR) / "badinput/cases/trust2";
  const std::pair<const char*, const char*> cases[] = {
      {"caps_duplicate_cell.xml", "<cell id='0'> listed twice"},
      {"caps_second_cpus.xml", "<cell id='0'> has more than one <cpus> element"},
      {"caps_memory_tib_wraps.xml", "unit 'TiB': expected a size in KiB/MiB/GiB/TiB that fits"},
      {"caps_memory_int64_max.xml", "memory of 9223372036854775807 KiB is beyond the limit of"},
      {"caps_hugepage_size_huge.xml", "hugepage size of 1152921504606846976 KiB is beyond"},
      {"caps_hugepage_count_huge.xml", "hugepage pool (9223372036854775807 pages)"},
  };
  for (const auto& [file, want] : cases) {
    auto t = parse_capabilities_xml(testing::read_text(dir / file), file);
    ASSERT_FALSE(t.ok()) << file;
    EXPECT_NE(t.error().message.find(want), std::string::npos) << t.error().message;
  }
}

TEST(CapabilitiesNumbers, TiBWithinRangeIsExact) {
  auto t = parse_capabilities_xml(
      "<capabilities><host><topology><cells><cell id='0'><memory unit='TiB'>2</memory><cpus>"
      "<cpu id='0' socket_id='0' core_id='0' siblings='0'/></cpus></cell></cells></topology>"
      "</host></capabilities>",
      "t.xml");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->numa_nodes.at(0).memory_kib, 2ULL << 30);
}

}  // namespace
}  // namespace topolab
