// The experiment file's [guest] table (issue 14): disk (resolved against the file's folder) and
// os, or domain; everything else refused with FILE:LINE.
#include "orchestrator/run/experiment/guest_table.hpp"

#include <gtest/gtest.h>

#include "orchestrator/run/experiment/experiment.hpp"

namespace topolab::experiment {
namespace {

const char* kRest = "name = \"x\"\nlayout = \"l.toml\"\n[[benchmark]]\nname = \"sqrt\"\n";

Result<Experiment> parse(const std::string& guest) {
  return parse_experiment(std::string(kRest) + guest, "e.toml", "/base");
}

TEST(GuestTable, DiskIsResolvedAgainstTheFilesFolder) {
  auto e = parse("[guest]\ndisk = \"img/os.qcow2\"\nos = \"windows\"\n");
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_EQ(e->guest.kind, GuestKind::kDisk);
  EXPECT_EQ(e->guest.disk, "/base/img/os.qcow2");
  EXPECT_EQ(e->guest.os, GuestOs::kWindows);
  EXPECT_EQ(experiment_to_json(*e)["guest"]["disk"], "/base/img/os.qcow2");
}

TEST(GuestTable, DomainTemplate) {
  auto e = parse("[guest]\ndomain = \"win10\"\n");
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_EQ(e->guest.kind, GuestKind::kDomain);
  EXPECT_EQ(e->guest.domain, "win10");
}

TEST(GuestTable, WithoutItTheBuiltInImage) {
  auto e = parse("");
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_TRUE(e->guest.builtin());
  EXPECT_FALSE(experiment_to_json(*e).contains("guest"));
}

TEST(GuestTable, RefusalsNameTheLine) {
  struct Case {
    std::string guest, expect;
  } cases[] = {
      {"[guest]\nos = \"linux\"\n", "e.toml:5: [guest] missing 'disk' or 'domain'"},
      {"[guest]\ndisk = \"a\"\nos = \"plan9\"\n", "e.toml:7: [guest] guest os 'plan9'"},
      {"[guest]\ndisk = 3\n", "e.toml:6: [guest] 'disk': expected a non-empty string"},
      {"[guest]\ndisk = \"\"\n", "'disk': expected a non-empty string"},
      {"[guest]\ndisk = \"a\"\ndomain = \"b\"\n", "'disk' and 'domain' both given"},
      // Issue 32 class 1: 'os' with a template domain was dropped silently.
      {"[guest]\ndomain = \"w\"\nos = \"windows\"\n", "e.toml:7: [guest] 'os' given with 'domain'"},
      {"[guest]\nkernel = \"a\"\n", "[guest] unknown key 'kernel'"},
  };
  for (const auto& c : cases) {
    auto e = parse(c.guest);
    ASSERT_FALSE(e) << c.guest;
    EXPECT_NE(e.error().message.find(c.expect), std::string::npos)
        << c.guest << " -> " << e.error().message;
  }
  auto scalar = parse_experiment(std::string("guest = 1\n") + kRest, "e.toml", "/base");
  ASSERT_FALSE(scalar);
  EXPECT_NE(scalar.error().message.find("e.toml:1: [guest] expected a table"), std::string::npos)
      << scalar.error().message;
}

}  // namespace
}  // namespace topolab::experiment
