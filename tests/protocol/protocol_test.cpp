#include "protocol/protocol.hpp"

#include <gtest/gtest.h>

#include <string>

namespace topolab::protocol {
namespace {

using nlohmann::json;

Message decode_ok(std::string_view line) {
  auto m = decode(line);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? *m : Message{};
}

std::string decode_error(std::string_view line) {
  auto m = decode(line);
  EXPECT_FALSE(m.ok()) << "decoded: " << std::string(line.substr(0, 80));
  return m.ok() ? "" : m.error().message;
}

std::string strip_newline(std::string s) {
  EXPECT_FALSE(s.empty());
  EXPECT_EQ(s.back(), '\n');
  s.pop_back();
  return s;
}

TEST(Protocol, EncodeIsOneLineAndRoundTrips) {
  const json run = run_message(7, "sqrt", {{"n", 1000}, {"text", "a\nb"}});
  const std::string line = encode(run);
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "newlines inside strings must be escaped";
  Message m = decode_ok(strip_newline(line));
  EXPECT_EQ(m.type, "run");
  ASSERT_TRUE(m.id.has_value());
  EXPECT_EQ(*m.id, 7u);
  auto req = parse_run(m);
  ASSERT_TRUE(req.ok()) << req.error().message;
  EXPECT_EQ(req->benchmark, "sqrt");
  EXPECT_EQ(req->params["n"], 1000);
  EXPECT_EQ(req->params["text"], "a\nb");
}

TEST(Protocol, EncodeReplacesInvalidUtf8InsteadOfThrowing) {
  const std::string line = encode(error_message(1, std::string("bad \xC3\x28 byte")));
  EXPECT_FALSE(find_invalid_utf8(line).has_value());
  auto m = decode(strip_newline(line));
  ASSERT_TRUE(m.ok()) << m.error().message;
}

TEST(Protocol, HelloRoundTripsAndChecksVersion) {
  Hello h;
  h.agent_version = "0.1.0";
  h.uptime_ms = 4321;
  h.kernel = "Linux 6.1";
  h.cpu_model = "QEMU";
  h.topology = {{"cpus", json::array()}};
  Message m = decode_ok(strip_newline(encode(hello_message(h))));
  auto back = parse_hello(m);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->protocol, kProtocolVersion);
  EXPECT_EQ(back->uptime_ms, 4321u);
  EXPECT_EQ(back->topology, h.topology);

  json future = hello_message(h);
  future["protocol"] = kProtocolVersion + 1;
  auto rejected = parse_hello(decode_ok(future.dump()));
  ASSERT_FALSE(rejected.ok());
  EXPECT_NE(rejected.error().message.find("unsupported protocol version " +
                                          std::to_string(kProtocolVersion + 1)),
            std::string::npos)
      << rejected.error().message;

  json old = hello_message(h);
  old["protocol"] = 0;
  EXPECT_FALSE(parse_hello(decode_ok(old.dump())).ok());
  // Version 1 (before guest settings, issue 25) is refused by name.
  old["protocol"] = 1;
  auto v1 = parse_hello(decode_ok(old.dump()));
  ASSERT_FALSE(v1.ok());
  EXPECT_NE(v1.error().message.find("unsupported protocol version 1 (this side speaks 2)"),
            std::string::npos)
      << v1.error().message;
  // Issue 32: read as an int, 2^32 + 2 was version 2 (accepted) and 2^64 - 1 was -1.
  for (const char* text : {"4294967298", "18446744073709551615", "-4294967294"}) {
    json wide = hello_message(h);
    wide["protocol"] = json::parse(text);
    auto r = parse_hello(decode_ok(wide.dump()));
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.error().message.find(std::string("unsupported protocol version ") + text),
              std::string::npos)
        << r.error().message;
  }
}

TEST(Protocol, UnknownFieldsAreIgnored) {
  json run = run_message(3, "sqrt", json::object());
  run["future_field"] = {{"nested", true}};
  auto req = parse_run(decode_ok(run.dump()));
  ASSERT_TRUE(req.ok()) << req.error().message;
  EXPECT_EQ(req->id, 3u);
}

