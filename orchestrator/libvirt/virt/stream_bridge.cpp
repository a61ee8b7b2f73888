#include "orchestrator/libvirt/virt/stream_bridge.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>

#include "orchestrator/base/logging/log.hpp"
#include "orchestrator/libvirt/virt/event_loop.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::virt {

// Everything the callbacks touch, under `m`. The owner (StreamBridge) and every registered
// callback hold a reference, so a callback that is dispatched after the bridge is gone finds
// `stopping` and returns; the fd is closed when the last reference goes (after libvirt freed
// every registration), never while the event loop may still poll it.
struct StreamBridge::State {
  std::mutex m;
  virStreamPtr stream = nullptr;  // owned by StreamBridge; untouched once `stopping`
  virConnectPtr conn = nullptr;   // the stream's connection (the stream holds a reference)
  int fd = -1;
  bool two_way = false;
  std::string what;
  std::uint64_t max_bytes = 0, received = 0, written = 0;
  std::string to_fd, to_stream;  // bytes waiting for the fd / for the stream
  bool ended = false, stopping = false;
  bool stream_eof = false;  // the stream ended; the fd still takes what waits for it
  std::string reason;
  bool stream_cb = false;
  int watch = -1, timer = -1;

  ~State() {
    if (fd >= 0) ::close(fd);
  }
};

