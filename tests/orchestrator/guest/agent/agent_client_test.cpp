// AgentClient against a scripted, hostile fake agent (a thread on a UNIX socket): everything the
// guest sends is untrusted, every wait is bounded.
#include "orchestrator/guest/agent/agent_client.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <sstream>
#include <thread>

namespace topolab {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Accepts one client and runs script(fd). Helpers read the host's lines.
class FakeAgent {
 public:
  explicit FakeAgent(std::function<void(FakeAgent&)> script) {
    char tmpl[] = "/tmp/topolab-client-test-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    path_ = dir_ + "/agent.sock";
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path_.c_str(), sizeof(a.sun_path) - 1);
    EXPECT_EQ(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    EXPECT_EQ(::listen(listen_fd_, 1), 0);
    thread_ = std::thread([this, script] {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 5000) <= 0) return;
      fd_ = ::accept(listen_fd_, nullptr, nullptr);
      if (fd_ >= 0) script(*this);
    });
  }
  ~FakeAgent() {
    stop_ = true;
    thread_.join();
    if (fd_ >= 0) ::close(fd_);
    ::close(listen_fd_);
    ::unlink(path_.c_str());
    ::rmdir(dir_.c_str());
  }
  const std::string& path() const { return path_; }

  void send(const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return;
      done += static_cast<std::size_t>(n);
    }
  }
  void send_json(const json& j) { send(protocol::encode(j)); }
  // The next line from the host (0xFF honoured), or a null json after 5 s / stop.
  json next() {
    const auto deadline = Clock::now() + 5s;
    while (!stop_ && Clock::now() < deadline) {
      while (auto e = reader_.next()) {
        if (e->kind != protocol::LineReader::Kind::kLine) continue;
        auto m = protocol::decode(e->line);
        if (m) return m->body;
      }
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      char buf[4096];
      ssize_t n = ::read(fd_, buf, sizeof(buf));
      if (n <= 0) return json();
      reader_.feed(std::string_view(buf, static_cast<std::size_t>(n)));
    }
    return json();
  }
  // Waits for the client's sync and answers it.
  void answer_sync() {
    json s = next();
    if (s.is_object() && s["type"] == "sync") send_json(protocol::sync_message(s["id"]));
  }
  void close_client() {
    ::close(fd_);
    fd_ = -1;
  }
  void idle() {
    while (!stop_) std::this_thread::sleep_for(10ms);
  }

  static json hello(int protocol_version = protocol::kProtocolVersion) {
    protocol::Hello h;
    h.agent_version = "fake";
    h.uptime_ms = 1;
    h.kernel = "Linux fake";
    h.cpu_model = "fake";
    h.topology = json::object();
    json j = protocol::hello_message(h);
    j["protocol"] = protocol_version;
    return j;
  }

 private:
  std::string dir_, path_;
  int listen_fd_ = -1;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  protocol::LineReader reader_;
};

// A connected client writing its transcript to `out` (nullptr when connecting failed).
std::unique_ptr<AgentClient> connect_logged(const FakeAgent& agent, std::ostream& out) {
  auto c = AgentClient::connect_unix(agent.path(), 5s);
  EXPECT_TRUE(c.ok()) << c.error().message;
  if (!c.ok()) return nullptr;
  (*c)->set_transcript(&out);
  return std::move(*c);
}

TEST(AgentClient, StaleLinesBeforeTheSyncReplyAreDiscarded) {
  FakeAgent agent([](FakeAgent& a) {
    // Leftovers of an earlier session: a half line, a stale result, junk.
    a.send("{\"type\":\"result\",\"id\":1,\"res");
    a.send("\n{\"type\":\"pong\",\"id\":1}\nnot json at all\n");
    a.send_json(FakeAgent::hello());
    a.answer_sync();
    json ping = a.next();
    a.send_json(protocol::pong_message(ping["id"]));
    a.idle();
  });
  std::ostringstream transcript;
  auto c = connect_logged(agent, transcript);
  ASSERT_NE(c, nullptr);
  auto hello = c->wait_hello(1s);
  ASSERT_TRUE(hello.ok()) << hello.error().message;
  EXPECT_EQ(hello->agent_version, "fake");
  ASSERT_TRUE(c->ping(2s).ok());
  EXPECT_GE(c->skipped_lines(), 2u);
  EXPECT_NE(transcript.str().find("> {\"id\":"), std::string::npos);
}

TEST(AgentClient, UnknownProtocolVersionIsRejected) {
  FakeAgent agent([](FakeAgent& a) {
    a.send_json(FakeAgent::hello(99));
    a.answer_sync();
    a.idle();
  });
  auto c = AgentClient::connect_unix(agent.path(), 5s);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto hello = (*c)->wait_hello(1s);
  ASSERT_FALSE(hello.ok());
  EXPECT_NE(hello.error().message.find("unsupported protocol version 99"), std::string::npos)
      << hello.error().message;
}

