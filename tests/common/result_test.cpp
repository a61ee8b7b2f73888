// Error kinds, their exit codes, and the propagation macros (TL_TRY, TL_TRY_CTX, TL_ASSIGN,
// TL_ASSIGN_CTX) of common/result.hpp and common/exit_code.hpp.
#include "common/result.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "common/exit_code.hpp"

namespace topolab {
namespace {

// Every kind its own code (issue 28): a script tells bad input from a missing file, libvirt,
// the guest and a bug by the code alone.
TEST(ExitCodeFor, EveryKindHasItsOwnCode) {
  const std::pair<ErrorKind, int> want[] = {
      {ErrorKind::failed, 1},       {ErrorKind::input, 65},   {ErrorKind::not_found, 66},
      {ErrorKind::does_not_fit, 4}, {ErrorKind::libvirt, 69}, {ErrorKind::io, 74},
      {ErrorKind::guest, 76},       {ErrorKind::internal, 70}};
  std::set<int> codes;
  for (auto [kind, code] : want) {
    EXPECT_EQ(to_int(exit_code_for(kind)), code) << to_string(kind);
    codes.insert(code);
  }
  EXPECT_EQ(codes.size(), std::size(want)) << "two kinds share a code";
  EXPECT_EQ(to_int(exit_code_for(make_error(ErrorKind::internal, "bug"))), 70);
  EXPECT_EQ(to_int(exit_code_for(Error{"no kind given"})), 1);
  EXPECT_EQ(to_int(exit_code_for(make_error(ErrorKind::input, "x").context("file"))), 65);
}

// The table of docs/reliability.md "Exit codes" names every ExitCode with its number: a code
// changed here and not there (or the reverse) fails.
TEST(ExitCode, TheTableOfDocsReliability) {
  const std::pair<ExitCode, const char*> codes[] = {{ExitCode::ok, "ok"},
                                                    {ExitCode::failed, "failed"},
                                                    {ExitCode::usage, "usage"},
                                                    {ExitCode::mismatch, "mismatch"},
                                                    {ExitCode::does_not_fit, "does_not_fit"},
                                                    {ExitCode::data_error, "data_error"},
                                                    {ExitCode::no_input, "no_input"},
                                                    {ExitCode::unavailable, "unavailable"},
                                                    {ExitCode::internal, "internal"},
                                                    {ExitCode::io_error, "io_error"},
                                                    {ExitCode::guest, "guest"}};
  std::ifstream in(std::string(TOPOLAB_SOURCE_DIR) + "/docs/reliability.md");
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_FALSE(text.str().empty());
  for (auto [code, name] : codes) {
    const std::string row = "| " + std::to_string(to_int(code)) + " | `" + name + "` |";
    EXPECT_NE(text.str().find(row), std::string::npos) << "docs/reliability.md lacks " << row;
  }
}

TEST(ErrorKind, DefaultIsFailedAndContextKeepsTheKind) {
  EXPECT_EQ(Error{"x"}.kind, ErrorKind::failed);
  Error e = make_error(ErrorKind::not_found, "no such boot").context("report");
  EXPECT_EQ(e.message, "report: no such boot");
  EXPECT_TRUE(e.is(ErrorKind::not_found));
  EXPECT_EQ(to_string(ErrorKind::does_not_fit), "does-not-fit");
}

Result<int> parse_positive(int v) {
  if (v <= 0) return make_error(ErrorKind::input, "not positive: " + std::to_string(v));
  return v;
}

Result<int> doubled(int v) {
  TL_ASSIGN(const int n, parse_positive(v));
  return 2 * n;
}

Result<int> doubled_with_context(int v) {
  TL_ASSIGN_CTX(auto n, parse_positive(v), "field x");
  return 2 * n;
}

Result<void> checked(int v) {
  TL_TRY_CTX(parse_positive(v), "checked");
  return {};
}

Result<std::unique_ptr<int>> boxed(int v) {
  if (v < 0) return make_error(ErrorKind::io, "no box");
  return std::make_unique<int>(v);
}

// TL_ASSIGN moves the value out (a move-only type) and may assign an existing variable.
Result<int> unboxed(int a, int b) {
  std::unique_ptr<int> p;
  TL_ASSIGN(p, boxed(a));
  TL_ASSIGN(auto q, boxed(b));  // two on neighbouring lines: distinct temporaries
  return *p + *q;
}

TEST(Macros, AssignGivesTheValueOrPropagatesTheErrorWithItsKind) {
  EXPECT_EQ(*doubled(21), 42);
  auto bad = doubled(-1);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "not positive: -1");
  EXPECT_EQ(bad.error().kind, ErrorKind::input);
}

TEST(Macros, ContextVariantsPrefixTheMessage) {
  EXPECT_EQ(*doubled_with_context(2), 4);
  EXPECT_EQ(doubled_with_context(0).error().message, "field x: not positive: 0");
  EXPECT_TRUE(checked(1).ok());
  EXPECT_EQ(checked(-5).error().message, "checked: not positive: -5");
  EXPECT_EQ(checked(-5).error().kind, ErrorKind::input);
}

TEST(Macros, AssignWorksWithMoveOnlyValuesAndExistingVariables) {
  EXPECT_EQ(*unboxed(2, 3), 5);
  EXPECT_EQ(unboxed(2, -1).error().kind, ErrorKind::io);
  EXPECT_EQ(unboxed(-1, 2).error().message, "no box");
}

TEST(Result, ReadingAnErrorAsAValueIsABug) {
  Result<int> r = Error{"never checked"};
  EXPECT_THROW((void)*r, FatalError);
}

}  // namespace
}  // namespace topolab
