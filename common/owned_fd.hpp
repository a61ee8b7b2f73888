#pragma once
// An owned file descriptor: move-only, closed when it goes out of scope. Header-only and
// dependency-free so that the static guest agent uses the same type as the host.
#include <unistd.h>

#include <utility>

namespace topolab {

class OwnedFd {
 public:
  OwnedFd() = default;
  explicit OwnedFd(int fd) : fd_(fd) {}
  OwnedFd(OwnedFd&& other) noexcept : fd_(other.release()) {}
  OwnedFd& operator=(OwnedFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  ~OwnedFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  explicit operator bool() const { return valid(); }
  // Gives up ownership: the caller closes the result.
  int release() { return std::exchange(fd_, -1); }
  // Closes the held descriptor (if any) and holds `fd`.
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }
  // Closes now and reports close()'s result (0, or -1 with errno), for writes whose close
  // error matters (NFS, a full disk): the destructor cannot report it.
  int close() { return fd_ >= 0 ? ::close(release()) : 0; }

 private:
  int fd_ = -1;
};

}  // namespace topolab
