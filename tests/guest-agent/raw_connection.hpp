#pragma once
// A raw UNIX-socket connection to the agent for what AgentClient never does: unknown types,
// junk, huge lines, staying silent, not reading.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "protocol/protocol.hpp"

namespace topolab::testing {

class RawConnection {
 public:
  explicit RawConnection(const std::filesystem::path& path) {
    using namespace std::chrono_literals;
    fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof(a.sun_path) - 1);
    // The agent was just started: its socket appears within milliseconds, later on a loaded
    // machine under ASan (a 2 s limit was ~20x a quiet start); only a failure waits 30 s.
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0) return;
      std::this_thread::sleep_for(10ms);
    }
    ADD_FAILURE() << "cannot connect to " << path;
  }
  ~RawConnection() { ::close(fd_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  void send(const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      ASSERT_GT(n, 0);
      done += static_cast<std::size_t>(n);
    }
  }
  // The next decoded message within timeout; nullopt on timeout or when the agent closed the
  // connection (closed() tells which).
  std::optional<nlohmann::json> try_next(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (auto e = reader_.next()) {
        if (e->kind != protocol::LineReader::Kind::kLine) continue;
        last_line_bytes_ = e->line.size();
        auto m = protocol::decode(e->line);
        EXPECT_TRUE(m.ok()) << e->line.substr(0, 200);
        return m.ok() ? m->body : nlohmann::json();
      }
      if (closed_ || std::chrono::steady_clock::now() > deadline) return std::nullopt;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      char buf[65536];
      ssize_t n = ::read(fd_, buf, sizeof(buf));
      if (n <= 0) {
        closed_ = true;
        continue;
      }
      reader_.feed(std::string_view(buf, static_cast<std::size_t>(n)));
    }
  }
  // The next decoded message, within 5 s.
  nlohmann::json next() {
    using namespace std::chrono_literals;
    auto m = try_next(5s);
    if (!m) ADD_FAILURE() << (closed_ ? "agent closed the connection" : "no message within 5 s");
    return m ? *m : nlohmann::json();
  }
  nlohmann::json next_of_type(const std::string& type) {
    for (int i = 0; i < 10; ++i) {
      nlohmann::json m = next();
      if (m.is_null() || m["type"] == type) return m;
    }
    return nlohmann::json();
  }
  bool closed() const { return closed_; }
  std::size_t last_line_bytes() const { return last_line_bytes_; }

 private:
  int fd_ = -1;
  bool closed_ = false;
  std::size_t last_line_bytes_ = 0;
  protocol::LineReader reader_{protocol::kMaxLineBytes + 4096};  // sees over-cap lines too
};

}  // namespace topolab::testing
