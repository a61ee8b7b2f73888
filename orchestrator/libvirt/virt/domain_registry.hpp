#pragma once
// Every domain this process creates is recorded here, so that every path out destroys and
// undefines exactly those domains and nothing else: normal return (OwnedDomain's destructor),
// errors and timeouts (the same destructor during unwinding), and SIGINT/SIGTERM (a watcher
// thread cleans up the registry, then lets the signal terminate the process).
// Files that must not outlive the run (own guests' qcow2 overlays, their base XMLs and NVRAM
// copies, issue 14) are recorded beside the domains: an interrupt removes them too, after the
// domains that use them are gone.
// A SIGKILLed run cannot clean up: stale_domains.hpp (and guestsource/overlay.hpp for the
// files) removes its leftovers later.
#include <sys/types.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "common/owned_fd.hpp"
#include "common/result.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::virt {

class DomainRegistry {
 public:
  // The process-wide registry used by OwnedDomain and the signal handlers.
  static DomainRegistry& instance();

  // Defines a persistent domain and records it. The lock is held across the define, so an
  // interrupt cleanup running meanwhile waits for it and then removes it too. Refused after
  // an interrupt (the process is about to exit).
  Result<DomainPtr> define(virConnectPtr conn, const std::string& xml);
  // Destroys + undefines a recorded domain and forgets it; a domain that is not recorded
  // (already cleaned up) is left alone and this succeeds.
  Result<void> remove(const std::string& uuid);
  // Forgets a domain without touching it (--keep).
  void release(const std::string& uuid);
  // Destroys + undefines every recorded domain; one message per failure.
  std::vector<std::string> cleanup_all();
  // What an interrupt does before the process exits: refuse new defines and files, then
  // cleanup_all(), then unlink every recorded file.
  std::vector<std::string> interrupt_cleanup(int signal_number);

  // Records a file for the interrupt path (its owner deletes it on every other path). Refused
  // after an interrupt: the caller must not create it.
  Result<void> add_file(const std::filesystem::path& path);
  void forget_file(const std::filesystem::path& path);

  // Records a child that holds host state only it can put back (the host backend's agent
  // with --allow-host-settings): an interrupt sends it SIGTERM after the files and waits up to
  // kProcessStopBound for it to end (it restores, then dies by the signal). Refused after an
  // interrupt, or when the kernel has no pidfd (no way to wait for a child another thread
  // may reap).
  Result<void> add_process(pid_t pid);
  void forget_process(pid_t pid);
  std::size_t process_count() const;
  static constexpr int kProcessStopBoundMs = 15000;

  std::vector<std::string> names() const;
  std::vector<std::filesystem::path> files() const;
  bool interrupted() const;
  int interrupt_signal() const;

  // Installs SIGINT/SIGTERM/SIGHUP handlers (idempotent; an ignored SIGHUP stays ignored) for the
  // process-wide registry. The handler only writes to a pipe; a watcher thread does the libvirt
  // calls, reports on stderr, then re-raises the signal with its default action.
  static void install_signal_handlers();

 private:
  struct Entry {
    ConnectPtr conn;
    std::string uri;  // to reconnect when libvirtd was restarted since the define
    std::string uuid, name;
  };
  std::vector<std::string> cleanup_locked();
  // Destroys + undefines the entry's domain; a domain libvirt says does not exist is done.
  static Result<void> remove_entry(Entry& e);

  mutable std::mutex mu_;
  std::vector<Entry> entries_;
  std::vector<std::filesystem::path> files_;
  struct Holder {
    pid_t pid;
    OwnedFd pidfd;
  };
  std::vector<Holder> processes_;
  void stop_processes_locked(std::vector<std::string>& failures);
  int interrupt_signal_ = 0;
};

// A domain created by this run. The destructor destroys and undefines it unless released.
class OwnedDomain {
 public:
  static Result<OwnedDomain> define(virConnectPtr conn, const std::string& xml,
                                    DomainRegistry& registry = DomainRegistry::instance());
  OwnedDomain(OwnedDomain&& other) noexcept;
  OwnedDomain& operator=(OwnedDomain&& other) noexcept;
  OwnedDomain(const OwnedDomain&) = delete;
  OwnedDomain& operator=(const OwnedDomain&) = delete;
  ~OwnedDomain();

  virDomainPtr get() const { return dom_.get(); }
  const std::string& name() const { return name_; }
  const std::string& uuid() const { return uuid_; }
  explicit operator bool() const { return static_cast<bool>(dom_); }

  // Destroys + undefines now (idempotent).
  Result<void> remove();
  // Keeps the domain defined (and running) after this object goes away.
  void release();

 private:
  OwnedDomain(DomainPtr dom, std::string name, std::string uuid, DomainRegistry* registry);
  DomainPtr dom_;
  std::string name_, uuid_;
  DomainRegistry* registry_ = nullptr;
};

}  // namespace topolab::virt
