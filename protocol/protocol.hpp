#pragma once
// Wire protocol between topolab (host) and topolab-agent (guest): JSON lines, one object per
// line, UTF-8, at most kMaxLineBytes bytes. Compiled into both sides; docs/protocol.md is the
// prose version of this file.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/cpu_list.hpp"
#include "common/result.hpp"
#include "protocol/benchmark_result.hpp"
#include "protocol/guest_settings.hpp"

namespace topolab::protocol {

// 2: hello.settings and configure/configured (guest OS settings, issue 25).
inline constexpr int kProtocolVersion = 2;
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;  // 1 MiB, both directions
// Resync sentinel (as in qemu-guest-agent): never valid in UTF-8, so it cannot occur inside a
// line. The host sends it before {"type":"sync","id":N}; the reader drops any partial line.
inline constexpr char kSyncByte = static_cast<char>(0xFF);

int protocol_version();

// Message type names.
namespace type {
inline constexpr std::string_view kHello = "hello";            // agent -> host, first message
inline constexpr std::string_view kRun = "run";                // host -> agent
inline constexpr std::string_view kResult = "result";          // agent -> host
inline constexpr std::string_view kError = "error";            // agent -> host
inline constexpr std::string_view kPing = "ping";              // host -> agent
inline constexpr std::string_view kPong = "pong";              // agent -> host
inline constexpr std::string_view kPlacement = "placement";    // host -> agent, no reply
inline constexpr std::string_view kShutdown = "shutdown";      // host -> agent
inline constexpr std::string_view kAck = "ack";                // agent -> host (shutdown)
inline constexpr std::string_view kSync = "sync";              // both ways, same id
inline constexpr std::string_view kConfigure = "configure";    // host -> agent
inline constexpr std::string_view kConfigured = "configured";  // agent -> host (configure)
}  // namespace type

// A decoded line: an object with a string "type" and, when present, a non-negative integer "id".
struct Message {
  std::string type;
  std::optional<std::uint64_t> id;
  nlohmann::json body;  // the whole object, unknown fields included (and ignored by parsers)
};

// ---- encoding -------------------------------------------------------------------------------
// One line: compact JSON + '\n'. Invalid UTF-8 in strings is replaced (U+FFFD), never thrown.
std::string encode(const nlohmann::json& message);
// The encoder both sides send through: refuses a message whose line (without '\n') would
// exceed kMaxLineBytes, because the receiver would discard it. The error names the message
// type and its size; the agent answers with it instead (an error reply under the cap).
Result<std::string> encode_line(const nlohmann::json& message);

// ---- decoding -------------------------------------------------------------------------------
// Checks UTF-8, JSON syntax, object shape, "type" string and "id" type. The line excludes '\n'.
Result<Message> decode(std::string_view line);
// Any JSON text from outside (a stored row): the same bounds as decode() (size, UTF-8, NUL,
// nesting depth), then parsed without exceptions; the value may be of any type.
Result<nlohmann::json> parse_json_text(std::string_view text,
                                       std::size_t max_bytes = kMaxLineBytes);
// Returns the byte offset of the first invalid UTF-8 sequence, or nullopt when valid.
std::optional<std::size_t> find_invalid_utf8(std::string_view text);

// ---- typed messages -------------------------------------------------------------------------
struct Hello {
  int protocol = kProtocolVersion;
  std::string agent_version;
  std::uint64_t uptime_ms = 0;
  std::string kernel;
  std::string cpu_model;
  nlohmann::json topology;     // topology_to_json of the guest's own sysfs (null if unreadable)
  std::string topology_error;  // why topology is null
  SettingStates settings;      // the guest settings this agent can change here (guest_settings)
};
// configure: the values to apply, each checked against its row (guest_settings.hpp).
struct ConfigureRequest {
  std::uint64_t id = 0;
  std::map<std::string, nlohmann::json> settings;
};
// configured: per requested name, the value read back after applying it, or its own error.
struct ConfigureReply {
  std::uint64_t id = 0;
  SettingStates settings;
};
struct RunRequest {
  std::uint64_t id = 0;
  std::string benchmark;
  nlohmann::json params = nlohmann::json::object();
};
struct VcpuMapping {
  int vcpu = -1;
  CpuList host_cpus;
};

nlohmann::json hello_message(const Hello&);
nlohmann::json run_message(std::uint64_t id, const std::string& benchmark,
                           const nlohmann::json& params);
nlohmann::json result_message(std::uint64_t id, const nlohmann::json& result);
// id empty: the error answers a line whose id could not be read.
nlohmann::json error_message(std::optional<std::uint64_t> id, const std::string& message);
nlohmann::json ping_message(std::uint64_t id);
nlohmann::json pong_message(std::uint64_t id);
nlohmann::json placement_message(const nlohmann::json& vcpus);
nlohmann::json placement_message(const std::vector<VcpuMapping>& vcpus);
nlohmann::json shutdown_message(std::uint64_t id);
nlohmann::json ack_message(std::uint64_t id, std::string_view request);
nlohmann::json sync_message(std::uint64_t id);
nlohmann::json configure_message(std::uint64_t id,
                                 const std::map<std::string, nlohmann::json>& settings);
nlohmann::json configured_message(std::uint64_t id, const SettingStates& settings);
// The bytes the host writes to resync: kSyncByte + encode(sync_message(id)).
std::string sync_request_bytes(std::uint64_t id);

// Parsers validate field types and sizes and reject unknown protocol versions; unknown fields are
// ignored. parse_hello bounds every string (kMaxNameBytes / kMaxTextBytes) and the topology
// (check_bounded_json); the host reads a hello only through it. A refusal is ErrorKind::input,
// but guest for what only the agent sends (hello, result, error, configured): the host that
// refuses one reports a failing guest, not bad input.
Result<Hello> parse_hello(const Message&);
Result<RunRequest> parse_run(const Message&);
// The "result" object, validated by validate_result (benchmark_result.hpp).
Result<BenchmarkResult> parse_result(const Message&);
Result<std::string> parse_error(const Message&);  // the "message" text
Result<std::vector<VcpuMapping>> parse_placement(const Message&);
Result<ConfigureRequest> parse_configure(const Message&);
Result<ConfigureReply> parse_configured(const Message&);
nlohmann::json placement_to_json(const std::vector<VcpuMapping>&);
// Requires the message to carry an id (ping, pong, shutdown, ack, sync).
Result<std::uint64_t> require_id(const Message&);

// True for types the agent understands from a host.
bool is_host_request(std::string_view type);

// ---- bounded line reader --------------------------------------------------------------------
// Splits a byte stream into lines of at most max_line bytes (without the '\n'). Partial reads
// are fine: feed() any chunk. An oversized line is discarded up to its '\n' and reported once.
// kSyncByte (when honoured) discards the pending partial line and is reported.
class LineReader {
 public:
  enum class Kind { kLine, kOversized, kSync };
  struct Event {
    Kind kind = Kind::kLine;
    std::string line;         // kLine: the line without '\n' (a trailing '\r' is removed)
    std::size_t dropped = 0;  // kOversized / kSync: bytes discarded so far
  };

  explicit LineReader(std::size_t max_line = kMaxLineBytes, bool honour_sync_byte = true);

  void feed(std::string_view bytes);
  std::optional<Event> next();  // nullopt: need more bytes
  void reset();                 // drop the partial line and queued events
  std::size_t pending_bytes() const { return partial_.size(); }

 private:
  void push_byte_run(std::string_view run);
  std::size_t max_line_;
  bool honour_sync_;
  std::string partial_;
  bool skipping_ = false;  // inside an oversized line: discard until '\n'
  std::vector<Event> queue_;
  std::size_t head_ = 0;
};

}  // namespace topolab::protocol
