// Every refusal of the layout readers carries ErrorKind::input (exit 65), whatever stage
// refused it: TOML syntax, an unknown key, a value, a CPU list (CpuList's own error), the
// cross-field check, `--set`. A file that cannot be read keeps its own kind, and a name that is
// neither a file nor a preset is not_found (exit 66).
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/model/layout/layout.hpp"

namespace topolab {
namespace {

std::string with_guest(const std::string& rest) {
  return "[guest]\nl3_groups = 2\ncores_per_group = 2\n" + rest;
}

void expect_input(const Result<Layout>& r, const std::string& what) {
  ASSERT_FALSE(r) << what;
  EXPECT_TRUE(r.error().is(ErrorKind::input))
      << what << ": kind " << to_string(r.error().kind) << ", " << r.error().message;
}

TEST(LayoutErrorKind, EveryRefusalIsInput) {
  expect_input(parse_layout("[guest\n", "t.toml"), "TOML syntax");
  expect_input(parse_layout(with_guest("colour = 3\n"), "t.toml"), "unknown key");
  expect_input(parse_layout("[guest]\nl3_groups = 0\ncores_per_group = 2\n", "t.toml"),
               "value out of range");
  expect_input(parse_layout(with_guest("[placement]\nhost_cpus = \"7-x\"\n"), "t.toml"),
               "CPU list");
  expect_input(parse_layout(with_guest("[placement]\npolicy = \"explicit\"\nexplicit = [\"1\"]\n"),
                            "t.toml"),
               "explicit list length");
  expect_input(parse_layout("name = \"x\"\n", "t.toml"), "missing [guest]");
}

// A name that is neither a file nor a preset is the user's missing thing (exit 66), not a
// malformed one.
TEST(LayoutErrorKind, AnUnknownPresetIsNotFound) {
  auto r = load_layout_or_preset("no-such-preset-anywhere");
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(ErrorKind::not_found)) << r.error().message;
}

TEST(LayoutErrorKind, SetFieldRefusalsAreInput) {
  Layout l;
  auto unknown = set_layout_field(l, "guest.colour", "3");
  ASSERT_FALSE(unknown);
  EXPECT_TRUE(unknown.error().is(ErrorKind::input)) << unknown.error().message;
  auto cpus = set_layout_field(l, "placement.host_cpus", "3-1");
  ASSERT_FALSE(cpus);
  EXPECT_TRUE(cpus.error().is(ErrorKind::input)) << cpus.error().message;
  auto number = set_layout_field(l, "guest.memory_mib", "lots");
  ASSERT_FALSE(number);
  EXPECT_TRUE(number.error().is(ErrorKind::input)) << number.error().message;
}

TEST(LayoutErrorKind, AnUnreadableFileKeepsItsKind) {
  auto r = load_layout_file("/nonexistent/layout.toml");
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(ErrorKind::not_found)) << r.error().message;
}

}  // namespace
}  // namespace topolab
