// The topology as Windows reports it: GetLogicalProcessorInformationEx(RelationAll), turned
// into the same RawTopology the sysfs reader produces, so host/topology_builder applies the
// same rules (cores = SMT sibling sets, dies and L3 domains numbered machine-wide) and the
// hello carries the same JSON as the Linux agent's.
//
// CPU ids: Windows names a logical processor by (processor group, bit in the group's 64-bit
// affinity mask). The agent numbers it group * 64 + bit, so machines with <= 64 CPUs (one
// group) get the ids Linux would give; beyond 64 the ids have gaps when a group is not full.
#include <cpuid.h>
#include <windows.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

#include "guest-agent/os.hpp"
#include "guest-agent/windows_support.hpp"

namespace topolab::agent::win {
namespace {

// Relationship values newer than mingw-w64's winnt.h (Windows SDK 10.0.20348+).
constexpr int kRelationProcessorDie = 5;
constexpr int kRelationNumaNodeEx = 6;
constexpr std::size_t kMaxBuffer = 16u << 20;

void add_mask(CpuList& out, WORD group, KAFFINITY mask) {
  for (int bit = 0; bit < 64; ++bit) {
    if (mask & (KAFFINITY{1} << bit)) out.insert(static_cast<int>(group) * 64 + bit);
  }
}

CpuList processor_cpus(const PROCESSOR_RELATIONSHIP& p) {
  CpuList cpus;
  for (WORD g = 0; g < p.GroupCount; ++g) add_mask(cpus, p.GroupMask[g].Group, p.GroupMask[g].Mask);
  return cpus;
}

// NUMA_NODE_RELATIONSHIP and CACHE_RELATIONSHIP: Windows 11/Server 2022 put a WORD GroupCount in
// the last two reserved bytes and an array of masks after it; older systems leave it 0 and
// have exactly one mask.
template <typename Rel>
CpuList group_masks(const Rel& r, const unsigned char* record_end) {
  WORD count = 0;
  std::memcpy(&count, r.Reserved + sizeof(r.Reserved) - sizeof(WORD), sizeof(WORD));
  if (count == 0) count = 1;
  CpuList cpus;
  const GROUP_AFFINITY* masks = &r.GroupMask;
  for (WORD g = 0; g < count; ++g) {
    if (reinterpret_cast<const unsigned char*>(masks + g + 1) > record_end) break;
    add_mask(cpus, masks[g].Group, masks[g].Mask);
  }
  return cpus;
}

struct Collected {
  std::vector<CpuList> cores, packages, dies;
  RawTopology raw;
};

void collect(const SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX& info, const unsigned char* end,
             Collected& c) {
  switch (static_cast<int>(info.Relationship)) {
    case RelationProcessorCore:
      c.cores.push_back(processor_cpus(info.Processor));
      break;
    case RelationProcessorPackage:
      c.packages.push_back(processor_cpus(info.Processor));
      break;
    case kRelationProcessorDie:
      c.dies.push_back(processor_cpus(info.Processor));
      break;
    case RelationCache:
      if (info.Cache.Level == 3 &&
          (info.Cache.Type == CacheUnified || info.Cache.Type == CacheData))
        c.raw.l3.push_back({group_masks(info.Cache, end), info.Cache.CacheSize / 1024u});
      break;
    case RelationNumaNode:
    case kRelationNumaNodeEx: {
      NumaNode n;
      n.id = static_cast<int>(info.NumaNode.NodeNumber);
      n.cpus = group_masks(info.NumaNode, end);
      // memory_kib stays 0 (unknown): Windows reports a node's available, not total, memory.
      c.raw.numa_nodes.push_back(std::move(n));
      break;
    }
    default:
      break;  // RelationGroup, RelationProcessorModule: not part of the model
  }
}

int index_containing(const std::vector<CpuList>& sets, int cpu) {
  for (std::size_t i = 0; i < sets.size(); ++i) {
    if (sets[i].contains(cpu)) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

Result<RawTopology> parse_processor_information(const unsigned char* buffer, std::size_t bytes) {
  Collected c;
  std::size_t offset = 0;
  const std::size_t header = offsetof(SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX, Processor);
  while (offset + header <= bytes) {
    SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX info;
    std::memset(&info, 0, sizeof(info));
    std::memcpy(&info, buffer + offset, std::min<std::size_t>(sizeof(info), bytes - offset));
    if (info.Size < header || info.Size > bytes - offset) {
      return make_error("GetLogicalProcessorInformationEx: record at byte " +
                        std::to_string(offset) + " has size " + std::to_string(info.Size));
    }
    // Records with more groups than sizeof(info) holds are read in place.
    const auto* rec =
        reinterpret_cast<const SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX*>(buffer + offset);
    collect(info.Size > sizeof(info) ? *rec : info, buffer + offset + info.Size, c);
    offset += info.Size;
  }
  CpuList all;
  for (const auto& core : c.cores) all = all.united(core);
  if (all.empty())
    return make_error("GetLogicalProcessorInformationEx reported no processor cores");
  for (int id : all) {
    RawCpu cpu;
    cpu.id = id;
    cpu.package = std::max(0, index_containing(c.packages, id));
    cpu.siblings = c.cores[static_cast<std::size_t>(index_containing(c.cores, id))];
    // Die ids within the package, in the order Windows lists the package's dies.
    int die = index_containing(c.dies, id), within = 0;
    for (int d = 0; d < die; ++d) {
      if (index_containing(c.packages, c.dies[static_cast<std::size_t>(d)].first()) == cpu.package)
        ++within;
    }
    cpu.die_id = die < 0 ? 0 : within;
    c.raw.cpus.push_back(std::move(cpu));
  }
  return std::move(c.raw);
}

std::string cpuid_vendor() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return "";
  char v[13] = {};
  std::memcpy(v, &b, 4);
  std::memcpy(v + 4, &d, 4);
  std::memcpy(v + 8, &c, 4);
  return v;
}

std::string cpuid_brand() {
  unsigned max = __get_cpuid_max(0x80000000u, nullptr);
  if (max < 0x80000004u) return "";
  char brand[49] = {};
  for (unsigned leaf = 0; leaf < 3; ++leaf) {
    unsigned r[4] = {};
    __get_cpuid(0x80000002u + leaf, &r[0], &r[1], &r[2], &r[3]);
    std::memcpy(brand + leaf * 16, r, 16);
  }
  std::string s(brand);
  s.erase(0, s.find_first_not_of(' '));
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace topolab::agent::win

namespace topolab::agent::os {

Result<HostTopology> read_local_topology() {
  DWORD bytes = 0;
  GetLogicalProcessorInformationEx(RelationAll, nullptr, &bytes);
  if (GetLastError() != ERROR_INSUFFICIENT_BUFFER || bytes == 0 || bytes > win::kMaxBuffer) {
    return make_error(win::last_error("GetLogicalProcessorInformationEx (size)"));
  }
  std::vector<unsigned char> buffer(bytes);
  auto* info = reinterpret_cast<SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX*>(buffer.data());
  if (!GetLogicalProcessorInformationEx(RelationAll, info, &bytes)) {
    return make_error(win::last_error("GetLogicalProcessorInformationEx"));
  }
  auto raw = win::parse_processor_information(buffer.data(), bytes);
  if (!raw) return raw.error();
  raw->vendor = win::cpuid_vendor();
  raw->model = win::cpuid_brand();
  raw->source = "windows:GetLogicalProcessorInformationEx";
  return build_topology(std::move(*raw));
}

}  // namespace topolab::agent::os
