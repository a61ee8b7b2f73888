#include "orchestrator/guest/agent/agent_client.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <thread>

#include "orchestrator/base/logging/log.hpp"

namespace topolab {

namespace proto = protocol;
using nlohmann::json;
using std::chrono::milliseconds;

namespace {

std::string errno_text(int err) { return std::strerror(err); }

int remaining_ms(std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return 0;
  return static_cast<int>(std::min<long long>(left.count(), 1 << 30));
}

// One blocking connect of a stream socket, then non-blocking for the session; -1 and errno on
// failure. Both transports (UNIX socket, loopback TCP) go through it.
int connect_stream(int family, const sockaddr* addr, socklen_t len) {
  OwnedFd fd(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return -1;
  if (::connect(fd.get(), addr, len) != 0) {
    int err = errno;
    fd.reset();
    errno = err;
    return -1;
  }
  int flags = ::fcntl(fd.get(), F_GETFL);
  ::fcntl(fd.get(), F_SETFL, flags | O_NONBLOCK);
  return fd.release();
}

int try_connect(const std::filesystem::path& socket_path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string p = socket_path.string();
  if (p.size() >= sizeof(addr.sun_path)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  std::memcpy(addr.sun_path, p.c_str(), p.size() + 1);
  return connect_stream(AF_UNIX, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
}

// 127.0.0.1:port only: the loopback transport exists for tests.
int try_connect_tcp(std::uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return connect_stream(AF_INET, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
}

}  // namespace

AgentClient::~AgentClient() {
  // The run log keeps a summary; the whole exchange is in the transcript (set_transcript).
  logging::debug("agent session: {} messages sent, {} received, {} unreadable lines skipped{}",
                 sent_, received_, skipped_lines_,
                 skipped_lines_ ? " (last: " + last_skip_reason_ + ")" : std::string());
}

Result<std::unique_ptr<AgentClient>> AgentClient::connect_unix(const std::filesystem::path& socket,
                                                               milliseconds timeout, Sync sync) {
  return connect_with([&] { return try_connect(socket); }, "agent socket " + socket.string(),
                      timeout, sync);
}

Result<std::unique_ptr<AgentClient>> AgentClient::connect_tcp_loopback(std::uint16_t port,
                                                                       milliseconds timeout) {
  if (port == 0) return make_error(ErrorKind::input, "agent TCP port 0 is not a port");
  return connect_with([&] { return try_connect_tcp(port); },
                      "agent at 127.0.0.1:" + std::to_string(port), timeout);
}

Result<std::unique_ptr<AgentClient>> AgentClient::adopt(OwnedFd fd, const std::string& what,
                                                        milliseconds timeout, Sync sync) {
  if (!fd) return make_error(ErrorKind::internal, what + ": no socket to adopt");
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) | O_NONBLOCK);
  return connect_with([&] { return fd.release(); }, what, timeout, sync);
}

Result<std::unique_ptr<AgentClient>> AgentClient::connect_with(const std::function<int()>& attempt,
                                                               const std::string& what,
                                                               milliseconds timeout, Sync sync) {
  const auto deadline = Clock::now() + timeout;
  int fd = -1;
  int last_errno = 0;
  for (;;) {
    fd = attempt();
    if (fd >= 0) break;
    last_errno = errno;
    if (last_errno == ENAMETOOLONG) {
      return make_error(ErrorKind::guest, what + ": path too long for a UNIX socket");
    }
    if (Clock::now() >= deadline) {
      return make_error(ErrorKind::guest, what + ": cannot connect within " +
                                              std::to_string(timeout.count()) +
                                              " ms: " + errno_text(last_errno));
    }
    std::this_thread::sleep_for(milliseconds(50));
  }
  std::unique_ptr<AgentClient> client(new AgentClient(OwnedFd(fd)));
  if (sync == Sync::kHelloFirst) return client;
  TL_TRY_CTX(client->resync(std::chrono::duration_cast<milliseconds>(
                 std::max(deadline - Clock::now(), Clock::duration(milliseconds(1))))),
             what);
  return client;
}

void AgentClient::log(std::string_view prefix, std::string_view line) {
  if (transcript_ == nullptr || transcript_bytes_ > kMaxTranscriptBytes) return;
  constexpr std::size_t kMaxLogged = 64 * 1024;
  transcript_bytes_ += prefix.size() + std::min(line.size(), kMaxLogged) + 1;
  if (transcript_bytes_ > kMaxTranscriptBytes) {
    *transcript_ << "[transcript stops here: more than " << kMaxTranscriptBytes << " bytes]\n";
    transcript_->flush();
    return;
  }
  *transcript_ << prefix << line.substr(0, kMaxLogged);
  if (line.size() > kMaxLogged) *transcript_ << " [... " << line.size() << " bytes]";
  *transcript_ << '\n';
  transcript_->flush();
}

void AgentClient::skip(const std::string& reason) {
  ++skipped_lines_;
  last_skip_reason_ = reason;
}

Result<void> AgentClient::send_bytes(const std::string& bytes, Clock::time_point deadline) {
  if (closed_) return make_error(ErrorKind::guest, "agent connection is closed");
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::send(fd_.get(), bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd_.get(), POLLOUT, 0};
      int ms = remaining_ms(deadline);
      if (ms == 0)
        return make_error(ErrorKind::guest, "timed out writing to the agent (it is not reading)");
      if (::poll(&p, 1, ms) < 0 && errno != EINTR) {
        return make_error(ErrorKind::guest, "poll on agent socket: " + errno_text(errno));
      }
      continue;
    }
    const std::string err = errno_text(errno);
    closed_ = true;
    const std::string why = close_reason_ ? close_reason_() : std::string();
    return make_error(ErrorKind::guest,
                      "writing to the agent: " + err + (why.empty() ? "" : " (" + why + ")"));
  }
  return {};
}

Result<void> AgentClient::send_message(const json& message) {
  // Refused here: the agent would discard an over-cap line.
  TL_ASSIGN(const auto line, proto::encode_line(message));
  log("> ", std::string_view(line).substr(0, line.size() - 1));
  ++sent_;
  logging::debug("agent > {} ({} bytes)",
                 message.is_object() ? message.value("type", std::string("?")) : "?", line.size());
  return send_bytes(line, Clock::now() + kWriteTimeout);
}

void AgentClient::record_hello(const proto::Message& m) {
  auto hello = proto::parse_hello(m);
  if (!hello) {
    hello_error_ = hello.error();
    return;
  }
  hello_ = std::move(*hello);
  hello_error_.reset();
}

Result<proto::Message> AgentClient::read_message(Clock::time_point deadline,
                                                 const std::string& waiting) {
  for (;;) {
    while (auto ev = reader_.next()) {
      if (ev->kind == proto::LineReader::Kind::kOversized) {
        log("< ", "[oversized line dropped after " + std::to_string(ev->dropped) + " bytes]");
        skip("oversized line (> " + std::to_string(proto::kMaxLineBytes) + " bytes)");
        continue;
      }
      if (ev->kind != proto::LineReader::Kind::kLine) continue;
      log("< ", ev->line);
      auto msg = proto::decode(ev->line);
      if (!msg) {
        skip(msg.error().message);
        continue;
      }
      ++received_;
      logging::debug("agent < {}{} ({} bytes)", msg->type,
                     msg->id ? " " + std::to_string(*msg->id) : std::string(), ev->line.size());
      if (msg->type == proto::type::kHello) record_hello(*msg);
      return msg;
    }
    if (closed_) {
      const std::string why = close_reason_ ? close_reason_() : std::string();
      return make_error(ErrorKind::guest, "agent closed the connection while waiting for " +
                                              waiting + (why.empty() ? "" : " (" + why + ")"));
    }
    if (skipped_lines_ - skip_mark_ > kMaxSkippedPerWait) {
      return make_error(ErrorKind::guest,
                        "gave up waiting for " + waiting + ": the agent sent more than " +
                            std::to_string(kMaxSkippedPerWait) +
                            " unreadable lines (last: " + last_skip_reason_ + ")");
    }
    int ms = remaining_ms(deadline);
    if (ms == 0) {
      std::string text = "timed out waiting for " + waiting;
      if (skipped_lines_ > 0) {
        text += " (" + std::to_string(skipped_lines_) +
                " unreadable lines skipped, last: " + last_skip_reason_ + ")";
      }
      return make_error(ErrorKind::guest, text);
    }
    pollfd p{fd_.get(), POLLIN, 0};
    int rc = ::poll(&p, 1, ms);
    if (rc < 0) {
      if (errno == EINTR) continue;
      return make_error(ErrorKind::guest, "poll on agent socket: " + errno_text(errno));
    }
    if (rc == 0) continue;
    char buf[65536];
    ssize_t n = ::read(fd_.get(), buf, sizeof(buf));
    if (n > 0) {
      reader_.feed(std::string_view(buf, static_cast<std::size_t>(n)));
    } else if (n == 0) {
      closed_ = true;
    } else if (errno != EINTR && errno != EAGAIN) {
      closed_ = true;
      return make_error(ErrorKind::guest, "reading from the agent: " + errno_text(errno));
    }
  }
}

Result<void> AgentClient::resync(milliseconds timeout) {
  skip_mark_ = skipped_lines_;
  const auto deadline = Clock::now() + timeout;
  // The agent may not be running yet (guest still booting), and bytes sent before it opened its
  // port can be lost: resend with a fresh id every second and accept any id we sent.
  // QEMU keeps what we send until the guest opens its port, so every request may be answered
  // later: back off (1 s -> 8 s) to keep that flood small; late replies are ignored silently.
  milliseconds resend_every{1000};
  std::set<std::uint64_t> sent;
  reader_.reset();
  // remaining_ms rounds down: a wait that ends with under 1 ms left must not start another send
  // (on this kernel a second unread request to a silent peer can fail with EAGAIN, and the
  // caller would then see a write timeout instead of "no sync reply").
  while (remaining_ms(deadline) > 0) {
    const std::uint64_t id = next_id_++;
    sent.insert(id);
    sync_ids_.insert(id);
    std::string bytes = proto::sync_request_bytes(id);
    log("> ", "\\xff" + bytes.substr(1, bytes.size() - 2));
    TL_TRY(send_bytes(bytes, std::min(deadline, Clock::now() + kWriteTimeout)));
    const auto resend_at = std::min(deadline, Clock::now() + resend_every);
    resend_every = std::min(resend_every * 2, milliseconds(8000));
    for (;;) {
      auto msg = read_message(resend_at, "the agent's sync reply");
      if (!msg) {
        if (closed_) return msg.error();
        break;  // resend time
      }
      if (msg->type == proto::type::kSync && msg->id && sent.count(*msg->id)) return {};
      if (msg->type != proto::type::kHello) skip("discarded before sync: '" + msg->type + "'");
    }
  }
  return make_error(ErrorKind::guest, "no sync reply from the agent within " +
                                          std::to_string(timeout.count()) + " ms (" +
                                          std::to_string(sent.size()) + " sync requests sent)");
}

Result<proto::Hello> AgentClient::wait_hello(milliseconds timeout) {
  skip_mark_ = skipped_lines_;
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (hello_) return *hello_;
    if (hello_error_) return hello_error_->context("agent hello");
    TL_ASSIGN(auto msg, read_message(deadline, "the agent's hello"));
    const bool late_sync = msg.type == proto::type::kSync && msg.id && sync_ids_.count(*msg.id);
    if (msg.type != proto::type::kHello && !late_sync) {
      skip("unexpected '" + msg.type + "' before hello");
    }
  }
}

