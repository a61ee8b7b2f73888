#pragma once
// Host side of the agent protocol over a UNIX socket: libvirt's virtio-serial channel socket,
// QEMU's chardev socket, or `topolab-agent --unix PATH`. Everything the guest sends is
// untrusted: lines are bounded (protocol::kMaxLineBytes), every wait has a deadline, and
// unreadable lines are skipped (and counted), never trusted.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <string>

#include "common/owned_fd.hpp"
#include "common/result.hpp"
#include "protocol/protocol.hpp"

namespace topolab {

class AgentClient {
 public:
  // Connects (retrying until the socket accepts, within timeout) and resyncs: sends
  // 0xFF + {"type":"sync","id":N} and discards every line until the agent echoes that sync.
  // A hello seen while discarding is kept for wait_hello().
  // kHelloFirst (a guest booted just now, whose agent is of this tree): no sync is sent; the
  // caller's wait_hello() takes the agent's own hello, its first line (the agent says hello only
  // once the host side of its port is connected, and this client is the first on a new domain's
  // socket). Issue 17: every sync the agent finds queued costs it another hello (a topology
  // re-read, 0.1-1.7 s under TCG) before it answers the next request.
  enum class Sync { kResync, kHelloFirst };
  static Result<std::unique_ptr<AgentClient>> connect_unix(const std::filesystem::path& socket,
                                                           std::chrono::milliseconds timeout,
                                                           Sync sync = Sync::kResync);
  // The same over TCP to 127.0.0.1:port: the Windows agent's test transport (`topolab-agent.exe
  // --tcp PORT`; wine 8 has no AF_UNIX sockets). Loopback only: the protocol is unauthenticated.
  static Result<std::unique_ptr<AgentClient>> connect_tcp_loopback(
      std::uint16_t port, std::chrono::milliseconds timeout);
  // An already connected stream socket: the local end of a StreamBridge (virt/stream_bridge.hpp),
  // the channel of a guest on a remote host reached through libvirt. `what` names it in errors.
  static Result<std::unique_ptr<AgentClient>> adopt(OwnedFd fd, const std::string& what,
                                                    std::chrono::milliseconds timeout,
                                                    Sync sync = Sync::kResync);
  ~AgentClient();
  AgentClient(const AgentClient&) = delete;
  AgentClient& operator=(const AgentClient&) = delete;

  // The agent's hello, typed and validated (protocol version, field types and sizes). Returns
  // the stored one if it has already arrived.
  Result<protocol::Hello> wait_hello(std::chrono::milliseconds timeout);
  // Runs one benchmark; returns the reply's result, validated at receipt (validate_result): a
  // malformed result is an error of this run, never a JSON value read later by assumption.
  Result<protocol::BenchmarkResult> run(const std::string& benchmark, const nlohmann::json& params,
                                        std::chrono::milliseconds timeout);
  // Tells the agent which host CPUs back each vCPU ([{"vcpu":0,"host_cpus":"8"}, ...]);
  // later results carry it in environment.placement. No reply.
  Result<void> send_placement(const std::vector<protocol::VcpuMapping>& vcpus);
  Result<void> ping(std::chrono::milliseconds timeout);
  // Applies guest OS settings (protocol/guest_settings.hpp); the reply, validated, has each
  // name's read-back value or its own error. A reply naming a setting that was not asked for,
  // or leaving one out, is an error of the whole request.
  Result<protocol::SettingStates> configure(const std::map<std::string, nlohmann::json>& settings,
                                            std::chrono::milliseconds timeout);
  // Asks the agent to stop (as PID 1 it powers the guest off) and waits for its ack (bounded).
  Result<void> shutdown();
  // Why the connection closed, added to "agent closed the connection ..." (a bridge's reason
  // names the host and the lost connection); "" adds nothing.
  void set_close_reason(std::function<std::string()> why) { close_reason_ = std::move(why); }
  // Every line sent/received, prefixed "> " / "< " (nullptr: none).
  void set_transcript(std::ostream* out) { transcript_ = out; }

  // Discards input until the agent answers a fresh sync; also used by connect_unix.
  Result<void> resync(std::chrono::milliseconds timeout);
  // Lines skipped because they were not valid protocol messages (garbage, oversized, stale).
  std::uint64_t skipped_lines() const { return skipped_lines_; }
  const std::string& last_skip_reason() const { return last_skip_reason_; }

  // A guest that floods junk must not keep a wait (up to a benchmark's timeout) or the
  // transcript busy: a wait gives up after this many unreadable lines, and the transcript
  // stops after this many bytes.
  static constexpr std::uint64_t kMaxSkippedPerWait = 10000;
  static constexpr std::uint64_t kMaxTranscriptBytes = 32u << 20;
  static constexpr std::chrono::milliseconds kWriteTimeout{5000};
  static constexpr std::chrono::milliseconds kShutdownTimeout{10000};

 private:
  using Clock = std::chrono::steady_clock;
  explicit AgentClient(OwnedFd fd) : fd_(std::move(fd)) {}
  // Retries attempt() (a connected fd, or -1 and errno) until timeout, then resyncs.
  static Result<std::unique_ptr<AgentClient>> connect_with(const std::function<int()>& attempt,
                                                           const std::string& what,
                                                           std::chrono::milliseconds timeout,
                                                           Sync sync = Sync::kResync);

  Result<void> send_bytes(const std::string& bytes, Clock::time_point deadline);
  Result<void> send_message(const nlohmann::json& message);
  // The next decodable message before deadline; hellos are recorded on the way.
  Result<protocol::Message> read_message(Clock::time_point deadline, const std::string& waiting);
  // The reply to request id (any type in the reply set); error replies become errors.
  Result<protocol::Message> wait_reply(std::uint64_t id, std::string_view expected_type,
                                       std::chrono::milliseconds timeout);
  void record_hello(const protocol::Message& m);
  void skip(const std::string& reason);
  void log(std::string_view prefix, std::string_view line);

  OwnedFd fd_;
  std::uint64_t next_id_ = 1;
  protocol::LineReader reader_{protocol::kMaxLineBytes, /*honour_sync_byte=*/false};
  std::set<std::uint64_t> sync_ids_;  // every sync id sent: late replies are not garbage
  std::optional<protocol::Hello> hello_;
  std::optional<Error> hello_error_;
  std::ostream* transcript_ = nullptr;
  std::function<std::string()> close_reason_;
  std::uint64_t skipped_lines_ = 0;
  std::uint64_t skip_mark_ = 0;  // skipped_lines_ when the current wait began
  std::uint64_t transcript_bytes_ = 0;
  std::uint64_t sent_ = 0, received_ = 0;  // messages, for the run log's summary
  std::string last_skip_reason_;
  bool closed_ = false;
};

}  // namespace topolab
