#pragma once
// What each vCPU of a hung guest was doing when the boot watchdog fired (issue 17: a hung
// console says where the boot stopped, not which CPU). QEMU's `info registers -a` (through
// `virsh qemu-monitor-command --hmp`: the HMP text is QEMU's own, bounded) is kept in the run
// folder as vcpus.log, headed by a one-line summary that the hang error quotes. The built-in
// guest boots its vmlinux through PVH, which skips KASLR, so RIPs are link addresses: they
// can be looked up in the kernel's -dbg System.map.
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::virt {

struct VcpuRegisters {
  int cpu = -1;
  std::string rip;  // 16 hex digits as QEMU prints them
  bool halted = false;
  int cpl = -1;  // 0: kernel, 3: user
};

// Parses `info registers -a` text (CPU#N headers, then RIP=... CPL=N ... HLT=N); unreadable
// parts are skipped, at most 1024 vCPUs.
std::vector<VcpuRegisters> parse_vcpu_registers(const std::string& text);

// Grouped by place: "16 vCPUs; RIP=ffffffff81a592eb CPL=0 on 15 (#1,#2,...; 15 halted);
// RIP=ffffffff8112a0c4 CPL=0 on 1 (#0; 0 halted)", at most 8 places; or why none was read.
std::string summarize_vcpus(const std::vector<VcpuRegisters>& vcpus);

// The first vCPU of each place summarize_vcpus() shows (at most 8): whose code bytes and stack
// snapshot_vcpus() reads.
std::vector<int> vcpus_to_inspect(const std::vector<VcpuRegisters>& vcpus);

// QMP `human-monitor-command` for one vCPU (HMP's `x` reads through that vCPU's page tables).
std::string hmp_on_vcpu_request(int cpu, const std::string& hmp);

// The text of a QMP reply's "return" string (CRs dropped), or "" when it is not one.
std::string qmp_return_text(const std::string& reply);

// Asks QEMU for every vCPU's registers (10 s bound), then, for the first vCPU of each place, the
// 16 code bytes at its RIP and 32 words of its stack (the memory the vCPU sees: a trap loop on
// an instruction no longer in memory, and the caller chain, read off with
// bench/boot/resolve_vcpus.py and the kernel's System.map); writes `summary\n\nraw text` to
// `out` and returns the summary line. Best effort (registers 10 s, memory 8 s): the caller destroys
// the guest either way.
Result<std::string> snapshot_vcpus(virDomainPtr dom, const std::filesystem::path& out);

}  // namespace topolab::virt