TEST(AgentClient, SilentAgentMeansABoundedConnectFailure) {
  FakeAgent agent([](FakeAgent& a) { a.idle(); });
  const auto start = Clock::now();
  auto c = AgentClient::connect_unix(agent.path(), 400ms);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("no sync reply"), std::string::npos) << c.error().message;
  EXPECT_LT(Clock::now() - start, 4s);  // 10x the timeout: bounded, on a loaded machine too
}

// Issue 17: a freshly booted guest's agent says hello first; a hello-first client sends nothing
// before it, so the agent's next request is the host's own (no queued sync to answer first).
TEST(AgentClient, HelloFirstSendsNoSyncAndTakesTheAgentsOwnHello) {
  std::atomic<bool> first_was_ping{false};
  FakeAgent agent([&](FakeAgent& a) {
    std::this_thread::sleep_for(200ms);  // the guest still booting
    a.send("not json, a console echo\n");
    a.send_json(FakeAgent::hello());
    json first = a.next();  // a sync here would be answered (and cost a hello) before the ping
    first_was_ping = first.is_object() && first["type"] == "ping";
    if (first_was_ping) a.send_json(protocol::pong_message(first["id"]));
    a.idle();
  });
  auto c = AgentClient::connect_unix(agent.path(), 5s, AgentClient::Sync::kHelloFirst);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto hello = (*c)->wait_hello(2s);
  ASSERT_TRUE(hello.ok()) << hello.error().message;
  EXPECT_EQ(hello->agent_version, "fake");
  ASSERT_TRUE((*c)->ping(2s).ok());
  EXPECT_TRUE(first_was_ping.load()) << "the client sent something before its ping";
  EXPECT_EQ((*c)->skipped_lines(), 1u);
}

TEST(AgentClient, HelloFirstWaitIsBoundedWhenTheAgentNeverSpeaks) {
  FakeAgent agent([](FakeAgent& a) { a.idle(); });
  auto c = AgentClient::connect_unix(agent.path(), 5s, AgentClient::Sync::kHelloFirst);
  ASSERT_TRUE(c.ok()) << c.error().message;
  const auto start = Clock::now();
  EXPECT_FALSE((*c)->wait_hello(300ms).ok());
  EXPECT_LT(Clock::now() - start, 3s);  // 10x the timeout
}

TEST(AgentClient, MissingSocketFailsWithinTheTimeout) {
  const auto start = Clock::now();
  auto c = AgentClient::connect_unix("/tmp/topolab-no-such-dir/agent.sock", 200ms);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("cannot connect"), std::string::npos);
  EXPECT_LT(Clock::now() - start, 3s);
}

TEST(AgentClient, OversizedAndInvalidLinesAreSkippedNotTrusted) {
  FakeAgent agent([](FakeAgent& a) {
    a.answer_sync();
    json ping = a.next();
    a.send(std::string(protocol::kMaxLineBytes + 10, '{') + "\n");
    a.send("{\"type\":\"pong\",\"id\":\"\xC3\x28\"}\n");
    a.send(R"({"type":"pong","id":-4})"
           "\n");
    a.send_json(protocol::pong_message(ping["id"]));
    a.idle();
  });
  auto c = AgentClient::connect_unix(agent.path(), 5s);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto ok = (*c)->ping(5s);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ((*c)->skipped_lines(), 3u);
}

TEST(AgentClient, ErrorRepliesAndWrongReplyTypesBecomeErrors) {
  FakeAgent agent([](FakeAgent& a) {
    a.answer_sync();
    json run = a.next();
    a.send_json(protocol::error_message(run["id"].get<std::uint64_t>(), "no such benchmark"));
    json ping = a.next();
    a.send_json(protocol::result_message(ping["id"], json::object()));
    json run2 = a.next();
    a.send_json(json{{"type", "result"}, {"id", run2["id"]}, {"result", "not an object"}});
    a.idle();
  });
  auto c = AgentClient::connect_unix(agent.path(), 5s);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto r = (*c)->run("x", json::object(), 2s);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no such benchmark"), std::string::npos);
  auto p = (*c)->ping(2s);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("with 'result', expected 'pong'"), std::string::npos)
      << p.error().message;
  auto r2 = (*c)->run("x", json::object(), 2s);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("'result' must be an object"), std::string::npos);
}

// Issue 12, class 1: the result is validated at receipt; a bad one fails only its request.
TEST(AgentClient, AMalformedResultIsAnErrorOfThatRunOnly) {
  const json valid = json::parse(R"({"benchmark":"sqrt","params":{},"metric":"time","unit":"s",
      "lower_is_better":true,"samples":[2.0],"summary":{"n":1,"median":2.0},"environment":{},
      "details":null})");
  FakeAgent agent([&](FakeAgent& a) {
    a.answer_sync();
    json bad = valid;
    bad["unit"] = 5;
    a.send_json(protocol::result_message(a.next()["id"], bad));
    a.send_json(protocol::result_message(a.next()["id"], valid));
    a.idle();
  });
  auto c = AgentClient::connect_unix(agent.path(), 5s);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto r = (*c)->run("sqrt", json::object(), 2s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "run sqrt: guest result: field 'unit': expected a string, got number 5");
  auto again = (*c)->run("sqrt", json::object(), 2s);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->unit, "s");
  EXPECT_DOUBLE_EQ(protocol::result_value(*again), 2.0);
}

