// The real agent binary over --unix, driven by the real AgentClient.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cstring>
#include <sstream>

#include "host/sysfs_reader.hpp"
#include "host/topology_json.hpp"
#include "orchestrator/guest/agent/agent_client.hpp"
#include "protocol/protocol.hpp"
#include "tests/guest-agent/agent_process.hpp"
#include "tests/guest-agent/raw_connection.hpp"

namespace topolab {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::AgentProcess;
using testing::RawConnection;

std::unique_ptr<AgentClient> connect(const AgentProcess& agent) {
  auto c = AgentClient::connect_unix(agent.socket(), 5000ms);
  EXPECT_TRUE(c.ok()) << c.error().message;
  return c.ok() ? std::move(*c) : nullptr;
}

TEST(AgentOverUnix, SocketIsPrivate) {
  AgentProcess agent;
  auto client = connect(agent);
  ASSERT_TRUE(client);
  struct stat st {};
  ASSERT_EQ(::stat(agent.socket().c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(AgentOverUnix, HelloCarriesTheTopologyTheAgentSees) {
  AgentProcess agent;
  auto client = connect(agent);
  ASSERT_TRUE(client);
  auto hello = client->wait_hello(5000ms);
  ASSERT_TRUE(hello.ok()) << hello.error().message;
  EXPECT_EQ(hello->protocol, protocol::kProtocolVersion);
  EXPECT_GT(hello->uptime_ms, 0u);
  EXPECT_EQ(hello->kernel.rfind("Linux ", 0), 0u);
  auto local = read_sysfs_topology("/");
  ASSERT_TRUE(local.ok()) << local.error().message;
  // Same machine, same sysfs: the agent's view must equal the host library's reading.
  EXPECT_EQ(hello->topology, topology_to_json(*local));
  EXPECT_EQ(hello->topology["cpus"].size(), local->cpus.size());
}

TEST(AgentOverUnix, PingAndTranscript) {
  AgentProcess agent;
  auto client = connect(agent);
  ASSERT_TRUE(client);
  std::ostringstream transcript;
  client->set_transcript(&transcript);
  auto ok = client->ping(5000ms);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_NE(transcript.str().find("> {\"id\":"), std::string::npos) << transcript.str();
  EXPECT_NE(transcript.str().find("< {\"id\":"), std::string::npos) << transcript.str();
  EXPECT_NE(transcript.str().find("\"type\":\"pong\""), std::string::npos);
  EXPECT_EQ(client->skipped_lines(), 0u);
}

TEST(AgentOverUnix, UnknownBenchmarkIsAnErrorReply) {
  AgentProcess agent;
  auto client = connect(agent);
  ASSERT_TRUE(client);
  auto r = client->run("no-such-benchmark", json::object(), 5000ms);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("agent error for request"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("no-such-benchmark"), std::string::npos);
  EXPECT_TRUE(client->ping(5000ms).ok()) << "the agent keeps serving after an error";
}

TEST(AgentOverUnix, BadInputGetsErrorsAndTheAgentKeepsServing) {
  AgentProcess agent;
  RawConnection raw(agent.socket());
  EXPECT_EQ(raw.next()["type"], "hello");
  raw.send(R"({"type":"bogus","id":5,"extra":1})"
           "\n");
  json e = raw.next();
  EXPECT_EQ(e["type"], "error");
  EXPECT_EQ(e["id"], 5);
  EXPECT_NE(e["message"].get<std::string>().find("unknown message type 'bogus'"),
            std::string::npos);
  raw.send("{not json\n");
  e = raw.next();
  EXPECT_EQ(e["type"], "error");
  EXPECT_TRUE(e["id"].is_null());
  raw.send("{\"type\":\"ping\",\"id\":\"\xC3\x28\"}\n");
  e = raw.next();
  EXPECT_NE(e["message"].get<std::string>().find("invalid UTF-8"), std::string::npos);
  raw.send(R"({"type":"run","id":6,"benchmark":["sqrt"]})"
           "\n");
  e = raw.next();
  EXPECT_EQ(e["id"], 6);
  EXPECT_NE(e["message"].get<std::string>().find("'benchmark' must be a string"),
            std::string::npos);
  raw.send(std::string(protocol::kMaxLineBytes + 100, 'a') + "\n");
  e = raw.next();
  EXPECT_NE(e["message"].get<std::string>().find("line longer than"), std::string::npos);
  // Half a line, then the resync sentinel: the half line is dropped, sync echoed, hello resent.
  raw.send(R"({"type":"ping","id":)" + protocol::sync_request_bytes(77));
  e = raw.next();
  EXPECT_EQ(e["type"], "sync");
  EXPECT_EQ(e["id"], 77);
  EXPECT_EQ(raw.next()["type"], "hello");
  raw.send(R"({"type":"ping","id":8})"
           "\n");
  e = raw.next();
  EXPECT_EQ(e["type"], "pong");
  EXPECT_EQ(e["id"], 8);
}

TEST(AgentOverUnix, ReconnectGetsAFreshHello) {
  AgentProcess agent;
  std::uint64_t first_uptime = 0;
  {
    auto c1 = connect(agent);
    ASSERT_TRUE(c1);
    auto h1 = c1->wait_hello(5000ms);
    ASSERT_TRUE(h1.ok()) << h1.error().message;
    first_uptime = h1->uptime_ms;
  }
  std::this_thread::sleep_for(20ms);
  auto c2 = connect(agent);
  ASSERT_TRUE(c2);
  auto h2 = c2->wait_hello(5000ms);
  ASSERT_TRUE(h2.ok()) << h2.error().message;
  EXPECT_GE(h2->uptime_ms, first_uptime);
  EXPECT_TRUE(c2->ping(5000ms).ok());
}

TEST(AgentOverUnix, ShutdownIsAcknowledgedAndTheAgentExits) {
  AgentProcess agent;
  auto client = connect(agent);
  ASSERT_TRUE(client);
  auto ok = client->shutdown();
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(agent.wait_exit(5000ms), 0);
  EXPECT_FALSE(std::filesystem::exists(agent.socket())) << "the agent removes its socket";
}

TEST(AgentOverUnix, GarbageLinesAreSkippedByTheClient) {
  AgentProcess agent({"--garbage"});
  auto client = connect(agent);
  ASSERT_TRUE(client);
  ASSERT_TRUE(client->ping(5000ms).ok());
  ASSERT_TRUE(client->ping(5000ms).ok());
  EXPECT_GE(client->skipped_lines(), 2u);
  EXPECT_NE(client->last_skip_reason().find("invalid UTF-8"), std::string::npos)
      << client->last_skip_reason();
}

TEST(AgentOverUnix, HangAfterMakesRequestsTimeOutWithinTheDeadline) {
  AgentProcess agent({"--hang-after", "1"});
  auto client = connect(agent);
  ASSERT_TRUE(client);
  ASSERT_TRUE(client->ping(5000ms).ok());
  const auto start = std::chrono::steady_clock::now();
  auto r = client->ping(300ms);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("timed out"), std::string::npos) << r.error().message;
  EXPECT_LT(took, 3s);
}

TEST(AgentOverUnix, RunReturnsTheResultWithTheLastPlacement) {
  AgentProcess agent;
  auto client = connect(agent);
  ASSERT_TRUE(client);
  auto before = client->run("sqrt", {{"n", 1000}, {"repeats", 1}}, 30000ms);
  ASSERT_TRUE(before.ok()) << before.error().message;
  EXPECT_EQ(before->benchmark, "sqrt");
  EXPECT_TRUE(before->details["checksum_ok"].get<bool>());
  EXPECT_FALSE(before->environment.contains("placement"));
  const json vcpus =
      json::array({{{"vcpu", 0}, {"host_cpus", "8"}}, {{"vcpu", 1}, {"host_cpus", "9-10"}}});
  const std::vector<protocol::VcpuMapping> mappings = {{0, *CpuList::parse("8")},
                                                       {1, *CpuList::parse("9-10")}};
  ASSERT_TRUE(client->send_placement(mappings).ok());
  auto after = client->run("sqrt", {{"n", 1000}, {"repeats", 1}}, 30000ms);
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(after->environment["placement"], vcpus);
  auto bad = client->run("sqrt", {{"n", "many"}}, 30000ms);
  EXPECT_FALSE(bad.ok()) << "the benchmark's parameter error comes back as an error reply";
}

TEST(AgentOverUnix, BadArgumentsExitNonZero) {
  AgentProcess agent({"--hang-after", "x"});
  EXPECT_EQ(agent.wait_exit(5000ms), 2);
}

}  // namespace
}  // namespace topolab
