// The sans-IO agent core with a platform whose answers are too large for one line: the hello
// still goes out, under the cap, with the reason instead of the topology.
#include <gtest/gtest.h>

#include <sstream>

#include "guest-agent/agent.hpp"

namespace topolab::agent {
namespace {

// The real Linux platform, except that the topology it reports does not fit in a line (a guest
// with ~10 000 vCPUs).
class HugeTopologyPlatform : public Platform {
 public:
  std::uint64_t uptime_ms() override { return real_->uptime_ms(); }
  std::string kernel() override { return std::string(100000, 'k'); }  // cut to 256
  std::string cpu_model() override { return real_->cpu_model(); }
  Result<HostTopology> read_topology() override { return real_->read_topology(); }
  nlohmann::json topology_json(const HostTopology&) override {
    return nlohmann::json{{"padding", std::string(protocol::kMaxLineBytes, 'x')}};
  }
  bool is_init() override { return false; }
  void early_init(const std::string&, std::ostream&) override {}
  void power_off(bool) override {}

 private:
  std::unique_ptr<Platform> real_ = make_platform();
};

TEST(AgentCore, AHelloOverTheCapIsSentWithoutTheTopologyAndSaysWhy) {
  HugeTopologyPlatform platform;
  std::ostringstream log;
  Agent agent(platform, AgentOptions{}, log);
  const std::string line = agent.hello_line();
  ASSERT_LE(line.size() - 1, protocol::kMaxLineBytes);
  auto m = protocol::decode(std::string_view(line).substr(0, line.size() - 1));
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto hello = protocol::parse_hello(*m);
  ASSERT_TRUE(hello.ok()) << hello.error().message;
  EXPECT_TRUE(hello->topology.is_null());
  EXPECT_NE(hello->topology_error.find("guest topology not sent: 'hello' of"), std::string::npos)
      << hello->topology_error;
  EXPECT_NE(hello->topology_error.find("line cap"), std::string::npos);
  EXPECT_EQ(hello->kernel.size(), 256u);
}

TEST(AgentCore, ARunReplyOverTheCapBecomesAnErrorWithTheSameId) {
  auto platform = make_platform();
  std::ostringstream log;
  Agent agent(*platform, AgentOptions{}, log);
  // A placement line just under the cap; the next result echoes it.
  std::string placement = R"({"type":"placement","vcpus":[)";
  while (placement.size() + 60 < protocol::kMaxLineBytes)
    placement += R"({"vcpu":1,"host_cpus":"1"},)";
  placement += R"({"vcpu":1,"host_cpus":"1"}]})";
  ASSERT_LE(placement.size(), protocol::kMaxLineBytes);
  EXPECT_TRUE(agent.on_line(placement).bytes.empty());
  auto out =
      agent.on_line(R"({"type":"run","id":42,"benchmark":"sqrt","params":{"n":100,"repeats":20}})");
  ASSERT_FALSE(out.bytes.empty());
  ASSERT_LE(out.bytes.size() - 1, protocol::kMaxLineBytes);
  auto m = protocol::decode(std::string_view(out.bytes).substr(0, out.bytes.size() - 1));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->type, "error");
  EXPECT_EQ(m->id, 42u);
  EXPECT_NE(m->body["message"].get<std::string>().find("'result' of"), std::string::npos);
}

}  // namespace
}  // namespace topolab::agent
