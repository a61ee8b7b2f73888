#include "host/topology_json.hpp"

#include <gtest/gtest.h>

#include "host/topology_builder.hpp"
#include "orchestrator/libvirt/hostsource/capabilities_parser.hpp"
#include "tests/host/test_support.hpp"

namespace topolab {
namespace {

using nlohmann::json;

HostTopology sample() {
  auto t = parse_capabilities_xml(testing::read_text(std::string(TOPOLAB_TESTS_DIR) +
                                                     "/host/data/caps-2s-4dies-smt-offline.xml"),
                                  "sample.xml");
  if (!t) throw std::runtime_error(t.error().message);
  t->isolated = CpuList{8, 9};
  return *t;
}

TEST(TopologyJson, ShapeMatchesTheContract) {
  json j = topology_to_json(sample());
  const json& cpu0 = j.at("cpus").at(0);
  EXPECT_EQ(cpu0.at("id"), 0);
  EXPECT_EQ(cpu0.at("online"), true);
  EXPECT_EQ(cpu0.at("package"), 0);
  EXPECT_EQ(cpu0.at("die"), 0);
  EXPECT_EQ(cpu0.at("core"), 0);
  EXPECT_EQ(cpu0.at("l3"), 0);
  EXPECT_EQ(cpu0.at("node"), 0);
  EXPECT_EQ(cpu0.at("siblings"), "0-1");
  EXPECT_EQ(j.at("cpus").at(13).at("online"), false);
  EXPECT_EQ(j.at("packages").at(1).at("cpus"), "8-12,14-15");
  EXPECT_EQ(j.at("dies").at(3).at("package"), 1);
  EXPECT_EQ(j.at("l3_domains").at(3).at("cpus"), "12,14-15");
  EXPECT_EQ(j.at("l3_domains").at(3).at("size_kib"), 16384);
  EXPECT_EQ(j.at("numa_nodes").at(1).at("cpus"), "8-12,14-15");
  EXPECT_EQ(j.at("numa_nodes").at(0).at("memory_kib"), 16777216);
  EXPECT_EQ(j.at("isolated"), "8-9");
  EXPECT_EQ(j.at("vendor"), "AuthenticAMD");
  EXPECT_EQ(j.at("model"), "EPYC-Rome");
}

TEST(TopologyJson, RoundTrip) {
  HostTopology t = sample();
  auto back = topology_from_json(topology_to_json(t));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(topology_to_json(*back), topology_to_json(t));
  EXPECT_EQ(back->cores(), t.cores());
  EXPECT_EQ(back->cpu(12)->siblings, (CpuList{12}));
}

TEST(TopologyJson, MinimalDocumentIsAccepted) {
  auto t = topology_from_json(json::parse(R"({"cpus":[{"id":1},{"id":0,"siblings":"0"}]})"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->cpus.at(0).id, 0);  // sorted
  EXPECT_TRUE(t->cpus.at(1).online);
}

struct BadDoc {
  const char* json_text;
  const char* expect_in_message;
};

class TopologyJsonBad : public ::testing::TestWithParam<BadDoc> {};

TEST_P(TopologyJsonBad, RejectedWithPath) {
  auto t = topology_from_json(json::parse(GetParam().json_text));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find(GetParam().expect_in_message), std::string::npos)
      << t.error().message;
  EXPECT_EQ(t.error().message.rfind("topology JSON: ", 0), 0u) << t.error().message;
  EXPECT_EQ(t.error().message.find('\n'), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Docs, TopologyJsonBad,
    ::testing::Values(
        BadDoc{R"([1,2])", "top level"}, BadDoc{R"({})", "missing \"cpus\""},
        BadDoc{R"({"cpus":{}})", "cpus"}, BadDoc{R"({"cpus":[7]})", "cpus[0]"},
        BadDoc{R"({"cpus":[{"id":"0"}]})", "cpus[0].id"},
        BadDoc{R"({"cpus":[{}]})", "cpus[0]: missing \"id\""},
        BadDoc{R"({"cpus":[{"id":-1}]})", "cpus[0].id"},
        BadDoc{R"({"cpus":[{"id":99999999999}]})", "cpus[0].id"},
        BadDoc{R"({"cpus":[{"id":0,"online":1}]})", "cpus[0].online"},
        BadDoc{R"({"cpus":[{"id":0,"siblings":42}]})", "cpus[0].siblings"},
        BadDoc{R"({"cpus":[{"id":0,"siblings":"0-x"}]})", "cpus[0].siblings"},
        BadDoc{R"({"cpus":[{"id":0,"siblings":"3-1"}]})", "cpus[0].siblings"},
        BadDoc{R"({"cpus":[{"id":0,"core":1.5}]})", "cpus[0].core"},
        BadDoc{R"({"cpus":[{"id":0,"core":1000000}]})", "cpus[0].core"},
        BadDoc{R"({"cpus":[{"id":0},{"id":0}]})", "listed twice"},
        BadDoc{R"({"cpus":[{"id":0,"l3":0}]})", "l3 0 not in l3_domains"},
        BadDoc{R"({"cpus":[{"id":0,"die":2}],"dies":[{"id":0}]})", "die 2 not in dies"},
        BadDoc{R"({"cpus":[{"id":0}],"dies":[{"id":1}]})", "dies[0].id"},
        BadDoc{R"({"cpus":[{"id":0}],"l3_domains":[{"id":0,"size_kib":-5}]})",
               "l3_domains[0].size_kib"},
        BadDoc{R"({"cpus":[{"id":0}],"numa_nodes":[{"id":0,"hugepages":[{"page_kib":"2M"}]}]})",
               "numa_nodes[0].hugepages[0].page_kib"},
        BadDoc{R"({"cpus":[{"id":0}],"packages":"x"})", "packages"},
        BadDoc{R"({"cpus":[{"id":0}],"isolated":"0-1048576,0-1048576"})",
               "is beyond the maximum 8191"},
        BadDoc{R"({"cpus":[{"id":0}],"isolated":" 0 - 5"})", "list syntax"},
        BadDoc{R"({"cpus":[{"id":0}],"vendor":7})", "vendor"}));

TEST(TopologyJsonLimits, HugeListsAreRefusedBeforeExpanding) {
  // 2000 ranges of 1M ids would be gigabytes if expanded.
  std::string list;
  for (int i = 0; i < 2000; ++i) list += (i ? "," : "") + std::string("0-1000000");
  json j = {{"cpus", json::array({{{"id", 0}, {"siblings", list}}})}};
  auto t = topology_from_json(j);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("cpus[0].siblings"), std::string::npos) << t.error().message;
}

// Each list is small (8192 ids); 1100 of them in one hello are 9 million ids: the document's
// budget stops them before they are expanded.
TEST(TopologyJsonLimits, ManyFullListsStopAtTheDocumentsBudget) {
  json cpus = json::array();
  for (int i = 0; i < 1100; ++i) cpus.push_back({{"id", i}, {"siblings", "0-8191"}});
  auto t = topology_from_json({{"cpus", cpus}});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("siblings: CPU lists together name more than 8388608 CPU ids"),
            std::string::npos)
      << t.error().message;
}

TEST(TopologyJsonLimits, TooManyCpus) {
  json cpus = json::array();
  for (int i = 0; i < 65537; ++i) cpus.push_back({{"id", i}});
  auto t = topology_from_json({{"cpus", cpus}});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("more than"), std::string::npos) << t.error().message;
}

