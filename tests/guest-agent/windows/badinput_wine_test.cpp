// The bad-input catalogue's protocol lines (tests/badinput/cases/protocol/*.line) sent to both
// agents, the Linux one and the Windows one under wine: the replies are the same messages, and
// both agents still answer a ping after each.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/file_io.hpp"
#include "tests/guest-agent/windows/wine_agent.hpp"

namespace topolab {
namespace {

using namespace testing;
using nlohmann::json;

const auto* const kWine = ::testing::AddGlobalTestEnvironment(new WineEnvironment);

// Every message after `bytes` up to the pong of a ping sent right after it (pong included).
std::vector<json> replies_to(RawTcp& raw, const std::string& bytes, std::uint64_t ping_id) {
  raw.send(bytes);
  raw.send(protocol::encode(protocol::ping_message(ping_id)));
  std::vector<json> out;
  for (int i = 0; i < 20; ++i) {
    json m = raw.next();
    if (m.is_null()) {
      ADD_FAILURE() << "no pong " << ping_id << " after the input";
      break;
    }
    // A hello (after a sync) describes the machine, which differs between the agents.
    out.push_back(m.value("type", "") == "hello" ? json{{"type", "hello"}} : m);
    if (m.value("type", "") == "pong" && m.value("id", 0u) == ping_id) break;
  }
  return out;
}

TEST(WindowsAgentBadInput, ProtocolCasesGetTheSameRepliesFromBothAgents) {
  TOPOLAB_REQUIRE_WINE();
  std::vector<fs::path> cases;
  for (const auto& e :
       fs::directory_iterator(fs::path(TOPOLAB_TESTS_DIR) / "badinput/cases/protocol")) {
    if (e.path().extension() == ".line") cases.push_back(e.path());
  }
  std::sort(cases.begin(), cases.end());
  ASSERT_GE(cases.size(), 20u);
  WineAgent windows;
  const std::uint16_t linux_port = free_tcp_port();
  ChildOptions o;
  o.capture_output = false;
  o.output_file = wine_prefix().parent_path() / "linux-agent-serve.log";
  ChildProcess linux_agent({TOPOLAB_AGENT, "serve", "--tcp", std::to_string(linux_port)}, o);
  RawTcp w(windows.port()), l(linux_port);
  ASSERT_TRUE(w.connected() && l.connected());
  ASSERT_EQ(w.next_of_type("hello").value("type", ""), "hello");
  ASSERT_EQ(l.next_of_type("hello").value("type", ""), "hello");
  std::uint64_t id = 1000;
  for (const auto& c : cases) {
    auto input = read_file(c, 1u << 20);
    ASSERT_TRUE(input.ok()) << input.error().message;
    std::string bytes = *input;
    if (bytes.empty() || bytes.back() != '\n') bytes += '\n';
    auto from_windows = replies_to(w, bytes, ++id);
    auto from_linux = replies_to(l, bytes, id);
    EXPECT_EQ(json(from_windows), json(from_linux)) << c.filename();
    EXPECT_GE(from_windows.size(), 1u) << c.filename();
  }
}

}  // namespace
}  // namespace topolab
