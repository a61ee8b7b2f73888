#include "orchestrator/libvirt/virt/domain_registry.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "common/interrupt_gate.hpp"
#include "orchestrator/base/logging/log.hpp"
#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"

namespace topolab::virt {
namespace {

int g_signal_pipe[2] = {-1, -1};

void on_signal(int sig) {
  // Noted before the watcher starts: from then on the process ends by the signal, never by a
  // command's own exit code or a result the cleanup caused (common/interrupt_gate.hpp).
  interrupt::note_signal(sig);
  unsigned char b = static_cast<unsigned char>(sig);
  ssize_t n = write(g_signal_pipe[1], &b, 1);  // async-signal-safe; the watcher does the rest
  (void)n;
}

const char* signal_name(int sig) {
  return sig == SIGINT    ? "SIGINT"
         : sig == SIGTERM ? "SIGTERM"
         : sig == SIGHUP  ? "SIGHUP"
                          : "signal";
}

void watch_signals() {
  interrupt::NeverHeld cleaner;  // its own reports are the ones that must get out
  for (;;) {
    unsigned char b = 0;
    ssize_t n = read(g_signal_pipe[0], &b, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n != 1) return;
    int sig = b;
    auto& reg = DomainRegistry::instance();
    auto names = reg.names();
    auto files = reg.files();
    const std::size_t processes = reg.process_count();
    auto failures = reg.interrupt_cleanup(sig);
    // Failures name their domain or file first ("NAME: why").
    auto failed = [&](const std::string& what) {
      return std::count_if(failures.begin(), failures.end(),
                           [&](const std::string& f) { return f.rfind(what + ": ", 0) == 0; });
    };
    std::size_t domains_removed = 0, files_removed = 0;
    for (const auto& name : names) domains_removed += failed(name) == 0 ? 1 : 0;
    for (const auto& f : files) files_removed += failed(f.string()) == 0 ? 1 : 0;
    std::string removed_files;
    if (!files.empty())
      removed_files = " and " + std::to_string(files_removed) + " overlay file(s)";
    const auto stuck = std::count_if(failures.begin(), failures.end(), [](const std::string& f) {
      return f.rfind("process ", 0) == 0;  // stop_processes_locked's "process PID: ..."
    });
    if (processes)
      removed_files += ", stopped " + std::to_string(processes - stuck) + " of " +
                       std::to_string(processes) + " agent(s) holding host settings";
    logging::info("interrupted by {}: removed {} domain(s){}{}", signal_name(sig), domains_removed,
                  removed_files, failures.empty() ? "" : ", failures:");
    for (const auto& f : failures) logging::warn("cleanup failed: {}", f);
    interrupt::end_by_signal(sig);
  }
}

// How long cleanup waits for a restarting libvirtd before it reports the domain as leaked.
constexpr std::chrono::seconds kReconnectWindow{30};

}  // namespace

Result<void> DomainRegistry::remove_entry(Entry& e) {
  auto dom = find_domain_by_uuid(e.conn.get(), e.uuid);
  if (!dom) {
    // The connection may have died with a libvirtd restart: reconnect once and retry.
    auto fresh = open_connection_retrying(e.uri, kReconnectWindow);
    if (!fresh)
      return dom.error().context(e.name + " (reconnect failed: " + fresh.error().message + ")");
    e.conn = std::move(fresh).value();
    dom = find_domain_by_uuid(e.conn.get(), e.uuid);
    if (!dom) return dom.error().context(e.name);
  }
  if (!*dom) return {};  // already gone
  return destroy_and_undefine((*dom)->get());
}

DomainRegistry& DomainRegistry::instance() {
  static DomainRegistry* reg = new DomainRegistry();  // never destroyed: used by the watcher
  return *reg;
}

Result<DomainPtr> DomainRegistry::define(virConnectPtr conn, const std::string& xml) {
  std::lock_guard lock(mu_);
  if (interrupt_signal_ != 0) {
    return make_error(ErrorKind::failed, "not defining a domain: interrupted by signal " +
                                             std::to_string(interrupt_signal_));
  }
  auto dom = define_domain(conn, xml);
  if (!dom) return dom.error();
  auto uuid = domain_uuid(dom->get());
  if (!uuid) {
    (void)destroy_and_undefine(dom->get());
    return uuid.error();
  }
  LibvirtString uri(virConnectGetURI(conn));
  virConnectRef(conn);
  entries_.push_back(Entry{ConnectPtr(conn), uri ? uri.get() : "", *uuid, domain_name(dom->get())});
  return std::move(dom).value();
}

Result<void> DomainRegistry::remove(const std::string& uuid) {
  std::lock_guard lock(mu_);
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const Entry& e) { return e.uuid == uuid; });
  if (it == entries_.end()) return {};
  Entry e = std::move(*it);
  entries_.erase(it);
  return remove_entry(e);
}

void DomainRegistry::release(const std::string& uuid) {
  std::lock_guard lock(mu_);
  std::erase_if(entries_, [&](const Entry& e) { return e.uuid == uuid; });
}

std::vector<std::string> DomainRegistry::cleanup_locked() {
  std::vector<std::string> failures;
  for (auto& e : entries_) {
    if (auto r = remove_entry(e); !r) failures.push_back(e.name + ": " + r.error().message);
  }
  entries_.clear();
  return failures;
}

std::vector<std::string> DomainRegistry::cleanup_all() {
  std::lock_guard lock(mu_);
  return cleanup_locked();
}

