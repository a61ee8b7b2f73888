// topolab-agent-checks.exe: checks of the Windows-only topology parser on hand-made
// GetLogicalProcessorInformationEx buffers, for what wine cannot show (it reports one processor
// group and no dies): two groups (CPU id = group * 64 + bit), dies within packages, Windows 11
// multi-group NUMA records, malformed records. Built by guest-agent/windows/CMakeLists.txt, run
// under wine by topology_parser_wine_test.cpp; prints one line per check, exits 1 on a failure.
#include <windows.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "guest-agent/windows_support.hpp"
#include "host/topology_builder.hpp"

namespace {

using topolab::CpuList;

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

// Appends one record: the 8-byte header, then `body`.
void record(std::vector<unsigned char>& buf, int relation, const void* body, std::size_t size) {
  DWORD header[2] = {static_cast<DWORD>(relation), static_cast<DWORD>(8 + size)};
  const auto* h = reinterpret_cast<const unsigned char*>(header);
  buf.insert(buf.end(), h, h + 8);
  const auto* b = static_cast<const unsigned char*>(body);
  buf.insert(buf.end(), b, b + size);
}

GROUP_AFFINITY mask(WORD group, KAFFINITY bits) {
  GROUP_AFFINITY g{};
  g.Group = group;
  g.Mask = bits;
  return g;
}

// PROCESSOR_RELATIONSHIP (core, package, die) with the given masks.
void processor(std::vector<unsigned char>& buf, int relation, std::vector<GROUP_AFFINITY> m) {
  std::vector<unsigned char> body(offsetof(PROCESSOR_RELATIONSHIP, GroupMask));
  WORD count = static_cast<WORD>(m.size());
  std::memcpy(body.data() + offsetof(PROCESSOR_RELATIONSHIP, GroupCount), &count, 2);
  const auto* p = reinterpret_cast<const unsigned char*>(m.data());
  body.insert(body.end(), p, p + m.size() * sizeof(GROUP_AFFINITY));
  record(buf, relation, body.data(), body.size());
}

// CACHE_RELATIONSHIP / NUMA_NODE_RELATIONSHIP; group_count 0 = the pre-Windows-11 layout.
template <typename Rel>
void grouped(std::vector<unsigned char>& buf, int relation, Rel fixed, WORD group_count,
             std::vector<GROUP_AFFINITY> m) {
  std::memcpy(fixed.Reserved + sizeof(fixed.Reserved) - 2, &group_count, 2);
  std::vector<unsigned char> body(offsetof(Rel, GroupMask));
  std::memcpy(body.data(), &fixed, body.size());
  const auto* p = reinterpret_cast<const unsigned char*>(m.data());
  body.insert(body.end(), p, p + m.size() * sizeof(GROUP_AFFINITY));
  record(buf, relation, body.data(), body.size());
}

CACHE_RELATIONSHIP l3(DWORD bytes) {
  CACHE_RELATIONSHIP c{};
  c.Level = 3;
  c.Type = CacheUnified;
  c.CacheSize = bytes;
  return c;
}

NUMA_NODE_RELATIONSHIP node(DWORD n) {
  NUMA_NODE_RELATIONSHIP r{};
  r.NodeNumber = n;
  return r;
}

// 2 packages in 2 processor groups (group 0 bits 0-7, group 1 bits 0-7), each with 2 dies of
// 2 SMT2 cores, one L3 per die; NUMA node 0 per package (old layout), node 1 as Windows 11
// reports it (GroupCount 1, explicitly).
std::vector<unsigned char> two_group_machine() {
  std::vector<unsigned char> b;
  for (WORD g = 0; g < 2; ++g) {
    for (int core = 0; core < 4; ++core)
      processor(b, RelationProcessorCore, {mask(g, KAFFINITY{3} << (2 * core))});
    processor(b, RelationProcessorPackage, {mask(g, 0xff)});
    processor(b, 5, {mask(g, 0x0f)});  // RelationProcessorDie
    processor(b, 5, {mask(g, 0xf0)});
    grouped(b, RelationCache, l3(16u << 20), 0, {mask(g, 0x0f)});
    grouped(b, RelationCache, l3(16u << 20), 0, {mask(g, 0xf0)});
    grouped(b, RelationNumaNode, node(g), g == 1 ? 1 : 0, {mask(g, 0xff)});
  }
  return b;
}

void check_two_groups() {
  auto buf = two_group_machine();
  auto raw = topolab::agent::win::parse_processor_information(buf.data(), buf.size());
  check(raw.ok(), "two-group machine parses" + (raw.ok() ? "" : ": " + raw.error().message));
  if (!raw) return;
  auto topo = topolab::build_topology(*raw);
  check(topo.ok(), "two-group machine builds a topology");
  if (!topo) return;
  check(topo->online_cpus().to_string() == "0-7,64-71",
        "CPU ids are group*64+bit: " + topo->online_cpus().to_string());
  check(topo->packages.size() == 2 && topo->packages[1].cpus.to_string() == "64-71",
        "two packages, the second in group 1");
  check(topo->dies.size() == 4 && topo->dies[3].die_id == 1 &&
            topo->dies[3].package == topo->packages[1].id,
        "four dies, die_id 0 and 1 within each package");
  check(topo->cores().size() == 8 && topo->cpu(65)->siblings.to_string() == "64-65",
        "eight SMT2 cores; CPU 65's siblings 64-65");
  check(topo->l3_domains.size() == 4 && topo->l3_domains[2].cpus.to_string() == "64-67" &&
            topo->l3_domains[2].size_kib == 16384,
        "four 16 MiB L3 domains, one per die");
  check(topo->numa_nodes.size() == 2 && topo->numa_nodes[1].cpus.to_string() == "64-71",
        "two NUMA nodes, old and Windows 11 record layouts");
}

void check_multi_group_node() {
  std::vector<unsigned char> b;
  processor(b, RelationProcessorCore, {mask(0, 1)});
  processor(b, RelationProcessorCore, {mask(1, 1)});
  grouped(b, RelationNumaNode, node(0), 2, {mask(0, 1), mask(1, 1)});
  auto raw = topolab::agent::win::parse_processor_information(b.data(), b.size());
  check(raw.ok() && raw->numa_nodes.size() == 1 && raw->numa_nodes[0].cpus.to_string() == "0,64",
        "a NUMA node spanning two groups (GroupCount 2) covers both");
}

void check_malformed() {
  auto buf = two_group_machine();
  DWORD zero = 0;
  std::vector<unsigned char> b = buf;
  std::memcpy(b.data() + 4, &zero, 4);  // first record's Size = 0
  auto r = topolab::agent::win::parse_processor_information(b.data(), b.size());
  check(!r.ok() && r.error().message.find("has size 0") != std::string::npos,
        "a record of size 0 is an error, not an endless loop");
  b = buf;
  DWORD huge = 1u << 30;
  std::memcpy(b.data() + 4, &huge, 4);
  r = topolab::agent::win::parse_processor_information(b.data(), b.size());
  check(!r.ok(), "a record larger than the buffer is an error");
  std::vector<unsigned char> c;
  processor(c, RelationProcessorCore, {mask(0, 1)});
  WORD many = 500;
  std::memcpy(c.data() + 8 + offsetof(PROCESSOR_RELATIONSHIP, GroupCount), &many, 2);
  r = topolab::agent::win::parse_processor_information(c.data(), c.size());
  check(!r.ok() && r.error().message.find("do not fit") != std::string::npos,
        "a GroupCount beyond the record is an error, never read past it");
  std::vector<unsigned char> d;
  processor(d, RelationProcessorCore, {mask(2000, 1)});
  r = topolab::agent::win::parse_processor_information(d.data(), d.size());
  check(!r.ok() && r.error().message.find("out of range") != std::string::npos,
        "processor group 2000 (CPU ids beyond the model's limit) is an error");
  r = topolab::agent::win::parse_processor_information(nullptr, 0);
  check(!r.ok(), "an empty buffer is an error (no processor cores)");
}

}  // namespace

int main() {
  check_two_groups();
  check_multi_group_node();
  check_malformed();
  std::printf("%d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