namespace {

using State = StreamBridge::State;
constexpr std::size_t kChunk = 64u << 10;

std::shared_ptr<State>& state_of(void* opaque) {
  return *static_cast<std::shared_ptr<State>*>(opaque);
}
void free_ref(void* opaque) { delete static_cast<std::shared_ptr<State>*>(opaque); }
void* new_ref(const std::shared_ptr<State>& s) { return new std::shared_ptr<State>(s); }

// Stops pumping: the socket end is shut down at once (the agent client reads end-of-file),
// the registrations are removed (libvirt allows it from inside a callback).
void end(State& s, const std::string& why) {
  if (s.ended) return;
  s.ended = true;
  auto lost = connection_lost(s.conn, why);
  s.reason = s.what + ": " + (lost ? *lost : why);
  logging::debug("stream bridge ended: {}", s.reason);
  if (s.two_way) ::shutdown(s.fd, SHUT_RDWR);
  if (s.stream_cb) virStreamEventRemoveCallback(s.stream);
  s.stream_cb = false;
  if (s.watch >= 0) virEventRemoveHandle(s.watch);
  if (s.timer >= 0) virEventRemoveTimeout(s.timer);
  s.watch = s.timer = -1;
}

// Writes what waits for the fd; a file past max_bytes takes nothing more.
void flush_fd(State& s) {
  while (!s.to_fd.empty() && !s.ended) {
    // send(MSG_NOSIGNAL) on the socket: a reader that went away must not raise SIGPIPE.
    const ssize_t n = s.two_way ? ::send(s.fd, s.to_fd.data(), s.to_fd.size(), MSG_NOSIGNAL)
                                : ::write(s.fd, s.to_fd.data(), s.to_fd.size());
    if (n > 0) {
      s.to_fd.erase(0, static_cast<std::size_t>(n));
      s.written += static_cast<std::uint64_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else {
      end(s, std::string("writing the local end: ") + std::strerror(errno));
    }
  }
}

void flush_stream(State& s) {
  while (!s.to_stream.empty() && !s.ended) {
    const int n = virStreamSend(s.stream, s.to_stream.data(), s.to_stream.size());
    if (n == -2) return;  // would block: the WRITABLE event resumes
    if (n < 0) return end(s, "virStreamSend: " + capture_libvirt_error().message);
    s.to_stream.erase(0, static_cast<std::size_t>(n));
  }
}

void take_from_stream(State& s, const char* data, std::size_t n) {
  s.received += n;
  if (s.two_way) {
    s.to_fd.append(data, n);
    return;
  }
  const std::uint64_t room = s.max_bytes - std::min(s.max_bytes, s.written + s.to_fd.size());
  s.to_fd.append(data, static_cast<std::size_t>(std::min<std::uint64_t>(room, n)));
}

// Reads until the stream has nothing more or the buffer towards the fd is full.
void read_stream(State& s) {
  char buf[kChunk];
  while (!s.ended && !s.stream_eof && s.to_fd.size() < StreamBridge::kMaxBuffered) {
    const int n = virStreamRecv(s.stream, buf, sizeof buf);
    if (n == -2) return;
    if (n == 0) {
      s.stream_eof = true;  // ended once the fd took the rest (finish_at_eof)
      return;
    }
    if (n < 0) return end(s, "virStreamRecv: " + capture_libvirt_error().message);
    take_from_stream(s, buf, static_cast<std::size_t>(n));
  }
}

void read_fd(State& s) {
  char buf[kChunk];
  while (!s.ended && s.to_stream.size() < StreamBridge::kMaxBuffered) {
    const ssize_t n = ::read(s.fd, buf, sizeof buf);
    if (n > 0) {
      s.to_stream.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0) {
      return end(s, "closed on this side");
    } else if (errno != EINTR) {
      if (errno != EAGAIN && errno != EWOULDBLOCK) end(s, std::strerror(errno));
      return;
    }
  }
}

// The stream's end reaches the reader only after every byte before it.
void finish_at_eof(State& s) {
  if (s.stream_eof && s.to_fd.empty()) {
    end(s, "the stream ended (the domain stopped or closed the device)");
  }
}

// What each side waits for now: reading pauses while its buffer is full (backpressure).
void update_events(State& s) {
  if (s.ended) return;
  int st = 0, fd = 0;
  if (!s.stream_eof && s.to_fd.size() < StreamBridge::kMaxBuffered) {
    st |= VIR_STREAM_EVENT_READABLE;
  }
  if (!s.to_stream.empty()) st |= VIR_STREAM_EVENT_WRITABLE;
  if (s.two_way && s.to_stream.size() < StreamBridge::kMaxBuffered) {
    fd |= VIR_EVENT_HANDLE_READABLE;
  }
  if (!s.to_fd.empty()) fd |= VIR_EVENT_HANDLE_WRITABLE;
  virStreamEventUpdateCallback(s.stream, st | VIR_STREAM_EVENT_ERROR | VIR_STREAM_EVENT_HANGUP);
  virEventUpdateHandle(s.watch, fd);
}

void on_stream(virStreamPtr, int events, void* opaque) {
  auto keep = state_of(opaque);
  State& s = *keep;
  std::lock_guard lock(s.m);
  if (s.stopping || s.ended) return;
  if (events & VIR_STREAM_EVENT_READABLE) read_stream(s);
  if (events & VIR_STREAM_EVENT_WRITABLE) flush_stream(s);
  flush_fd(s);
  // Data first: a stream that delivered its last bytes with the hang-up passes them on.
  if (events & (VIR_STREAM_EVENT_ERROR | VIR_STREAM_EVENT_HANGUP)) {
    read_stream(s);
    flush_fd(s);
    if (events & VIR_STREAM_EVENT_ERROR) end(s, "the stream reported an error");
    s.stream_eof = true;
  }
  finish_at_eof(s);
  update_events(s);
}

void on_fd(int, int, int events, void* opaque) {
  auto keep = state_of(opaque);
  State& s = *keep;
  std::lock_guard lock(s.m);
  if (s.stopping || s.ended) return;
  if (events & VIR_EVENT_HANDLE_WRITABLE) flush_fd(s);
  if (events & VIR_EVENT_HANDLE_READABLE) read_fd(s);
  flush_stream(s);  // at once: the agent's requests should not wait for another wake-up
  if (!(events & VIR_EVENT_HANDLE_READABLE) &&
      (events & (VIR_EVENT_HANDLE_ERROR | VIR_EVENT_HANDLE_HANGUP))) {
    end(s, "the local end closed");
  }
  finish_at_eof(s);
  update_events(s);
}

void on_timer(int, void* opaque) {
  auto keep = state_of(opaque);
  State& s = *keep;
  std::lock_guard lock(s.m);
  if (s.stopping || s.ended) return;
  if (virConnectIsAlive(s.conn) == 0) end(s, "the stream's connection closed");
}

// Adds a zero timeout and waits (bounded) until the event loop has run it: every dispatch of
// the turn before has finished, and deleted registrations were cleaned up at its start.
bool wait_for_event_loop_turn(std::chrono::milliseconds bound) {
  struct Turn {
    std::mutex m;
    std::condition_variable cv;
    bool ran = false;
  };
  auto turn = std::make_shared<Turn>();
  auto* ref = new std::shared_ptr<Turn>(turn);
  const int timer = virEventAddTimeout(
      0,
      [](int id, void* opaque) {
        auto& t = **static_cast<std::shared_ptr<Turn>*>(opaque);
        virEventRemoveTimeout(id);
        std::lock_guard lock(t.m);
        t.ran = true;
        t.cv.notify_all();
      },
      ref, [](void* opaque) { delete static_cast<std::shared_ptr<Turn>*>(opaque); });
  if (timer < 0) {
    delete ref;
    return false;
  }
  std::unique_lock lock(turn->m);
  return turn->cv.wait_for(lock, bound, [&] { return turn->ran; });
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

std::string connection_name(virConnectPtr conn) {
  LibvirtString uri(virConnectGetURI(conn));
  return uri ? uri.get() : "the libvirt host";
}

}  // namespace

Result<std::unique_ptr<StreamBridge>> StreamBridge::start(virConnectPtr conn, StreamPtr stream,
                                                          std::string what, OwnedFd fd,
                                                          bool two_way, std::uint64_t max_bytes) {
  if (!ensure_event_loop())
    return make_error(ErrorKind::libvirt, what + ": libvirt's event loop is unavailable");
  std::unique_ptr<StreamBridge> bridge(new StreamBridge());
  auto s = std::make_shared<State>();
  s->stream = stream.get();
  s->conn = conn;
  s->fd = fd.release();
  s->two_way = two_way;
  s->what = std::move(what);
  s->max_bytes = max_bytes;
  bridge->stream_ = std::move(stream);
  bridge->state_ = s;
  std::lock_guard lock(s->m);  // no callback runs before every registration is in place
  set_nonblocking(s->fd);
  const int fd_events = two_way ? VIR_EVENT_HANDLE_READABLE : 0;
  s->watch = virEventAddHandle(s->fd, fd_events, on_fd, new_ref(s), free_ref);
  if (s->watch < 0) return make_error(ErrorKind::libvirt, s->what + ": virEventAddHandle failed");
  if (auto e = failed(virStreamEventAddCallback(
          s->stream, VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_ERROR | VIR_STREAM_EVENT_HANGUP,
          on_stream, bridge->stream_ref_ = new_ref(s), nullptr))) {
    // Not registered: the destructor removes the handle and deletes stream_ref_.
    return e->context(s->what + ": virStreamEventAddCallback");
  }
  s->stream_cb = true;
  s->timer = virEventAddTimeout(kAliveCheckMs, on_timer, new_ref(s), free_ref);
  return bridge;
}

Result<std::unique_ptr<StreamBridge>> StreamBridge::to_socket(virConnectPtr conn, StreamPtr stream,
                                                              std::string what, OwnedFd& local) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return make_error(ErrorKind::io, what + ": socketpair: " + std::strerror(errno));
  }
  OwnedFd mine(pair[0]);
  local = OwnedFd(pair[1]);
  return start(conn, std::move(stream), std::move(what), std::move(mine), true, UINT64_MAX);
}