std::vector<std::string> DomainRegistry::interrupt_cleanup(int signal_number) {
  std::lock_guard lock(mu_);
  interrupt_signal_ = signal_number;
  auto failures = cleanup_locked();
  // After the domains: QEMU no longer has the overlays open.
  for (const auto& f : files_) {
    if (unlink(f.c_str()) != 0 && errno != ENOENT) {
      failures.push_back(f.string() + ": " + std::strerror(errno));
    }
  }
  files_.clear();
  stop_processes_locked(failures);
  return failures;
}

Result<void> DomainRegistry::add_process(pid_t pid) {
  std::lock_guard lock(mu_);
  if (interrupt_signal_ != 0)
    return make_error(ErrorKind::failed, "not starting process " + std::to_string(pid) +
                                             ": interrupted by signal " +
                                             std::to_string(interrupt_signal_));
  OwnedFd fd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!fd)
    return make_error(ErrorKind::io,
                      "pidfd_open(" + std::to_string(pid) + "): " + std::strerror(errno));
  processes_.push_back(Holder{pid, std::move(fd)});
  return {};
}

void DomainRegistry::forget_process(pid_t pid) {
  std::lock_guard lock(mu_);
  std::erase_if(processes_, [&](const Holder& h) { return h.pid == pid; });
}

std::size_t DomainRegistry::process_count() const {
  std::lock_guard lock(mu_);
  return processes_.size();
}

// The pidfd is ours: the child may already be reaped by its owner's thread, and its pid reused,
// without this signalling or waiting for another process.
void DomainRegistry::stop_processes_locked(std::vector<std::string>& failures) {
  for (auto& h : processes_) {
    const std::string who = "process " + std::to_string(h.pid);
    if (::syscall(SYS_pidfd_send_signal, h.pidfd.get(), SIGTERM, nullptr, 0) != 0 &&
        errno != ESRCH) {
      failures.push_back(who + ": SIGTERM: " + std::strerror(errno));
      continue;
    }
    pollfd p{h.pidfd.get(), POLLIN, 0};
    int r = 0;
    do {
      r = ::poll(&p, 1, kProcessStopBoundMs);
    } while (r < 0 && errno == EINTR);
    if (r <= 0)
      failures.push_back(who + ": still running " + std::to_string(kProcessStopBoundMs / 1000) +
                         " s after SIGTERM (what it changed may not be restored)");
  }
  processes_.clear();
}

Result<void> DomainRegistry::add_file(const std::filesystem::path& path) {
  std::lock_guard lock(mu_);
  if (interrupt_signal_ != 0) {
    return make_error(ErrorKind::failed, "not creating " + path.string() +
                                             ": interrupted by signal " +
                                             std::to_string(interrupt_signal_));
  }
  files_.push_back(path);
  return {};
}

void DomainRegistry::forget_file(const std::filesystem::path& path) {
  std::lock_guard lock(mu_);
  std::erase(files_, path);
}

std::vector<std::filesystem::path> DomainRegistry::files() const {
  std::lock_guard lock(mu_);
  return files_;
}

std::vector<std::string> DomainRegistry::names() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& e : entries_) out.push_back(e.name);
  return out;
}

bool DomainRegistry::interrupted() const { return interrupt_signal() != 0; }

int DomainRegistry::interrupt_signal() const {
  std::lock_guard lock(mu_);
  return interrupt_signal_;
}

void DomainRegistry::install_signal_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (pipe2(g_signal_pipe, O_CLOEXEC) != 0) {
      logging::warn("cannot create signal pipe: {}", std::strerror(errno));
      return;
    }
    std::thread(watch_signals).detach();
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    // A closed terminal or ssh session (SIGHUP) used to kill the run at once and leave its
    // domain running; under nohup (SIGHUP ignored) it stays ignored.
    struct sigaction hup {};
    if (sigaction(SIGHUP, nullptr, &hup) == 0 && hup.sa_handler != SIG_IGN)
      sigaction(SIGHUP, &sa, nullptr);
  });
}

OwnedDomain::OwnedDomain(DomainPtr dom, std::string name, std::string uuid,
                         DomainRegistry* registry)
    : dom_(std::move(dom)), name_(std::move(name)), uuid_(std::move(uuid)), registry_(registry) {}

Result<OwnedDomain> OwnedDomain::define(virConnectPtr conn, const std::string& xml,
                                        DomainRegistry& registry) {
  auto dom = registry.define(conn, xml);
  if (!dom) return dom.error();
  std::string name = domain_name(dom->get());
  auto uuid = domain_uuid(dom->get());
  if (!uuid) return uuid.error();  // cannot happen: the registry read it already
  return OwnedDomain(std::move(dom).value(), std::move(name), *uuid, &registry);
}

OwnedDomain::OwnedDomain(OwnedDomain&& other) noexcept
    : dom_(std::move(other.dom_)),
      name_(std::move(other.name_)),
      uuid_(std::move(other.uuid_)),
      registry_(std::exchange(other.registry_, nullptr)) {}

OwnedDomain& OwnedDomain::operator=(OwnedDomain&& other) noexcept {
  if (this != &other) {
    (void)remove();
    dom_ = std::move(other.dom_);
    name_ = std::move(other.name_);
    uuid_ = std::move(other.uuid_);
    registry_ = std::exchange(other.registry_, nullptr);
  }
  return *this;
}

OwnedDomain::~OwnedDomain() {
  if (auto r = remove(); !r) {
    logging::warn("cleanup of domain {} failed: {}", name_, r.error().message);
  }
}

Result<void> OwnedDomain::remove() {
  if (!registry_) return {};
  DomainRegistry* reg = std::exchange(registry_, nullptr);
  return reg->remove(uuid_);
}

void OwnedDomain::release() {
  if (!registry_) return;
  std::exchange(registry_, nullptr)->release(uuid_);
}

}  // namespace topolab::virt
