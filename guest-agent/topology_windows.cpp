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
#include "host/topology_builder.hpp"

namespace topolab::agent::win {
namespace {

// Relationship values newer than mingw-w64's winnt.h (Windows SDK 10.0.20348+).
constexpr int kRelationProcessorDie = 5;
constexpr int kRelationNumaNodeEx = 6;
constexpr std::size_t kMaxBuffer = 16u << 20;

// One record of the buffer: its relation and the bytes after the 8-byte header.
struct Record {
  int relationship;
  const unsigned char* body;
  std::size_t body_bytes;
  std::size_t offset;  // in the buffer, for messages
};

Error bad_record(const Record& r, const std::string& what) {
  return make_error(ErrorKind::input, "GetLogicalProcessorInformationEx: record at byte " +
                                          std::to_string(r.offset) + " (relation " +
                                          std::to_string(r.relationship) + "): " + what);
}

// The relation's fixed part (everything before its first GROUP_AFFINITY), copied out: records
// are read with memcpy, never through pointers that might be misaligned.
template <typename Rel>
Result<Rel> fixed_part(const Record& r) {
  Rel rel;
  std::memset(&rel, 0, sizeof(rel));
  const std::size_t fixed = offsetof(Rel, GroupMask);
  if (r.body_bytes < fixed) return bad_record(r, "shorter than its fixed fields");
  std::memcpy(&rel, r.body, fixed);
  return rel;
}

// `count` GROUP_AFFINITY masks from the first mask's offset, each inside the record; a CPU is
// group * 64 + bit, groups bounded so ids stay below the model's CPU limit.
template <typename Rel>
Result<CpuList> masks(const Record& r, unsigned count) {
  const std::size_t at = offsetof(Rel, GroupMask);
  if (count == 0 || at + count * sizeof(GROUP_AFFINITY) > r.body_bytes) {
    return bad_record(r, std::to_string(count) + " processor group masks do not fit in " +
                             std::to_string(r.body_bytes) + " bytes");
  }
  CpuList cpus;
  for (unsigned g = 0; g < count; ++g) {
    GROUP_AFFINITY ga;
    std::memcpy(&ga, r.body + at + g * sizeof(GROUP_AFFINITY), sizeof(ga));
    if (ga.Group >= kMaxTopologyCpus / 64) {
      return bad_record(r, "processor group " + std::to_string(ga.Group) + " out of range");
    }
    for (int bit = 0; bit < 64; ++bit) {
      if (ga.Mask & (KAFFINITY{1} << bit)) cpus.insert(static_cast<int>(ga.Group) * 64 + bit);
    }
  }
  return cpus;
}

Result<CpuList> processor_cpus(const Record& r) {
  TL_ASSIGN(const auto p, fixed_part<PROCESSOR_RELATIONSHIP>(r));
  return masks<PROCESSOR_RELATIONSHIP>(r, p.GroupCount);
}

// NUMA_NODE_RELATIONSHIP and CACHE_RELATIONSHIP: Windows 11/Server 2022 put a WORD GroupCount in
// the last two reserved bytes and an array of masks after it; older systems leave it 0 and
// have exactly one mask.
template <typename Rel>
unsigned group_count(const Rel& rel) {
  WORD count = 0;
  std::memcpy(&count, rel.Reserved + sizeof(rel.Reserved) - sizeof(WORD), sizeof(WORD));
  return count == 0 ? 1u : count;
}

struct Collected {
  std::vector<CpuList> cores, packages, dies;
  RawTopology raw;
};

Result<void> collect(const Record& r, Collected& c) {
  switch (r.relationship) {
    case RelationProcessorCore:
    case RelationProcessorPackage:
    case kRelationProcessorDie: {
      TL_ASSIGN(CpuList cpus, processor_cpus(r));
      auto& list = r.relationship == RelationProcessorCore      ? c.cores
                   : r.relationship == RelationProcessorPackage ? c.packages
                                                                : c.dies;
      list.push_back(std::move(cpus));
      return {};
    }
    case RelationCache: {
      TL_ASSIGN(const auto cache, fixed_part<CACHE_RELATIONSHIP>(r));
      if (cache.Level != 3 || (cache.Type != CacheUnified && cache.Type != CacheData)) return {};
      TL_ASSIGN(CpuList cpus, masks<CACHE_RELATIONSHIP>(r, group_count(cache)));
      c.raw.l3.push_back({std::move(cpus), cache.CacheSize / 1024u});
      return {};
    }
    case RelationNumaNode:
    case kRelationNumaNodeEx: {
      TL_ASSIGN(const auto node, fixed_part<NUMA_NODE_RELATIONSHIP>(r));
      NumaNode n;
      TL_ASSIGN(n.cpus, masks<NUMA_NODE_RELATIONSHIP>(r, group_count(node)));
      n.id = static_cast<int>(std::min<DWORD>(node.NodeNumber, 1u << 20));
      // memory_kib stays 0 (unknown): Windows reports a node's available, not total, memory.
      c.raw.numa_nodes.push_back(std::move(n));
      return {};
    }
    default:
      return {};  // RelationGroup, RelationProcessorModule: not part of the model
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
  constexpr std::size_t kHeader = 2 * sizeof(DWORD);  // Relationship, Size
  while (offset + kHeader <= bytes) {
    DWORD header[2];
    std::memcpy(header, buffer + offset, kHeader);
    if (header[1] < kHeader || header[1] > bytes - offset) {
      return make_error(ErrorKind::input, "GetLogicalProcessorInformationEx: record at byte " +
                                              std::to_string(offset) + " has size " +
                                              std::to_string(header[1]) + " (buffer " +
                                              std::to_string(bytes) + " bytes)");
    }
    Record r{static_cast<int>(header[0]), buffer + offset + kHeader, header[1] - kHeader, offset};
    TL_TRY(collect(r, c));
    offset += header[1];
  }
  CpuList all;
  for (const auto& core : c.cores) all = all.united(core);
  if (all.empty())
    return make_error(ErrorKind::input,
                      "GetLogicalProcessorInformationEx reported no processor cores");
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
    return make_error(ErrorKind::io, win::last_error("GetLogicalProcessorInformationEx (size)"));
  }
  std::vector<unsigned char> buffer(bytes);
  auto* info = reinterpret_cast<SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX*>(buffer.data());
  if (!GetLogicalProcessorInformationEx(RelationAll, info, &bytes)) {
    return make_error(ErrorKind::io, win::last_error("GetLogicalProcessorInformationEx"));
  }
  auto raw = win::parse_processor_information(buffer.data(), bytes);
  if (!raw) return raw.error();
  raw->vendor = win::cpuid_vendor();
  raw->model = win::cpuid_brand();
  raw->source = "windows:GetLogicalProcessorInformationEx";
  return build_topology(std::move(*raw));
}

}  // namespace topolab::agent::os
