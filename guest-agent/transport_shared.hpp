#pragma once
// What transport_linux.cpp and transport_windows.cpp share: the back-off of the agent's waits for
// its port, and the path check of a UNIX socket address.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "common/result.hpp"

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
    return make_error("UNIX socket path '" + path + "' is empty or longer than " +
                      std::to_string(capacity - 1) + " bytes");
  }
  std::memcpy(sun_path, path.c_str(), path.size() + 1);
  return {};
}

}  // namespace topolab::agent
