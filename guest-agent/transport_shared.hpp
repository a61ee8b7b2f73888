#pragma once
// What transport_linux.cpp and transport_windows.cpp share: the back-off of the agent's waits for
// its port, the path check of a UNIX socket address, the bound of a write and the rules for a
// second client of a listening socket.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <thread>

#include "common/result.hpp"
#include "protocol/protocol.hpp"

namespace topolab::agent {

// Waits for a port that is missing, busy or has no host yet: 100 ms, doubling, at most 1 s, so a
// port that appears is used within a second and a missing one costs no CPU.
class Backoff {
 public:
  static constexpr std::chrono::milliseconds kMax{1000};
  std::chrono::milliseconds delay() const { return delay_; }
  void sleep() {
    std::this_thread::sleep_for(delay_);
    delay_ = std::min(delay_ * 2, kMax);
  }

 private:
  std::chrono::milliseconds delay_{100};
};

// Copies `path` with its NUL into a sockaddr_un's sun_path of `capacity` bytes; refuses an empty
// path or one that does not fit (it would be cut, and bind another file).
inline Result<void> copy_socket_path(char* sun_path, std::size_t capacity,
                                     const std::string& path) {
  if (path.empty() || path.size() >= capacity) {
    return make_error(ErrorKind::input, "UNIX socket path '" + path + "' is empty or longer than " +
                                            std::to_string(capacity - 1) + " bytes");
  }
  std::memcpy(sun_path, path.c_str(), path.size() + 1);
  return {};
}

// The bound of one write_all: how long the next wait for room may last, given when it started.
class WriteDeadline {
 public:
  using Clock = std::chrono::steady_clock;
  // timeout_ms < 0: no limit.
  explicit WriteDeadline(int timeout_ms)
      : timeout_ms_(timeout_ms),
        end_(Clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms)) {}
  // Milliseconds the next wait may take (-1: no limit), or the error once the bound is spent
  // with `pending` bytes still unsent.
  Result<int> wait_ms(std::size_t pending) const {
    if (timeout_ms_ < 0) return -1;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(end_ - Clock::now()).count();
    if (left <= 0) {
      return make_error(ErrorKind::io, "the host did not read " + std::to_string(pending) +
                                           " pending bytes within " + std::to_string(timeout_ms_) +
                                           " ms");
    }
    return static_cast<int>(left);
  }

 private:
  int timeout_ms_;
  Clock::time_point end_;
};

// A listening socket serves one client at a time (transport.hpp). Another one that connects is
// answered with this line and closed, whatever the current client does meanwhile: waits (the
// agent is idle), keeps writing (the agent reads) or does not read (the agent waits to write).
// Only a current client that has already left makes the new connection the next session.
inline bool refuse_second_client(bool connection_waiting, bool current_client_left) {
  return connection_waiting && !current_client_left;
}
inline const std::string& busy_reply_line() {
  static const std::string line = protocol::encode(protocol::error_message(
      std::nullopt, "busy: another client is connected to this agent; try again later"));
  return line;
}

}  // namespace topolab::agent