Result<std::unique_ptr<StreamBridge>> StreamBridge::to_file(virConnectPtr conn, StreamPtr stream,
                                                            std::string what, OwnedFd file,
                                                            std::uint64_t max_bytes) {
  return start(conn, std::move(stream), std::move(what), std::move(file), false, max_bytes);
}

StreamBridge::~StreamBridge() {
  if (!state_) return;
  {
    // Held while removing: a callback in flight finishes first; later ones find `stopping`.
    std::lock_guard lock(state_->m);
    State& s = *state_;
    s.stopping = true;
    if (!s.ended) {
      flush_fd(s);  // what already arrived reaches the file
      s.ended = true;
      s.reason = s.what + ": closed by topolab";
    }
    if (s.stream_cb) virStreamEventRemoveCallback(s.stream);
    if (s.watch >= 0) virEventRemoveHandle(s.watch);
    if (s.timer >= 0) virEventRemoveTimeout(s.timer);
    s.stream_cb = false;
    s.watch = s.timer = -1;
    if (s.two_way) ::shutdown(s.fd, SHUT_RDWR);
  }
  if (stream_ && virStreamAbort(stream_.get()) < 0) (void)capture_libvirt_error();
  stream_.reset();
  // Once the event loop has run one more turn, no callback removed above is in flight and
  // libvirt has freed the other registrations' references; then the stream callback's goes.
  // A loop that does not turn within the bound keeps it (a small leak, never a use after free).
  if (wait_for_event_loop_turn(std::chrono::seconds(2))) {
    delete static_cast<std::shared_ptr<State>*>(stream_ref_);
  }
}

