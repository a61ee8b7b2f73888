// The layout field table drives the TOML parser, `--set`/CLI text, experiment levels and
// layout_to_json: each test walks every row, so a field added to one path and not the others
// fails here.
#include "orchestrator/model/layout/layout_fields.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

namespace topolab {
namespace {

const std::string kBase = "[guest]\nl3_groups = 2\ncores_per_group = 2\n";

// kBase without the line of `name` (a [guest] key may be written once).
std::string base_without(std::string_view name) {
  std::string out = "[guest]\n";
  for (const char* line : {"l3_groups = 2\n", "cores_per_group = 2\n"})
    if (std::string_view(line).rfind(std::string(name) + " ", 0) != 0) out += line;
  return out;
}

// One accepted value per field, as a TOML value and as command-line text.
struct Sample {
  std::string toml, text;
};
const std::map<std::string, Sample>& samples() {
  static const std::map<std::string, Sample> s = {
      {"name", {"\"lab\"", "lab"}},
      {"description", {"\"a b\"", "a b"}},
      {"guest.l3_groups", {"3", "3"}},
      {"guest.cores_per_group", {"4", "4"}},
      {"guest.threads_per_core", {"2", "2"}},
      {"guest.memory_mib", {"4096", "4096"}},
      {"guest.iothreads", {"2", "2"}},
      {"guest.hyperv", {"true", "yes"}},
      {"guest.kernel_cmdline_extra", {"\"quiet\"", "quiet"}},
      {"guest.os", {"\"linux\"", "linux"}},
      {"expose.as", {"\"numa\"", "numa"}},
      {"placement.policy", {"\"compact\"", "compact"}},
      {"placement.host_cpus", {"\"0-7\"", "0-7"}},
      {"placement.housekeeping_cpus", {"\"8\"", "8"}},
      {"placement.explicit", {"[\"0\", \"1-2\"]", "0;1-2"}},
      {"cpu.model", {"\"EPYC\"", "EPYC"}},
      {"cpu.features_disable", {"[\"rdseed\", \"x2apic\"]", "rdseed, x2apic"}},
      {"cpu.features_require", {"[\"topoext\"]", "topoext"}},
      {"memory.hugepages", {"\"2M\"", "2M"}},
      {"memory.locked", {"true", "on"}},
      {"guest.numa_nodes", {"2", "2"}},
      {"guest.memoryless_nodes", {"[1]", "1"}},
      {"guest.node_distances", {"[[10, 16], [16, 10]]", "10,16;16,10"}},
  };
  return s;
}

// The TOML text setting `f` to `value` on top of kBase (the guest section is kBase's).
// The nodes the fields about nodes need (validate_layout refuses them without numa_nodes).
std::string prerequisite(const LayoutField& f) {
  const std::string key(f.key);
  return key == "guest.memoryless_nodes" || key == "guest.node_distances" ? "numa_nodes = 2\n" : "";
}

std::string toml_with(const LayoutField& f, const std::string& value) {
  if (f.section().empty()) return std::string(f.key) + " = " + value + "\n" + kBase;
  if (f.section() == "guest")
    return base_without(f.name()) + prerequisite(f) + std::string(f.name()) + " = " + value + "\n";
  return kBase + "[" + std::string(f.section()) + "]\n" + std::string(f.name()) + " = " + value +
         "\n";
}

TEST(LayoutFields, EveryFieldHasASample) {
  for (const auto& f : layout_fields()) EXPECT_TRUE(samples().count(std::string(f.key))) << f.key;
  EXPECT_EQ(samples().size(), layout_fields().size());
}

// The file and the command line store the same typed value for every field.
TEST(LayoutFields, FileAndCommandLineStoreTheSameValue) {
  for (const auto& f : layout_fields()) {
    const auto& s = samples().at(std::string(f.key));
    auto from_file = parse_layout(toml_with(f, s.toml), "f.toml");
    ASSERT_TRUE(from_file.ok()) << f.key << ": " << from_file.error().message;
    auto base = parse_layout(kBase, "f.toml");
    ASSERT_TRUE(base.ok());
    Layout from_text = *base;
    if (!prerequisite(f).empty()) {
      ASSERT_TRUE(set_layout_field(from_text, "numa_nodes", "2"));
    }
    ASSERT_TRUE(set_layout_field(from_text, f.key, s.text).ok()) << f.key;
    EXPECT_EQ(layout_to_json(*from_file), layout_to_json(from_text)) << f.key;
    EXPECT_EQ(from_file->name, from_text.name) << f.key;
    EXPECT_EQ(from_file->description, from_text.description) << f.key;
    if (f.to_json) {
      EXPECT_NE(layout_to_json(*base), layout_to_json(from_text)) << f.key;
    }
  }
}

// A TOML value of another type is refused with the file line, the key and the expected type.
TEST(LayoutFields, FileValuesOfTheWrongTypeNameKeyAndType) {
  for (const auto& f : layout_fields()) {
    const std::string wrong = f.type == FieldType::kInt ? "\"3\"" : "3.5";
    auto l = parse_layout(toml_with(f, wrong), "w.toml");
    ASSERT_FALSE(l.ok()) << f.key;
    EXPECT_NE(l.error().message.find(std::string(f.key) + ": expected " + field_type_name(f.type) +
                                     ", got "),
              std::string::npos)
        << l.error().message;
    EXPECT_EQ(l.error().message.rfind("w.toml:", 0), 0u) << l.error().message;
  }
}

TEST(LayoutFields, AliasesAndSpellingsFindTheirRow) {
  std::set<std::string> seen;
  for (const auto& f : layout_fields()) {
    EXPECT_EQ(find_layout_field(f.key), &f);
    for (auto alias : f.aliases) {
      EXPECT_EQ(find_layout_field(alias), &f) << alias;
      EXPECT_TRUE(seen.insert(std::string(alias)).second) << "alias used twice: " << alias;
    }
  }
  EXPECT_EQ(find_layout_field(" L3-Groups "), find_layout_field("guest.l3_groups"));
  EXPECT_EQ(find_layout_field("colour"), nullptr);
}

// Experiment levels keep their TOML type; a level of another type is read as its text.
TEST(LayoutFields, TypedLevelsAndTheirText) {
  Layout l;
  ASSERT_TRUE(set_layout_level(l, "groups", nlohmann::json(3)).ok());
  EXPECT_EQ(l.l3_groups, 3);
  ASSERT_TRUE(set_layout_level(l, "groups", nlohmann::json("4")).ok());
  EXPECT_EQ(l.l3_groups, 4);
  ASSERT_TRUE(set_layout_level(l, "hyperv", nlohmann::json(true)).ok());
  EXPECT_TRUE(l.hyperv);
  auto bad = set_layout_level(l, "groups", nlohmann::json(2.5));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("guest.l3_groups: expected an integer, got '2.5'"),
            std::string::npos)
      << bad.error().message;
  auto unknown = set_layout_level(l, "colour", nlohmann::json(1));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown layout field 'colour'"), std::string::npos);
}

// A list item is a value of its own: a feature name with a blank is refused, not split.
TEST(LayoutFields, FileListItemsAreNotSplitAgain) {
  auto l = parse_layout(kBase + "[cpu]\nfeatures_disable = [\"a b\"]\n", "i.toml");
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("i.toml:5: cpu.features_disable: expected CPU feature names"),
            std::string::npos)
      << l.error().message;
}

TEST(LayoutFields, CliFlagsAreUniqueAndDocumented) {
  std::set<std::string_view> flags;
  for (const auto& f : layout_fields()) {
    if (f.cli_flag.empty()) continue;
    EXPECT_EQ(f.cli_flag.rfind("--", 0), 0u) << f.cli_flag;
    EXPECT_FALSE(f.cli_help.empty()) << f.cli_flag;
    EXPECT_TRUE(flags.insert(f.cli_flag).second) << f.cli_flag;
  }
  EXPECT_EQ(flags.size(), 8u);
}

}  // namespace
}  // namespace topolab
