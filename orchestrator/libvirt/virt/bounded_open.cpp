#include "orchestrator/libvirt/virt/bounded_open.hpp"

#include <libvirt/virterror.h>

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

namespace topolab::virt {
namespace {

// Shared by the caller and the opening thread; whoever finishes last frees it.
struct Attempt {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  bool abandoned = false;
  virConnectPtr conn = nullptr;
  int code = 0;
  std::string message;
};

// Targets with an abandoned open still waiting: a second open of the same target in this process
// fails at once instead of waiting the bound again (boot asks the host for its vCPU limit, then
// opens the session: a silent host cost 40 s). Cleared when the abandoned open returns.
std::mutex& pending_mu() {
  static auto* m = new std::mutex();
  return *m;
}
std::map<std::string, int>& pending() {
  static auto* m = new std::map<std::string, int>();  // never destroyed: threads may outlive main
  return *m;
}

std::string seconds_text(std::chrono::milliseconds bound) {
  const auto ms = bound.count();
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

// The opening thread. It copies libvirt's (thread-local) error itself and logs nothing: an
// abandoned thread may still be running while the process exits.
void open_on_thread(const std::shared_ptr<Attempt>& a, const std::string& target) {
  virConnectPtr c = virConnectOpen(target.c_str());
  int code = 0;
  std::string message;
  if (!c) {
    const virErrorPtr err = virGetLastError();
    code = err ? err->code : 0;
    message = err && err->message ? err->message : "libvirt recorded no error for this failure";
  }
  std::lock_guard lock(a->mu);
  if (a->abandoned) {
    if (c) virConnectClose(c);  // opened after the caller gave up: nobody will use it
    std::lock_guard p(pending_mu());
    if (--pending()[target] <= 0) pending().erase(target);
    return;
  }
  a->conn = c;
  a->code = code;
  a->message = std::move(message);
  a->done = true;
  a->cv.notify_one();
}

}  // namespace

Result<ConnectPtr> open_bounded(const std::string& target, std::chrono::milliseconds bound) {
  const std::string unanswered =
      "cannot connect to " + target + ": no answer within " + seconds_text(bound);
  {
    std::lock_guard p(pending_mu());
    if (pending().count(target))
      return make_error(ErrorKind::libvirt,
                        unanswered + " (an earlier attempt of this process is still unanswered)");
  }
  auto a = std::make_shared<Attempt>();
  std::thread opener;
  try {
    opener = std::thread([a, target] { open_on_thread(a, target); });
  } catch (const std::system_error& e) {
    return make_error(ErrorKind::libvirt,
                      "cannot connect to " + target + ": no thread to open it (" + e.what() + ")");
  }
  std::unique_lock lock(a->mu);
  const bool answered = a->cv.wait_for(lock, bound, [&] { return a->done; });
  if (answered) {
    // Joined, not left running: a thread still unwinding (libvirt's thread-local error) when
    // the process exits is reported as a leak by LeakSanitizer.
    lock.unlock();
    opener.join();
  } else {
    a->abandoned = true;
    {
      std::lock_guard p(pending_mu());
      ++pending()[target];
    }
    lock.unlock();
    opener.detach();
    return make_error(ErrorKind::libvirt,
                      unanswered +
                          " (the host, or something on its port, accepts no libvirt "
                          "connection: check the address, the port and that libvirtd runs there)");
  }
  if (!a->conn) return LibvirtError{a->code, a->message}.context("cannot connect to " + target);
  return ConnectPtr(a->conn);
}

}  // namespace topolab::virt