TEST(Protocol, WrongTypesAreRejectedWithTheFieldName) {
  EXPECT_NE(decode_error(R"({"type":5})").find("'type' must be a string"), std::string::npos);
  EXPECT_NE(decode_error(R"({"id":1})").find("missing"), std::string::npos);
  EXPECT_NE(decode_error(R"({"type":"ping","id":-1})").find("'id' must be a non-negative"),
            std::string::npos);
  EXPECT_NE(decode_error(R"({"type":"ping","id":"1"})").find("'id'"), std::string::npos);
  EXPECT_NE(decode_error(R"({"type":"ping","id":1.5})").find("'id'"), std::string::npos);
  EXPECT_NE(decode_error(R"([1,2])").find("expected a JSON object"), std::string::npos);

  auto bench = parse_run(decode_ok(R"({"type":"run","id":1,"benchmark":7})"));
  ASSERT_FALSE(bench.ok());
  EXPECT_NE(bench.error().message.find("'benchmark' must be a string, got number"),
            std::string::npos)
      << bench.error().message;
  auto params = parse_run(decode_ok(R"({"type":"run","id":1,"benchmark":"x","params":[1]})"));
  ASSERT_FALSE(params.ok());
  EXPECT_NE(params.error().message.find("'params' must be an object"), std::string::npos);
  EXPECT_FALSE(parse_run(decode_ok(R"({"type":"run","benchmark":"x"})")).ok()) << "id required";

  auto hello = parse_hello(decode_ok(R"({"type":"hello","protocol":"1"})"));
  ASSERT_FALSE(hello.ok());
  EXPECT_NE(hello.error().message.find("'protocol'"), std::string::npos);

  auto placement =
      parse_placement(decode_ok(R"({"type":"placement","vcpus":[{"vcpu":0,"host_cpus":8}]})"));
  ASSERT_FALSE(placement.ok());
  EXPECT_NE(placement.error().message.find("vcpus[0].host_cpus"), std::string::npos);
  EXPECT_FALSE(
      parse_placement(decode_ok(R"({"type":"placement","vcpus":[{"vcpu":0,"host_cpus":"x"}]})"))
          .ok());
  EXPECT_FALSE(parse_result(decode_ok(R"({"type":"result","id":1,"result":"x"})")).ok());
}

// The agent reads what the host sends (input); the host reads what only the agent sends, and a
// refusal there is the guest's failure (ErrorKind::guest, exit 76), not the user's bad input.
TEST(Protocol, RefusalsHaveTheKindOfWhoSentTheMessage) {
  EXPECT_TRUE(decode("{").error().is(ErrorKind::input));
  auto run = parse_run(decode_ok(R"({"type":"run","id":1,"benchmark":7})"));
  EXPECT_TRUE(run.error().is(ErrorKind::input)) << to_string(run.error().kind);
  auto placement = parse_placement(decode_ok(R"({"type":"placement","vcpus":[7]})"));
  EXPECT_TRUE(placement.error().is(ErrorKind::input)) << to_string(placement.error().kind);

  auto hello = parse_hello(decode_ok(R"({"type":"hello","protocol":"1"})"));
  EXPECT_TRUE(hello.error().is(ErrorKind::guest)) << to_string(hello.error().kind);
  auto result = parse_result(decode_ok(R"({"type":"result","id":1,"result":"x"})"));
  EXPECT_TRUE(result.error().is(ErrorKind::guest)) << to_string(result.error().kind);
  auto error = parse_error(decode_ok(R"({"type":"error","id":1,"message":5})"));
  EXPECT_TRUE(error.error().is(ErrorKind::guest)) << to_string(error.error().kind);
  auto configured = parse_configured(decode_ok(R"({"type":"configured","id":1})"));
  EXPECT_TRUE(configured.error().is(ErrorKind::guest)) << to_string(configured.error().kind);
}

TEST(Protocol, PlacementRoundTrips) {
  std::vector<VcpuMapping> v = {{0, CpuList{8}}, {1, CpuList{9, 10}}};
  auto back = parse_placement(decode_ok(encode(placement_message(v))));
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[1].vcpu, 1);
  EXPECT_EQ((*back)[1].host_cpus.to_string(), "9-10");
}

TEST(Protocol, TruncatedLinesAreNotJson) {
  const std::string full = strip_newline(encode(run_message(1, "sqrt", {{"n", 5}})));
  for (std::size_t cut : {std::size_t{1}, full.size() / 2, full.size() - 1}) {
    EXPECT_NE(decode_error(full.substr(0, cut)).find("not valid JSON"), std::string::npos);
  }
}

TEST(Protocol, InvalidUtf8IsRejectedWithItsOffset) {
  EXPECT_FALSE(find_invalid_utf8("plain ascii").has_value());
  EXPECT_FALSE(find_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80").has_value());
  EXPECT_EQ(find_invalid_utf8("ab\xC3\x28"), 2u);        // bad continuation
  EXPECT_EQ(find_invalid_utf8("\xC0\xAF"), 0u);          // overlong '/'
  EXPECT_EQ(find_invalid_utf8("x\xED\xA0\x80"), 1u);     // UTF-16 surrogate
  EXPECT_EQ(find_invalid_utf8("\xF5\x80\x80\x80"), 0u);  // beyond U+10FFFF
  EXPECT_EQ(find_invalid_utf8("abc\xE2\x82"), 3u);       // truncated sequence
  EXPECT_EQ(find_invalid_utf8("\xFF"), 0u);
  const std::string err = decode_error("{\"type\":\"ping\",\"id\":1,\"x\":\"\xC3\x28\"}");
  EXPECT_NE(err.find("invalid UTF-8 at byte 27"), std::string::npos) << err;
}

TEST(Protocol, DecodeRefusesLinesOverTheLimit) {
  std::string big = R"({"type":"ping","id":1,"pad":")";
  big.append(kMaxLineBytes, 'a');
  big += "\"}";
  EXPECT_NE(decode_error(big).find("exceeds the limit"), std::string::npos);
}

