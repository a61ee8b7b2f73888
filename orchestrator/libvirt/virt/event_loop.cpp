#include "orchestrator/libvirt/virt/event_loop.hpp"

#include <libvirt/virterror.h>

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace topolab::virt {
namespace {

using Clock = std::chrono::steady_clock;

struct StopWaiter {
  std::mutex m;
  std::condition_variable cv;
  bool stopped = false;
};

// Runs on the event loop thread. The waiter is owned jointly by the waiting thread and by
// libvirt (freed through free_waiter after the callback is deregistered), so a callback that
// is still running when the wait ends touches live memory.
int on_lifecycle(virConnectPtr, virDomainPtr, int event, int, void* opaque) {
  if (event != VIR_DOMAIN_EVENT_STOPPED) return 0;
  auto& w = **static_cast<std::shared_ptr<StopWaiter>*>(opaque);
  {
    std::lock_guard<std::mutex> lock(w.m);
    w.stopped = true;
  }
  w.cv.notify_all();
  return 0;
}

void free_waiter(void* opaque) { delete static_cast<std::shared_ptr<StopWaiter>*>(opaque); }

}  // namespace

bool ensure_event_loop() {
  static const bool started = [] {
    if (virEventRegisterDefaultImpl() < 0) return false;
    std::thread([] {
      for (;;) {
        if (virEventRunDefaultImpl() < 0) std::this_thread::sleep_for(std::chrono::seconds(1));
      }
    }).detach();
    return true;
  }();
  return started;
}

std::optional<Result<void>> wait_for_shutoff_event(virDomainPtr dom,
                                                   std::chrono::milliseconds timeout,
                                                   std::chrono::milliseconds recheck) {
  if (!ensure_event_loop()) return std::nullopt;
  virConnectPtr conn = virDomainGetConnect(dom);
  if (conn == nullptr) return std::nullopt;
  auto waiter = std::make_shared<StopWaiter>();
  auto* opaque = new std::shared_ptr<StopWaiter>(waiter);
  const int id = virConnectDomainEventRegisterAny(conn, dom, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
                                                  VIR_DOMAIN_EVENT_CALLBACK(on_lifecycle), opaque,
                                                  free_waiter);
  if (id < 0) {
    delete opaque;  // not registered: libvirt does not call free_waiter
    return std::nullopt;
  }
  const auto deadline = Clock::now() + timeout;
  std::optional<Result<void>> out;
  for (;;) {
    // Read after registering: a stop between the two cannot be missed.
    const int active = virDomainIsActive(dom);
    if (active == 0) break;
    if (auto e = failed(active)) {
      if (!e->is(VIR_ERR_NO_DOMAIN)) {
        out = e->context("virDomainIsActive(" + std::string(virDomainGetName(dom)) + ")");
      }
      break;
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      out = make_error(ErrorKind::guest, "domain " + std::string(virDomainGetName(dom)) +
                                             " still running after " +
                                             std::to_string(timeout.count()) + " ms");
      break;
    }
    std::unique_lock<std::mutex> lock(waiter->m);
    waiter->cv.wait_until(lock, std::min(deadline, now + recheck), [&] { return waiter->stopped; });
    waiter->stopped = false;
  }
  virConnectDomainEventDeregisterAny(conn, id);
  if (!out) out = Result<void>{};
  return out;
}

}  // namespace topolab::virt
