#include "host/topology_printer.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "orchestrator/libvirt/hostsource/capabilities_parser.hpp"
#include "tests/host/test_support.hpp"

namespace topolab {
namespace {

TEST(TopologyPrinter, TreeShowsEveryLevel) {
  auto t = parse_capabilities_xml(testing::read_text(std::string(TOPOLAB_TESTS_DIR) +
                                                     "/host/data/caps-2s-4dies-smt-offline.xml"),
                                  "sample.xml");
  ASSERT_TRUE(t.ok()) << t.error().message;
  t->isolated = CpuList{8, 9};
  std::ostringstream out;
  print_topology_tree(out, *t);
  std::string s = out.str();
  for (const char* want :
       {"package 1: CPU 8-12,14-15", "die 1 (#3): CPU 12,14-15", "L3 #3 (16 MiB): CPU 12,14-15",
        "core 7: CPU 14-15", "core 6: CPU 12\n", "node 0: CPU 0-7, memory 16 GiB",
        "hugepages 2 MiB: 16", "isolated CPUs: 8-9", "offline CPUs: 13"}) {
    EXPECT_NE(s.find(want), std::string::npos) << "missing '" << want << "' in:\n" << s;
  }
  // Tree order: package 0 before its die, die before its L3, L3 before its cores.
  EXPECT_LT(s.find("package 0"), s.find("die 0 (#0)"));
  EXPECT_LT(s.find("die 0 (#0)"), s.find("L3 #0"));
  EXPECT_LT(s.find("L3 #0"), s.find("core 0:"));
  EXPECT_LT(s.find("core 0:"), s.find("package 1"));
}

TEST(TopologyPrinter, NoL3IsShown) {
  auto t = parse_capabilities_xml(
      "<capabilities><host><topology><cells><cell id='0'><cpus><cpu id='0' socket_id='0' "
      "siblings='0'/></cpus></cell></cells></topology></host></capabilities>",
      "x.xml");
  ASSERT_TRUE(t.ok());
  std::ostringstream out;
  print_topology_tree(out, *t);
  EXPECT_NE(out.str().find("no L3: CPU 0"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("isolated CPUs: none"), std::string::npos);
}

}  // namespace
}  // namespace topolab