bool StreamBridge::ended() const {
  std::lock_guard lock(state_->m);
  return state_->ended;
}

std::string StreamBridge::end_reason() const {
  std::lock_guard lock(state_->m);
  return state_->ended ? state_->reason : std::string();
}

std::uint64_t StreamBridge::bytes_from_stream() const {
  std::lock_guard lock(state_->m);
  return state_->received;
}

Result<std::unique_ptr<StreamBridge>> open_channel_bridge(virDomainPtr dom,
                                                          const std::string& channel,
                                                          OwnedFd& local) {
  virConnectPtr conn = virDomainGetConnect(dom);
  const std::string what = "agent channel " + channel + " of " +
                           std::string(virDomainGetName(dom)) + " on " + connection_name(conn);
  StreamPtr st(virStreamNew(conn, VIR_STREAM_NONBLOCK));
  if (!st) return capture_libvirt_error().context(what + ": virStreamNew");
  CallTimer timer("virDomainOpenChannel(" + channel + ")");
  if (auto e = failed(virDomainOpenChannel(dom, channel.c_str(), st.get(), 0))) {
    return e->context(what + ": virDomainOpenChannel");
  }
  return StreamBridge::to_socket(conn, std::move(st), what, local);
}

Result<std::unique_ptr<StreamBridge>> open_console_bridge(virDomainPtr dom,
                                                          const std::filesystem::path& log,
                                                          std::uint64_t max_bytes) {
  virConnectPtr conn = virDomainGetConnect(dom);
  const std::string what =
      "serial console of " + std::string(virDomainGetName(dom)) + " on " + connection_name(conn);
  OwnedFd file(::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!file) return make_error(ErrorKind::io, log.string() + ": " + std::strerror(errno));
  StreamPtr st(virStreamNew(conn, VIR_STREAM_NONBLOCK));
  if (!st) return capture_libvirt_error().context(what + ": virStreamNew");
  CallTimer timer("virDomainOpenConsole(" + std::string(virDomainGetName(dom)) + ")");
  if (auto e = failed(virDomainOpenConsole(dom, nullptr, st.get(), 0))) {
    return e->context(what + ": virDomainOpenConsole");
  }
  return StreamBridge::to_file(conn, std::move(st), what, std::move(file), max_bytes);
}

}  // namespace topolab::virt
