#pragma once
// The real KVM probe behind `--accel auto`: boot a 1-vCPU KVM guest from the built-in image and
// require the agent's hello within a short bound. On hosts where /dev/kvm exists but nested KVM
// hangs, the guest never prints a line: the probe gives up after `console_bound` of a silent
// serial console instead of waiting the whole `bound`, so auto lands on TCG quickly.
// Through libvirt's remote driver (issue 16: qemu+ssh://, qemu+tcp://) the probe guest's console
// and agent channel are on that host: they are read through libvirt streams (a pty console
// bridged into the local probe-console.log, the channel bridged to a socketpair;
// virt/stream_bridge.hpp), exactly as a remote boot's (guest_session_streams.cpp), so auto
// decides on the remote host's KVM. The verdict's reason says "through libvirt streams".
#include <chrono>
#include <filesystem>
#include <string>

#include "orchestrator/guest/image/guest_image.hpp"
#include "orchestrator/libvirt/virt/accelerator.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::session {

struct KvmProbeOptions {
  GuestImage image;
  std::filesystem::path work_dir;  // gets probe.xml, probe-console.log, probe-agent.log
  std::string run_id;
  std::chrono::milliseconds bound = virt::kKvmProbeBound;
  std::chrono::milliseconds console_bound{3000};
};

// The probe guest's domain XML (kernel console not quiet, so a live guest prints at once).
// Empty serial_log and socket: a pty console and a channel socket libvirt places on its host
// (the remote probe, read through streams).
std::string kvm_probe_domain_xml(const std::string& name, const GuestImage& image,
                                 const std::filesystem::path& serial_log,
                                 const std::filesystem::path& socket);

// Never leaves a domain behind (the probe domain is an OwnedDomain).
virt::KvmVerdict probe_kvm(virConnectPtr conn, const KvmProbeOptions& options);

}  // namespace topolab::session
