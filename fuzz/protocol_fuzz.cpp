// Fuzzes the guest -> host wire path (protocol/protocol.hpp): the bounded LineReader fed in
// arbitrary chunks, then decode() and every typed parser on each line. A guest is untrusted.
// Beyond "no crash": lines never exceed the cap nor contain '\n'; the events do not depend on
// how the stream was chunked; a decoded message re-encodes to one line that decodes to the
// same type and id.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "protocol/protocol.hpp"

namespace {

namespace proto = topolab::protocol;
constexpr std::size_t kSmallCap = 512;  // small, so that oversized lines are reached often

struct Seen {
  proto::LineReader::Kind kind;
  std::string line;
  bool operator==(const Seen&) const = default;
};

std::vector<Seen> drain(proto::LineReader& reader) {
  std::vector<Seen> out;
  while (auto e = reader.next()) {
    if (e->line.size() > kSmallCap || e->line.find('\n') != std::string::npos) std::abort();
    out.push_back({e->kind, std::move(e->line)});
  }
  return out;
}

template <typename R>
void touch(const R& r) {
  if (!r.ok() && r.error().message.empty()) std::abort();  // an error says what is wrong
}

void check_line(const std::string& line) {
  auto msg = proto::decode(line);
  touch(msg);
  if (!msg.ok()) return;
  touch(proto::parse_hello(*msg));
  touch(proto::parse_run(*msg));
  touch(proto::parse_result(*msg));
  touch(proto::parse_error(*msg));
  touch(proto::parse_placement(*msg));
  touch(proto::parse_configure(*msg));
  touch(proto::parse_configured(*msg));
  touch(proto::require_id(*msg));
  (void)proto::is_host_request(msg->type);
  std::string encoded = proto::encode(msg->body);
  if (encoded.empty() || encoded.back() != '\n') std::abort();
  encoded.pop_back();
  if (encoded.find('\n') != std::string::npos) std::abort();
  auto again = proto::decode(encoded);
  if (!again.ok() || again->type != msg->type || again->id != msg->id) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const bool honour_sync = in.ConsumeBool();
  std::vector<std::size_t> chunk_sizes;
  for (int i = 0; i < 8; ++i) chunk_sizes.push_back(in.ConsumeIntegralInRange<std::size_t>(1, 700));
  const std::string stream = in.ConsumeRemainingBytesAsString();

  proto::LineReader whole(kSmallCap, honour_sync);
  whole.feed(stream);
  const std::vector<Seen> expected = drain(whole);

  proto::LineReader chunked(kSmallCap, honour_sync);
  std::vector<Seen> got;
  std::size_t pos = 0;
  for (std::size_t i = 0; pos < stream.size(); ++i) {
    std::size_t n = chunk_sizes[i % chunk_sizes.size()];
    chunked.feed(std::string_view(stream).substr(pos, n));
    pos += n;
    for (auto& s : drain(chunked)) got.push_back(std::move(s));
  }
  if (got != expected) std::abort();

  for (const auto& s : expected) {
    if (s.kind == proto::LineReader::Kind::kLine) check_line(s.line);
  }
  // The whole input as one line too: lines up to kMaxLineBytes reach decode() in production,
  // far longer than the small cap above lets through.
  check_line(stream);
  return 0;
}
