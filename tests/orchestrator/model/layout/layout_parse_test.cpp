#include <gtest/gtest.h>

#include <string>

#include "orchestrator/model/layout/layout.hpp"

namespace topolab {
namespace {

constexpr const char* kGood = R"(name = "ryzen-like"
description = "2 CCX"
[guest]
l3_groups = 2
cores_per_group = 4
threads_per_core = 2
memory_mib = 2048
iothreads = 1
hyperv = true
[expose]
as = "dies"
[placement]
policy = "l3-aligned"
host_cpus = "8-15"
housekeeping_cpus = "0,16"
[cpu]
model = "EPYC-Rome"
features_disable = ["rdseed"]
features_require = ["topoext"]
[memory]
hugepages = "1G"
locked = true
[[hostdev]]
address = "0000:01:00.0"
[[hostdev]]
address = "01:00.1"
managed = false
)";

TEST(LayoutParse, GoodFileFillsEveryField) {
  auto l = parse_layout(kGood, "good.toml");
  ASSERT_TRUE(l) << l.error().message;
  EXPECT_EQ(l->name, "ryzen-like");
  EXPECT_EQ(l->description, "2 CCX");
  EXPECT_EQ(l->l3_groups, 2);
  EXPECT_EQ(l->cores_per_group, 4);
  EXPECT_EQ(l->threads_per_core, 2);
  EXPECT_EQ(l->vcpu_count(), 16);
  EXPECT_EQ(l->memory_mib, 2048u);
  EXPECT_EQ(l->iothreads, 1);
  EXPECT_TRUE(l->hyperv);
  EXPECT_EQ(l->expose, Exposure::kDies);
  EXPECT_EQ(l->policy, PlacementPolicy::kL3Aligned);
  ASSERT_TRUE(l->host_cpus);
  EXPECT_EQ(l->host_cpus->to_string(), "8-15");
  EXPECT_EQ(l->housekeeping_cpus->to_string(), "0,16");
  EXPECT_EQ(l->cpu_model, "EPYC-Rome");
  EXPECT_EQ(l->cpu_features_disable, std::vector<std::string>{"rdseed"});
  EXPECT_EQ(l->cpu_features_require, std::vector<std::string>{"topoext"});
  EXPECT_EQ(l->hugepage_kib, 1048576u);
  EXPECT_TRUE(l->hugepages_locked);
  ASSERT_EQ(l->hostdevs.size(), 2u);
  EXPECT_EQ(l->hostdevs[0].pci_address, "0000:01:00.0");
  EXPECT_TRUE(l->hostdevs[0].managed);
  EXPECT_EQ(l->hostdevs[1].pci_address, "0000:01:00.1");
  EXPECT_FALSE(l->hostdevs[1].managed);
}

TEST(LayoutParse, MinimalFileGetsDefaults) {
  auto l = parse_layout("[guest]\nl3_groups = 1\ncores_per_group = 2\n", "m.toml");
  ASSERT_TRUE(l) << l.error().message;
  EXPECT_EQ(l->threads_per_core, 1);
  EXPECT_EQ(l->memory_mib, 1024u);
  EXPECT_EQ(l->expose, Exposure::kFlat);
  EXPECT_EQ(l->policy, PlacementPolicy::kL3Aligned);
  EXPECT_FALSE(l->host_cpus);
  EXPECT_EQ(l->hugepage_kib, 0u);
}

TEST(LayoutParse, ExplicitListOnePerVcpu) {
  auto l = parse_layout(
      "[guest]\nl3_groups = 1\ncores_per_group = 2\n[placement]\npolicy = \"explicit\"\n"
      "explicit = [\"4\", \"5-6\"]\n",
      "e.toml");
  ASSERT_TRUE(l) << l.error().message;
  ASSERT_EQ(l->explicit_cpus.size(), 2u);
  EXPECT_EQ(l->explicit_cpus[1].to_string(), "5-6");
}

struct BadCase {
  const char* name;
  const char* text;
  const char* where;   // "bad.toml:N:"
  const char* expect;  // substring of the message
};

class LayoutMalformed : public ::testing::TestWithParam<BadCase> {};

TEST_P(LayoutMalformed, NamesFileLineAndExpectation) {
  const auto& c = GetParam();
  auto l = parse_layout(c.text, "bad.toml");
  ASSERT_FALSE(l) << c.name << " parsed";
  const auto& m = l.error().message;
  EXPECT_EQ(m.rfind(c.where, 0), 0u) << m;
  EXPECT_NE(m.find(c.expect), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
}

const BadCase kBad[] = {
    {"syntax", "[guest\nl3_groups = 1\n", "bad.toml:1:", "TOML syntax error"},
    {"missing guest", "name = \"x\"\n[expose]\nas = \"flat\"\n",
     "bad.toml:1:", "missing section [guest]"},
    {"missing groups", "\n[guest]\ncores_per_group = 2\n",
     "bad.toml:2:", "missing key 'l3_groups'"},
    {"string count", "[guest]\nl3_groups = \"2\"\ncores_per_group = 2\n",
     "bad.toml:2:", "guest.l3_groups: expected an integer, got a string"},
    {"negative count", "[guest]\nl3_groups = 2\ncores_per_group = -4\n",
     "bad.toml:3:", "expected an integer from 1 to 4096, got -4"},
    {"zero threads", "[guest]\nl3_groups = 2\ncores_per_group = 4\nthreads_per_core = 0\n",
     "bad.toml:4:", "guest.threads_per_core: expected an integer from 1 to 8, got 0"},
    {"float memory", "[guest]\nl3_groups = 1\ncores_per_group = 1\nmemory_mib = 1.5\n",
     "bad.toml:4:", "expected an integer, got a float"},
    {"zero memory", "[guest]\nl3_groups = 1\ncores_per_group = 1\nmemory_mib = 0\n",
     "bad.toml:4:", "expected a positive size"},
    // Layouts have no float fields: nan/inf are refused as floats (issue 12 class 5).
    {"nan memory", "[guest]\nl3_groups = 1\ncores_per_group = 1\nmemory_mib = nan\n",
     "bad.toml:4:", "expected an integer, got a float"},
    {"inf groups", "[guest]\nl3_groups = inf\ncores_per_group = 1\n",
     "bad.toml:2:", "expected an integer, got a float"},
    {"negative iothreads", "[guest]\nl3_groups = 1\ncores_per_group = 1\niothreads = -1\n",
     "bad.toml:4:", "expected 0 to 64, got -1"},
    {"deep",
     "[guest]\nl3_groups = 1\nx = "
     "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n",
     "bad.toml:3:", "TOML nested deeper than 64 levels"},
    {"unknown top key", "[guest]\nl3_groups = 1\ncores_per_group = 1\n[gust]\nx = 1\n",
     "bad.toml:4:", "unknown key 'gust'"},
    {"unknown guest key", "[guest]\nl3_groups = 1\ncores_per_group = 1\ncores = 3\n",
     "bad.toml:4:", "unknown key 'cores' in [guest]"},
    {"bad exposure", "[guest]\nl3_groups = 1\ncores_per_group = 1\n[expose]\nas = \"cubes\"\n",
     "bad.toml:5:", "expected one of flat, sockets, dies, numa, got 'cubes'"},
    {"exposure not table", "expose = \"dies\"\n[guest]\nl3_groups = 1\ncores_per_group = 1\n",
     "bad.toml:1:", "expected a table [expose], got a string"},
    {"bad policy", "[guest]\nl3_groups = 1\ncores_per_group = 1\n[placement]\npolicy = \"tight\"\n",
     "bad.toml:5:", "expected one of l3-aligned"},
    {"bad cpu list",
     "[guest]\nl3_groups = 1\ncores_per_group = 1\n[placement]\nhost_cpus = \"8-x\"\n",
     "bad.toml:5:", "placement.host_cpus: invalid CPU list '8-x'"},
    {"descending list",
     "[guest]\nl3_groups = 1\ncores_per_group = 1\n[placement]\nhost_cpus = \"15-8\"\n",
     "bad.toml:5:", "descending range"},
    {"cpu list as int", "[guest]\nl3_groups = 1\ncores_per_group = 1\n[placement]\nhost_cpus = 8\n",
     "bad.toml:5:", "expected a string, got an integer"},
    {"overlapping sets",
     "[guest]\nl3_groups = 1\ncores_per_group = 1\n[placement]\nhost_cpus = \"0-7\"\n"
     "housekeeping_cpus = \"7-8\"\n",
     "bad.toml:4:", "overlap on 7"},
    {"explicit missing",
     "[guest]\nl3_groups = 1\ncores_per_group = 2\n[placement]\npolicy = \"explicit\"\n",
     "bad.toml:4:", "needs explicit"},
    {"explicit wrong length",
     "[guest]\nl3_groups = 1\ncores_per_group = 2\n[placement]\npolicy = \"explicit\"\n"
     "explicit = [\"1\"]\n",
     "bad.toml:4:", "expected one CPU list per vCPU (2), got 1"},
    {"explicit not strings",
     "[guest]\nl3_groups = 1\ncores_per_group = 2\n[placement]\nexplicit = [1, 2]\n",
     "bad.toml:5:", "placement.explicit[0]: expected a string, got an integer"},
    {"bad hugepages", "[guest]\nl3_groups = 1\ncores_per_group = 1\n[memory]\nhugepages = \"4K\"\n",
     "bad.toml:5:", "expected a hugepage size"},
    {"locked not bool", "[guest]\nl3_groups = 1\ncores_per_group = 1\n[memory]\nlocked = \"yes\"\n",
     "bad.toml:5:", "memory.locked: expected true or false, got a string"},
    {"hugepage multiple",
     "[guest]\nl3_groups = 1\ncores_per_group = 1\nmemory_mib = 1500\n[memory]\nhugepages = "
     "\"1G\"\n",
     "bad.toml:1:", "not a multiple of the hugepage size 1G"},
    {"bad pci", "[guest]\nl3_groups = 1\ncores_per_group = 1\n[[hostdev]]\naddress = \"01:00\"\n",
     "bad.toml:5:", "expected a PCI address"},
    {"hostdev no address",
     "[guest]\nl3_groups = 1\ncores_per_group = 1\n[[hostdev]]\nmanaged = true\n",
     "bad.toml:4:", "missing key 'address'"},
    {"hostdev unknown key",
     "[guest]\nl3_groups = 1\ncores_per_group = 1\n[[hostdev]]\naddress = \"0000:01:00.0\"\nrom = "
     "1\n",
     "bad.toml:6:", "unknown key 'rom' in [[hostdev]]"},
    {"bad feature",
     "[guest]\nl3_groups = 1\ncores_per_group = 1\n[cpu]\nfeatures_disable = [\"a b\"]\n",
     "bad.toml:5:", "expected CPU feature names"},
    {"name not string", "name = 3\n[guest]\nl3_groups = 1\ncores_per_group = 1\n",
     "bad.toml:1:", "name: expected a string, got an integer"},
    {"too many vcpus", "[guest]\nl3_groups = 4096\ncores_per_group = 4096\n",
     "bad.toml:1:", "exceeds 16384 vCPUs"},
};

INSTANTIATE_TEST_SUITE_P(Cases, LayoutMalformed, ::testing::ValuesIn(kBad), [](const auto& info) {
  std::string n = info.param.name;
  for (auto& ch : n) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return n;
});

TEST(LayoutFields, OverridesUseFileKeysAndAliases) {
  Layout l;
  ASSERT_TRUE(set_layout_field(l, "guest.l3_groups", "3"));
  ASSERT_TRUE(set_layout_field(l, "cores", "2"));
  ASSERT_TRUE(set_layout_field(l, "threads", "2"));
  ASSERT_TRUE(set_layout_field(l, "expose", "numa"));
  ASSERT_TRUE(set_layout_field(l, "policy", "compact"));
  ASSERT_TRUE(set_layout_field(l, "host_cpus", "4-11"));
  ASSERT_TRUE(set_layout_field(l, "memory", "4096"));
  ASSERT_TRUE(set_layout_field(l, "cpu.features_disable", "a,b"));
  ASSERT_TRUE(set_layout_field(l, "hugepages", "2M"));
  EXPECT_EQ(l.vcpu_count(), 12);
  EXPECT_EQ(l.expose, Exposure::kNuma);
  EXPECT_EQ(l.policy, PlacementPolicy::kCompact);
  EXPECT_EQ(l.host_cpus->to_string(), "4-11");
  EXPECT_EQ(l.memory_mib, 4096u);
  EXPECT_EQ(l.cpu_features_disable.size(), 2u);
  EXPECT_EQ(l.hugepage_kib, 2048u);
  ASSERT_TRUE(set_layout_field(l, "host_cpus", "none"));
  EXPECT_FALSE(l.host_cpus);
  EXPECT_TRUE(validate_layout(l));
}

// Issue 12 class 6: an empty list never lifts a restriction silently; "none" says it.
TEST(LayoutFields, EmptyCpuListIsRefusedNoneLiftsTheRestriction) {
  Layout l;
  ASSERT_TRUE(set_layout_field(l, "host_cpus", "2-3"));
  ASSERT_TRUE(set_layout_field(l, "housekeeping_cpus", "0"));
  for (const char* key : {"placement.host_cpus", "placement.housekeeping_cpus"}) {
    for (const char* empty : {"", "  "}) {
      auto r = set_layout_field(l, key, empty);
      ASSERT_FALSE(r) << key;
      EXPECT_NE(r.error().message.find(std::string(key) + ": empty CPU list"), std::string::npos)
          << r.error().message;
      EXPECT_NE(r.error().message.find("'none'"), std::string::npos) << r.error().message;
    }
  }
  EXPECT_EQ(l.host_cpus->to_string(), "2-3");
  EXPECT_EQ(l.housekeeping_cpus->to_string(), "0");
  ASSERT_TRUE(set_layout_field(l, "housekeeping_cpus", "none"));
  EXPECT_FALSE(l.housekeeping_cpus);
}

TEST(LayoutFields, BadOverridesSayWhatWasExpected) {
  Layout l;
  auto r = set_layout_field(l, "guest.l3_groups", "-1");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("expected an integer from 1 to 4096, got -1"),
            std::string::npos);
  r = set_layout_field(l, "guest.cores", "2");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("unknown layout field 'guest.cores'"), std::string::npos);
  r = set_layout_field(l, "expose", "cube");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("expose.as: expected one of"), std::string::npos);
  EXPECT_FALSE(set_layout_field(l, "memory", "lots"));
  EXPECT_FALSE(set_layout_field(l, "hyperv", "maybe"));
  EXPECT_EQ(l.l3_groups, 1) << "a refused override leaves the field alone";
}