// The free text of a topology (vendor, model, source) comes from a file or a guest; every
// topology is built through build_topology or topology_from_json, and both make it display text
// (redteam wave 4: escapes reached terminals, invalid UTF-8 ended `host --json` with exit 70).
TEST(TopologyText, HostileTextIsDisplayTextFromEverySource) {
  RawTopology raw;
  raw.cpus.push_back({0, true, 0, 0, CpuList{0}});
  raw.vendor = "Auth\xff\xfe\x1b]0;x\x07";
  raw.model = std::string("Evil \xc3\x28 \x1b[2J") + std::string(5000, 'm');
  raw.source = "sysfs:/tmp/\xff\x1b[31m";
  auto built = build_topology(raw);
  ASSERT_TRUE(built) << built.error().message;
  EXPECT_EQ(built->vendor, "Auth\\xff\\xfe\\x1b]0;x\\x07");
  EXPECT_EQ(built->source, "sysfs:/tmp/\\xff\\x1b[31m");
  EXPECT_LE(built->model.size(), kMaxTopologyTextBytes);
  const std::string dumped = topology_to_json(*built).dump();  // throws on invalid UTF-8
  // A guest's hello carries JSON escapes of control characters: decoded, then made display text.
  json hello = topology_to_json(*built);
  hello["model"] = "guest \x1b[2J\xc2\x9b";
  auto from_guest = topology_from_json(hello);
  ASSERT_TRUE(from_guest) << from_guest.error().message;
  EXPECT_EQ(from_guest->model, "guest \\x1b[2J\\u009b");
  auto again = topology_from_json(topology_to_json(*from_guest));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->model, from_guest->model);
  EXPECT_EQ(again->source, built->source);
}

}  // namespace
}  // namespace topolab