Result<proto::Message> AgentClient::wait_reply(std::uint64_t id, std::string_view expected_type,
                                               milliseconds timeout) {
  skip_mark_ = skipped_lines_;
  const auto deadline = Clock::now() + timeout;
  const std::string waiting =
      "'" + std::string(expected_type) + "' reply to request " + std::to_string(id);
  for (;;) {
    TL_ASSIGN(auto msg, read_message(deadline, waiting));
    if (!msg.id || *msg.id != id) {
      const bool late_sync = msg.type == proto::type::kSync && msg.id && sync_ids_.count(*msg.id);
      if (msg.type != proto::type::kHello && !late_sync) {
        skip("'" + msg.type + "' message not for request " + std::to_string(id));
      }
      continue;
    }
    if (msg.type == proto::type::kError) {
      auto text = proto::parse_error(msg);
      return make_error(ErrorKind::guest, "agent error for request " + std::to_string(id) + ": " +
                                              (text ? *text : text.error().message));
    }
    if (msg.type != expected_type) {
      return make_error(ErrorKind::guest, "agent answered request " + std::to_string(id) +
                                              " with '" + msg.type + "', expected '" +
                                              std::string(expected_type) + "'");
    }
    return msg;
  }
}

Result<proto::BenchmarkResult> AgentClient::run(const std::string& benchmark, const json& params,
                                                milliseconds timeout) {
  const std::uint64_t id = next_id_++;
  TL_TRY(send_message(proto::run_message(id, benchmark, params)));
  TL_ASSIGN_CTX(auto reply, wait_reply(id, proto::type::kResult, timeout), "run " + benchmark);
  TL_ASSIGN_CTX(auto result, proto::parse_result(reply), "run " + benchmark);
  return result;
}

