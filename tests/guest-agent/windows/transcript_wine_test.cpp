// The Windows agent under wine, driven over loopback TCP by the orchestrator's own AgentClient
// through the transcript the Linux agent passes (tests/guest-agent/agent_unix_test.cpp):
// hello, run, ping, resync after garbage, oversized line, unknown input, reconnect, shutdown.
#include <gtest/gtest.h>

#include <sstream>

#include "orchestrator/guest/agent/agent_client.hpp"
#include "tests/guest-agent/windows/wine_agent.hpp"

namespace topolab {
namespace {

using namespace testing;
using nlohmann::json;

const auto* const kWine = ::testing::AddGlobalTestEnvironment(new WineEnvironment);

std::unique_ptr<AgentClient> connect(const WineAgent& agent) {
  auto c = AgentClient::connect_tcp_loopback(agent.port(), 30000ms);
  EXPECT_TRUE(c.ok()) << c.error().message;
  return c.ok() ? std::move(*c) : nullptr;
}

TEST(WindowsAgentTranscript, HelloRunPingAndShutdown) {
  TOPOLAB_REQUIRE_WINE();
  WineAgent agent;
  auto client = connect(agent);
  ASSERT_TRUE(client);
  std::ostringstream transcript;
  client->set_transcript(&transcript);
  auto hello = client->wait_hello(10000ms);
  ASSERT_TRUE(hello.ok()) << hello.error().message;
  auto result = client->run("sqrt", json{{"n", 5000}, {"repeats", 1}}, 60000ms);
  ASSERT_TRUE(result.ok()) << result.error().message;
  auto pong = client->ping(10000ms);
  ASSERT_TRUE(pong.ok()) << pong.error().message;
  auto bye = client->shutdown();
  ASSERT_TRUE(bye.ok()) << bye.error().message;
  EXPECT_EQ(agent.wait_exit(20000ms), 0) << "the agent did not exit after its shutdown ack";
  const std::string t = transcript.str();
  EXPECT_NE(t.find("\"benchmark\":\"sqrt\""), std::string::npos) << t;
  EXPECT_NE(t.find("\"type\":\"pong\""), std::string::npos) << t;
  EXPECT_NE(t.find("\"type\":\"ack\""), std::string::npos) << t;
}

TEST(WindowsAgentTranscript, HelloNamesWindowsAndCarriesTheTopology) {
  TOPOLAB_REQUIRE_WINE();
  WineAgent agent;
  RawTcp raw(agent.port());
  ASSERT_TRUE(raw.connected());
  json hello = raw.next_of_type("hello");
  ASSERT_TRUE(hello.is_object());
  EXPECT_EQ(hello["kernel"].get<std::string>().rfind("Windows ", 0), 0u) << hello["kernel"];
  EXPECT_GT(hello["uptime_ms"].get<std::uint64_t>(), 0u);
  EXPECT_FALSE(hello["cpu_model"].get<std::string>().empty());
  ASSERT_TRUE(hello["topology"].is_object()) << hello.dump();
  EXPECT_EQ(hello["topology"]["source"], "windows:GetLogicalProcessorInformationEx");
  auto topo = run_wine_agent({"topology", "--json"});
  ASSERT_EQ(topo.status(), 0) << topo.err;
  EXPECT_EQ(hello["topology"], json::parse(topo.out));
}

TEST(WindowsAgentTranscript, BadInputGetsErrorsAndTheAgentKeepsServing) {
  TOPOLAB_REQUIRE_WINE();
  WineAgent agent;
  RawTcp raw(agent.port());
  ASSERT_TRUE(raw.connected());
  ASSERT_EQ(raw.next_of_type("hello").value("type", ""), "hello");
  raw.send("\x01garbage \xc3\x28 {not json\n");
  json e = raw.next_of_type("error");
  EXPECT_EQ(e.value("type", ""), "error") << e.dump();
  raw.send(protocol::encode(json{{"type", "frobnicate"}, {"id", 7}}));
  e = raw.next_of_type("error");
  EXPECT_NE(e.value("message", "").find("unknown message type"), std::string::npos) << e.dump();
  raw.send(protocol::encode(protocol::run_message(8, "no-such-bench", json::object())));
  e = raw.next_of_type("error");
  EXPECT_NE(e.value("message", "").find("unknown benchmark 'no-such-bench'"), std::string::npos)
      << e.dump();
  raw.send(protocol::encode(protocol::run_message(9, "sqrt", json{{"n", -5}})));
  e = raw.next_of_type("error");
  EXPECT_NE(e.value("message", "").find("n"), std::string::npos) << e.dump();
  // A line longer than the protocol's limit is discarded whole, with an error.
  raw.send(std::string(protocol::kMaxLineBytes + 100, 'x') + "\n");
  e = raw.next_of_type("error");
  EXPECT_NE(e.value("message", "").find("longer than"), std::string::npos) << e.dump();
  raw.send(protocol::encode(protocol::ping_message(10)));
  json pong = raw.next_of_type("pong");
  EXPECT_EQ(pong.value("id", 0), 10) << pong.dump();
}

TEST(WindowsAgentTranscript, ClientResyncsPastGarbageLines) {
  TOPOLAB_REQUIRE_WINE();
  WineAgent agent({"--garbage"});
  auto client = connect(agent);
  ASSERT_TRUE(client);
  ASSERT_TRUE(client->ping(10000ms).ok());
  EXPECT_GT(client->skipped_lines(), 0u) << "--garbage sends a junk line before each reply";
  // Garbage in mid-session: the client resyncs and the agent keeps answering.
  ASSERT_TRUE(client->resync(10000ms).ok());
  ASSERT_TRUE(client->ping(10000ms).ok());
}

TEST(WindowsAgentTranscript, ReconnectGetsAFreshHello) {
  TOPOLAB_REQUIRE_WINE();
  WineAgent agent;
  {
    auto first = connect(agent);
    ASSERT_TRUE(first);
    ASSERT_TRUE(first->wait_hello(10000ms).ok());
  }
  auto second = connect(agent);
  ASSERT_TRUE(second);
  auto hello = second->wait_hello(10000ms);
  ASSERT_TRUE(hello.ok()) << hello.error().message;
  ASSERT_TRUE(second->ping(10000ms).ok());
}

TEST(WindowsAgentTranscript, BadServeArgumentsExitNonZero) {
  TOPOLAB_REQUIRE_WINE();
  auto run = run_wine_agent({"serve", "--tcp", "70000"}, 60s);
  EXPECT_EQ(run.status(), 2) << run.err;
  EXPECT_NE(run.err.find("--tcp: expected a port number"), std::string::npos) << run.err;
  // No AF_UNIX in wine 8: a clear error, not a crash or a hang.
  run = run_wine_agent({"serve", "--unix", "Z:\\tmp\\topolab-wine.sock"}, 60s);
  EXPECT_EQ(run.status(), 74) << run.err;  // ErrorKind::io: the socket call failed
  EXPECT_NE(run.err.find("UNIX socket"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace topolab