TEST(LayoutEnums, RoundTrip) {
  for (auto e : {Exposure::kFlat, Exposure::kSockets, Exposure::kDies, Exposure::kNuma}) {
    EXPECT_EQ(*parse_exposure(to_string(e)), e);
  }
  for (auto p : {PlacementPolicy::kL3Aligned, PlacementPolicy::kCompact, PlacementPolicy::kScatter,
                 PlacementPolicy::kUnpinned, PlacementPolicy::kExplicit}) {
    EXPECT_EQ(*parse_policy(to_string(p)), p);
  }
  EXPECT_FALSE(parse_policy("l3"));
  EXPECT_EQ(*parse_pci_address("0000:0A:1f.7"), "0000:0a:1f.7");
  EXPECT_FALSE(parse_pci_address("0000:0a:20.0"));
  EXPECT_FALSE(parse_pci_address("0000:0a:1f.8"));
}

TEST(LayoutPresets, EveryPresetParsesWithADescription) {
  auto names = preset_names();
  for (const char* want :
       {"ryzen-1700x", "ryzen-1600x", "threadripper-1950x", "threadripper-2990wx-half",
        "opteron-6140", "epyc-7451-socket", "xeon-2s", "flat-8"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
  for (const auto& n : names) {
    auto l = load_layout_or_preset(n);
    ASSERT_TRUE(l) << l.error().message;
    EXPECT_EQ(l->name, n);
    EXPECT_FALSE(l->description.empty()) << n;
  }
  auto r = *load_layout_or_preset("ryzen-1600x");
  EXPECT_EQ(r.l3_groups * 100 + r.cores_per_group * 10 + r.threads_per_core, 232);
  auto o = *load_layout_or_preset("opteron-6140");
  EXPECT_EQ(o.l3_groups * 100 + o.cores_per_group * 10 + o.threads_per_core, 241);
  auto missing = load_layout_or_preset("no-such-preset");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("ryzen-1700x"), std::string::npos);
}

}  // namespace
}  // namespace topolab