Result<void> AgentClient::send_placement(const std::vector<proto::VcpuMapping>& vcpus) {
  return send_message(proto::placement_message(vcpus));
}

Result<void> AgentClient::ping(milliseconds timeout) {
  const std::uint64_t id = next_id_++;
  TL_TRY(send_message(proto::ping_message(id)));
  TL_TRY(wait_reply(id, proto::type::kPong, timeout));
  return {};
}

Result<proto::SettingStates> AgentClient::configure(const std::map<std::string, json>& settings,
                                                    milliseconds timeout) {
  const std::uint64_t id = next_id_++;
  TL_TRY(send_message(proto::configure_message(id, settings)));
  TL_ASSIGN_CTX(auto reply, wait_reply(id, proto::type::kConfigured, timeout), "configure");
  TL_ASSIGN(auto parsed, proto::parse_configured(reply));
  for (const auto& [name, state] : parsed.settings) {
    if (!settings.count(name))
      return make_error(ErrorKind::guest,
                        "configure: the agent answered for '" + name + "', which was not asked");
  }
  for (const auto& [name, value] : settings) {
    if (!parsed.settings.count(name))
      return make_error(ErrorKind::guest, "configure: the agent did not answer for '" + name + "'");
  }
  return parsed.settings;
}

Result<void> AgentClient::shutdown() {
  const std::uint64_t id = next_id_++;
  TL_TRY(send_message(proto::shutdown_message(id)));
  TL_TRY(wait_reply(id, proto::type::kAck, kShutdownTimeout));
  return {};
}

}  // namespace topolab
