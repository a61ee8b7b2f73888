#pragma once
// A libvirt stream (a domain's agent channel or serial console, opened through the connection
// with virDomainOpenChannel / virDomainOpenConsole) bridged to a local file descriptor, so the
// code that reads the agent socket and the console file works unchanged when QEMU runs on
// another host (issue 16): the agent talks to one end of a socketpair, the console lands in the
// local run folder's console.log.
// The bytes are pumped by callbacks on libvirt's event loop (event_loop.hpp), not by a thread
// of our own: a blocking virStreamRecv on a remote connection holds the connection's lock for
// as long as it waits, stalling every other call on it.
// Bounded: at most kMaxBuffered bytes wait in either direction (the reading side pauses), a file
// receives at most max_bytes. A stream error, its end, or the connection closing ends the bridge
// at once: the socket end is shut down, so the agent client sees end-of-file, and end_reason()
// names the connection's URI.
#include <libvirt/libvirt.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "common/owned_fd.hpp"
#include "common/result.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::virt {

class StreamBridge {
 public:
  static constexpr std::size_t kMaxBuffered = 256u << 10;
  // How often the connection's liveness is checked (virConnectIsAlive, answered locally): a
  // closed connection ends the bridge within this even if the stream reports nothing.
  static constexpr int kAliveCheckMs = 250;

  // `stream`: created on `conn` with VIR_STREAM_NONBLOCK and already opened on a device (conn
  // must outlive the bridge). Both directions between the stream and a socketpair; `local`
  // receives the caller's end.
  static Result<std::unique_ptr<StreamBridge>> to_socket(virConnectPtr conn, StreamPtr stream,
                                                         std::string what, OwnedFd& local);
  // Stream -> file only; at most max_bytes are written, the rest is read and dropped.
  static Result<std::unique_ptr<StreamBridge>> to_file(virConnectPtr conn, StreamPtr stream,
                                                       std::string what, OwnedFd file,
                                                       std::uint64_t max_bytes);
  // Removes the callbacks (waiting for one in flight), aborts the stream, and closes the
  // bridge's end of the fd.
  ~StreamBridge();
  StreamBridge(const StreamBridge&) = delete;
  StreamBridge& operator=(const StreamBridge&) = delete;

  bool ended() const;
  // Why the bridge ended ("" while it runs): "<what>: <reason>", naming the URI when the
  // connection was lost.
  std::string end_reason() const;
  std::uint64_t bytes_from_stream() const;  // received, including bytes dropped past max_bytes

  struct State;  // shared with the event loop's callbacks (stream_bridge.cpp)

 private:
  StreamBridge() = default;
  static Result<std::unique_ptr<StreamBridge>> start(virConnectPtr conn, StreamPtr stream,
                                                     std::string what, OwnedFd fd, bool two_way,
                                                     std::uint64_t max_bytes);
  StreamPtr stream_;  // freed after the callbacks are removed
  std::shared_ptr<State> state_;
  // The stream callback's reference: the bridge deletes it, not libvirt (its remote driver never
  // calls the free function of a stream callback removed from inside that callback: seen as a
  // leaked state, buffers and fd per bridge under ASan).
  void* stream_ref_ = nullptr;
};

// The domain's virtio channel named `channel` (unix type; libvirt refuses others but pty) as a
// bridge to a socketpair; `local` receives the end the agent client reads.
Result<std::unique_ptr<StreamBridge>> open_channel_bridge(virDomainPtr dom,
                                                          const std::string& channel,
                                                          OwnedFd& local);
// The domain's first console (a pty serial: virDomainOpenConsole refuses any other type)
// written into `log` (created 0600, truncated, never through a symlink), at most max_bytes.
Result<std::unique_ptr<StreamBridge>> open_console_bridge(virDomainPtr dom,
                                                          const std::filesystem::path& log,
                                                          std::uint64_t max_bytes);

}  // namespace topolab::virt