TEST(AgentClient, AHelloWithAWrongFieldTypeIsRefused) {
  FakeAgent agent([](FakeAgent& a) {
    json hello = FakeAgent::hello();
    hello["topology_error"] = 12;
    a.send_json(hello);
    a.answer_sync();
    a.idle();
  });
  auto c = AgentClient::connect_unix(agent.path(), 5s);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto hello = (*c)->wait_hello(1s);
  ASSERT_FALSE(hello.ok());
  EXPECT_NE(hello.error().message.find("field 'topology_error' must be a string, got number"),
            std::string::npos)
      << hello.error().message;
}

TEST(AgentClient, AgentClosingIsReportedAtOnce) {
  FakeAgent agent([](FakeAgent& a) {
    a.answer_sync();
    a.next();
    a.close_client();
  });
  auto c = AgentClient::connect_unix(agent.path(), 5s);
  ASSERT_TRUE(c.ok()) << c.error().message;
  const auto start = Clock::now();
  auto p = (*c)->ping(10s);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("closed the connection"), std::string::npos)
      << p.error().message;
  EXPECT_LT(Clock::now() - start, 3s) << "EOF must not wait for the deadline";
}

TEST(AgentClient, AFloodOfJunkLinesEndsTheWaitLongBeforeItsDeadline) {
  FakeAgent agent([](FakeAgent& a) {
    a.answer_sync();
    a.next();  // the ping: never answered, junk instead
    std::string junk;
    for (int i = 0; i < 1000; ++i) junk += "\x01junk {not json\n";
    for (std::uint64_t sent = 0; sent <= AgentClient::kMaxSkippedPerWait + 2000; sent += 1000)
      a.send(junk);
    a.idle();
  });
  auto c = AgentClient::connect_unix(agent.path(), 5s);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto p = (*c)->ping(600s);  // only the junk limit can end this wait in time
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("gave up waiting for 'pong'"), std::string::npos)
      << p.error().message;
  EXPECT_NE(p.error().message.find("more than 10000 unreadable lines"), std::string::npos);
  EXPECT_GT((*c)->skipped_lines(), AgentClient::kMaxSkippedPerWait);
}

TEST(AgentClient, TheTranscriptOfAFloodingGuestIsBounded) {
  const std::string big(60 * 1024, 'x');  // a valid-length line of junk, logged up to 64 KiB
  const int lines = static_cast<int>(AgentClient::kMaxTranscriptBytes / big.size()) + 50;
  FakeAgent agent([&](FakeAgent& a) {
    a.answer_sync();
    json ping = a.next();
    for (int i = 0; i < lines; ++i) a.send(big + "\n");
    a.send_json(protocol::pong_message(ping["id"]));
    a.idle();
  });
  std::ostringstream transcript;
  auto c = connect_logged(agent, transcript);
  ASSERT_NE(c, nullptr);
  auto p = c->ping(60s);
  ASSERT_TRUE(p.ok()) << p.error().message;  // the answer still arrives after the junk
  const std::string t = transcript.str();
  EXPECT_LE(t.size(), AgentClient::kMaxTranscriptBytes + 70 * 1024);
  EXPECT_NE(t.find("[transcript stops here"), std::string::npos);
}

// Issue 16: a remote guest's channel is the local end of a libvirt stream bridge (a socketpair):
// the client adopts the connected socket, and an end-of-file carries the bridge's reason (which
// names the host) in the error.
TEST(AgentClient, AnAdoptedSocketWorksAndItsCloseReasonIsReported) {
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
  OwnedFd guest(pair[1]);
  const std::string hello = protocol::encode_line(FakeAgent::hello()).value();
  ASSERT_EQ(::write(guest.get(), hello.data(), hello.size()), static_cast<ssize_t>(hello.size()));
  auto c = AgentClient::adopt(OwnedFd(pair[0]), "bridge", 2s, AgentClient::Sync::kHelloFirst);
  ASSERT_TRUE(c.ok()) << c.error().message;
  (*c)->set_close_reason([] { return std::string("stream on qemu+tcp://box/system: lost"); });
  auto h = (*c)->wait_hello(2s);
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->agent_version, "fake");
  guest.reset();  // the bridge shut its end down
  const auto start = Clock::now();
  auto p = (*c)->ping(10s);
  ASSERT_FALSE(p.ok());
  // The write or the wait sees it first; either way the bridge's reason is in the error.
  EXPECT_NE(p.error().message.find("(stream on qemu+tcp://box/system: lost)"), std::string::npos)
      << p.error().message;
  EXPECT_LT(Clock::now() - start, 3s);
}

TEST(AgentClient, AdoptingNoSocketIsRefused) {
  auto c = AgentClient::adopt(OwnedFd(), "bridge", 1s);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("bridge: no socket"), std::string::npos) << c.error().message;
}

}  // namespace
}  // namespace topolab