TEST(Protocol, EncodeLineRefusesWhatTheReceiverWouldDiscard) {
  // Pad so the encoded line (without '\n') is exactly the cap, then one byte more.
  json m = {{"type", "result"}, {"id", 3}, {"pad", ""}};
  const std::size_t base = encode(m).size() - 1;
  m["pad"] = std::string(kMaxLineBytes - base, 'a');
  auto fits = encode_line(m);
  ASSERT_TRUE(fits.ok()) << fits.error().message;
  EXPECT_EQ(fits->size(), kMaxLineBytes + 1);  // the cap plus '\n'
  LineReader r;
  r.feed(*fits);
  auto e = r.next();
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, LineReader::Kind::kLine) << "the receiver accepts a line at the cap";
  m["pad"] = std::string(kMaxLineBytes - base + 1, 'a');
  auto over = encode_line(m);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("'result' of 1048577 bytes exceeds the protocol's line cap "
                                      "of 1048576 bytes; not sent"),
            std::string::npos)
      << over.error().message;
}

std::vector<LineReader::Event> drain(LineReader& r) {
  std::vector<LineReader::Event> out;
  while (auto e = r.next()) out.push_back(std::move(*e));
  return out;
}

TEST(LineReader, HandlesPartialReadsByteByByte) {
  LineReader r;
  const std::string input = "{\"a\":1}\r\n\n{\"b\":2}\n{\"c\":";
  for (char c : input) r.feed(std::string_view(&c, 1));
  auto ev = drain(r);
  ASSERT_EQ(ev.size(), 2u) << "empty lines are skipped, the partial line is kept";
  EXPECT_EQ(ev[0].line, "{\"a\":1}") << "CR is stripped";
  EXPECT_EQ(ev[1].line, "{\"b\":2}");
  EXPECT_EQ(r.pending_bytes(), 5u);
  r.feed("3}\n");
  ev = drain(r);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].line, "{\"c\":3}");
}

TEST(LineReader, DiscardsAnOversizedLineOnceAndRecovers) {
  LineReader r(16);
  r.feed(std::string(10, 'x'));
  r.feed(std::string(10, 'y'));  // now 20 > 16: reported now, not at the newline
  auto ev = drain(r);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, LineReader::Kind::kOversized);
  EXPECT_EQ(ev[0].dropped, 20u);
  EXPECT_EQ(r.pending_bytes(), 0u) << "memory stays bounded";
  r.feed(std::string(100, 'z'));
  EXPECT_TRUE(drain(r).empty()) << "the rest of the oversized line is skipped silently";
  r.feed("tail\nok\n");
  ev = drain(r);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].line, "ok");
}

TEST(LineReader, LineOfExactlyTheLimitIsAccepted) {
  LineReader r(8);
  r.feed("12345678\n123456789\nend\n");
  auto ev = drain(r);
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].line, "12345678");
  EXPECT_EQ(ev[1].kind, LineReader::Kind::kOversized);
  EXPECT_EQ(ev[2].line, "end");
}

TEST(LineReader, SyncByteDropsThePartialLine) {
  LineReader r;
  r.feed("{\"type\":\"run\",\"id\":4,\"bench");  // half a line from a host that went away
  r.feed(sync_request_bytes(42));
  auto ev = drain(r);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, LineReader::Kind::kSync);
  EXPECT_GT(ev[0].dropped, 0u);
  ASSERT_EQ(ev[1].kind, LineReader::Kind::kLine);
  Message m = decode_ok(ev[1].line);
  EXPECT_EQ(m.type, "sync");
  EXPECT_EQ(m.id, 42u);
}

TEST(LineReader, SyncByteEndsAnOversizedLine) {
  LineReader r(8);
  r.feed(std::string(20, 'x'));
  r.feed(sync_request_bytes(1));
  auto ev = drain(r);
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].kind, LineReader::Kind::kOversized);
  EXPECT_EQ(ev[1].kind, LineReader::Kind::kSync);
  EXPECT_EQ(ev[2].kind, LineReader::Kind::kOversized) << "the sync line itself is 22 bytes > 8";
}

TEST(LineReader, WithoutSyncHonourTheByteStaysAndDecodeRejectsIt) {
  LineReader r(kMaxLineBytes, /*honour_sync_byte=*/false);
  r.feed("ab\xFF{\"type\":\"pong\",\"id\":1}\n");
  auto ev = drain(r);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_NE(decode_error(ev[0].line).find("invalid UTF-8 at byte 2"), std::string::npos);
}

TEST(Protocol, HostRequestTypes) {
  for (auto t : {"run", "ping", "placement", "shutdown", "sync"}) EXPECT_TRUE(is_host_request(t));
  for (auto t : {"hello", "result", "pong", "ack", "error", "bogus"}) {
    EXPECT_FALSE(is_host_request(t));
  }
}

}  // namespace
}  // namespace topolab::protocol
