#include "orchestrator/libvirt/virt/vcpu_snapshot.hpp"

#include <libvirt/libvirt.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/file_io.hpp"
#include "common/process.hpp"
#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"

namespace topolab::virt {
namespace {

constexpr std::size_t kMaxVcpus = 1024;
constexpr std::size_t kMaxRegistersText = 4u << 20;  // ~1.5 KiB per vCPU
constexpr std::size_t kMaxMemoryText = 64u << 10;    // one `x` reply: ~1 KiB
constexpr std::size_t kMaxPlaces = 8;
// Code bytes at RIP (an int3 the vCPU keeps trapping on that memory no longer holds) and the top
// of the stack (return addresses: the caller chain; an exception frame's saved RIP).
constexpr const char* kMemoryCommands[] = {"x/16bx $pc", "x/32gx $esp"};

// The value after "KEY=" up to the next space, or "".
std::string field(const std::string& line, const std::string& key) {
  for (std::size_t at = line.find(key + "="); at != std::string::npos;
       at = line.find(key + "=", at + 1)) {
    if (at != 0 && line[at - 1] != ' ') continue;  // "EIP=" is not "IP="
    const auto from = at + key.size() + 1;
    return line.substr(from, line.find(' ', from) - from);
  }
  return "";
}

bool all_hex(const std::string& s) {
  return !s.empty() && s.size() <= 16 &&
         s.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
}

}  // namespace

std::vector<VcpuRegisters> parse_vcpu_registers(const std::string& text) {
  std::vector<VcpuRegisters> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line) && out.size() <= kMaxVcpus;) {
    // Through virsh, QEMU's HMP lines end in CRLF: "HLT=1\r" is halted too.
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("CPU#", 0) == 0) {
      VcpuRegisters v;
      try {
        v.cpu = std::stoi(line.substr(4));
      } catch (const std::exception&) {
        continue;
      }
      out.push_back(v);
      continue;
    }
    if (out.empty() || line.rfind("RIP=", 0) != 0) continue;
    auto& v = out.back();
    const auto rip = field(line, "RIP");
    if (all_hex(rip)) v.rip = rip;
    const auto cpl = field(line, "CPL");
    if (cpl.size() == 1 && cpl[0] >= '0' && cpl[0] <= '3') v.cpl = cpl[0] - '0';
    v.halted = field(line, "HLT") == "1";
  }
  if (out.size() > kMaxVcpus) out.resize(kMaxVcpus);
  return out;
}

// Grouped by where they were: the idle loop's RIP is shared by every idle vCPU, so the vCPU
// that stands apart is the one to look at. (QEMU's HLT flag is not enough: a vCPU woken by the
// monitor's own request shows HLT=0 at the idle loop's RIP.)
std::string summarize_vcpus(const std::vector<VcpuRegisters>& vcpus) {
  if (vcpus.empty()) return "no vCPU registers read";
  struct Group {
    std::string where, cpus;
    std::size_t count = 0, halted = 0;
  };
  std::vector<Group> groups;
  for (const auto& v : vcpus) {
    const std::string where =
        "RIP=" + (v.rip.empty() ? std::string("?") : v.rip) + " CPL=" + std::to_string(v.cpl);
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const Group& x) { return x.where == where; });
    if (g == groups.end()) {
      if (groups.size() >= kMaxPlaces) continue;  // one short line: the first 8 places
      g = groups.insert(groups.end(), Group{where, "", 0, 0});
    }
    ++g->count;
    g->halted += v.halted ? 1 : 0;
    if (g->cpus.size() < 60) g->cpus += (g->cpus.empty() ? "#" : ",#") + std::to_string(v.cpu);
  }
  std::string s = std::to_string(vcpus.size()) + " vCPUs";
  for (const auto& g : groups) {
    s += "; " + g.where + " on " + std::to_string(g.count) + " (" + g.cpus +
         (g.cpus.size() >= 60 ? ",..." : "") + "; " + std::to_string(g.halted) + " halted)";
  }
  return s;
}

std::vector<int> vcpus_to_inspect(const std::vector<VcpuRegisters>& vcpus) {
  std::vector<int> cpus;
  std::vector<std::pair<std::string, int>> seen;  // place (RIP, CPL) -> first vCPU
  for (const auto& v : vcpus) {
    if (v.cpu < 0 || seen.size() >= kMaxPlaces) continue;
    const auto place = std::make_pair(v.rip, v.cpl);
    if (std::any_of(seen.begin(), seen.end(), [&](const auto& s) {
          return s.first == place.first && s.second == place.second;
        }))
      continue;
    seen.push_back(place);
    cpus.push_back(v.cpu);
  }
  return cpus;
}

std::string hmp_on_vcpu_request(int cpu, const std::string& hmp) {
  return nlohmann::json{{"execute", "human-monitor-command"},
                        {"arguments", {{"command-line", hmp}, {"cpu-index", cpu}}}}
      .dump();
}

std::string qmp_return_text(const std::string& reply) {
  const auto j = nlohmann::json::parse(reply, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("return") || !j["return"].is_string()) return "";
  auto text = j["return"].get<std::string>();
  text.erase(std::remove(text.begin(), text.end(), '\r'), text.end());
  return text;
}

namespace {

// The code bytes and stack of the first vCPU of each place, as "== CPU#N COMMAND" sections;
// stops at the first failure or when `budget` is spent (the guest is destroyed next).
std::string memory_sections(const std::string& uri, const std::string& domain,
                            const std::vector<VcpuRegisters>& vcpus, std::chrono::seconds budget) {
  const auto until = std::chrono::steady_clock::now() + budget;
  std::string out;
  for (const int cpu : vcpus_to_inspect(vcpus)) {
    for (const char* command : kMemoryCommands) {
      if (std::chrono::steady_clock::now() >= until) return out + "\n(time budget spent)\n";
      auto spec = ProcessSpec::in_path(
          {"virsh", "-c", uri, "qemu-monitor-command", domain, hmp_on_vcpu_request(cpu, command)},
          std::chrono::seconds(5));
      spec.max_output = kMaxMemoryText;
      auto reply = run_for_output(spec);
      if (!reply) return out + "\n(" + reply.error().message.substr(0, 300) + ")\n";
      out += "\n== CPU#" + std::to_string(cpu) + " " + command + "\n" + qmp_return_text(*reply);
    }
  }
  return out;
}

}  // namespace

Result<std::string> snapshot_vcpus(virDomainPtr dom, const std::filesystem::path& out) {
  virConnectPtr conn = virDomainGetConnect(dom);
  char* uri = conn ? virConnectGetURI(conn) : nullptr;
  if (uri == nullptr)
    return make_error(ErrorKind::libvirt, "vCPU registers: the domain's connection has no URI");
  const std::string connect_uri(uri);
  free(uri);
  auto spec = ProcessSpec::in_path({"virsh", "-c", connect_uri, "qemu-monitor-command", "--hmp",
                                    domain_name(dom), "info registers -a"},
                                   std::chrono::seconds(10));
  spec.max_output = kMaxRegistersText;
  TL_ASSIGN_CTX(auto text, run_for_output(spec), "vCPU registers");
  const auto vcpus = parse_vcpu_registers(text);
  auto summary = summarize_vcpus(vcpus);
  const auto memory =
      memory_sections(connect_uri, domain_name(dom), vcpus, std::chrono::seconds(8));
  TL_TRY(write_file_atomic(out, summary + "\n\n" + text + memory, 0600));
  return summary;
}

}  // namespace topolab::virt
