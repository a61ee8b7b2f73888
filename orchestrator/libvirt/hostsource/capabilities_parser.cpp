#include "orchestrator/libvirt/hostsource/capabilities_parser.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <optional>
#include <pugixml.hpp>
#include <set>

#include "host/topology_builder.hpp"

namespace topolab {
namespace {

std::optional<long long> to_integer(std::string_view s) {
  long long v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// "<origin>: <what> at <element path>: expected ..., got '...'" in one line.
Error field_error(const std::string& origin, const pugi::xml_node& node, const char* attr,
                  const std::string& text, const char* expected) {
  return make_error(ErrorKind::input, origin + ": <" + std::string(node.name()) + "> attribute " +
                                          attr + "='" + text.substr(0, 80) + "': expected " +
                                          expected);
}

Result<int> int_attr(const std::string& origin, const pugi::xml_node& node, const char* attr,
                     int min_value = 0, int max_value = 1 << 20) {
  std::string text = node.attribute(attr).value();
  auto v = to_integer(text);
  if (!v || *v < min_value || *v > max_value) {
    const std::string range =
        "an integer from " + std::to_string(min_value) + " to " + std::to_string(max_value);
    return field_error(origin, node, attr, text, range.c_str());
  }
  return static_cast<int>(*v);
}

// All lists of one document draw on one budget: 5 MB of <cpu siblings='0-8191'> must stop at
// kMaxExpandedCpuIds, not expand into gigabytes (issue 12).
Result<CpuList> list_attr(const std::string& origin, const pugi::xml_node& node, const char* attr,
                          CpuIdBudget& budget) {
  std::string_view text = node.attribute(attr).value();
  TL_ASSIGN_CTX(auto list, CpuList::parse(text, &budget),
                origin + ": <" + node.name() + "> attribute " + attr);
  return list;
}

// libvirt units: "KiB" (memory, pages), "MiB"/"KiB"/"B" (cache banks); also accept the long
// and SI-ish spellings libvirt's parser accepts. A product that does not fit 64 bits is no size
// (a TiB count near INT64_MAX wrapped to a small number of KiB, issue 32).
std::optional<std::uint64_t> to_kib(long long value, std::string_view unit) {
  if (value < 0) return std::nullopt;
  auto v = static_cast<std::uint64_t>(value);
  auto times = [v](std::uint64_t mul, std::uint64_t div) -> std::optional<std::uint64_t> {
    std::uint64_t out = 0;
    if (__builtin_mul_overflow(v, mul, &out)) return std::nullopt;
    return out / div;
  };
  if (unit.empty() || unit == "KiB" || unit == "k" || unit == "K") return v;
  if (unit == "b" || unit == "B" || unit == "bytes") return v / 1024;
  if (unit == "KB") return times(1000, 1024);
  if (unit == "MiB" || unit == "M" || unit == "m") return times(1024, 1);
  if (unit == "MB") return times(1000 * 1000, 1024);
  if (unit == "GiB" || unit == "G" || unit == "g") return times(1024 * 1024, 1);
  if (unit == "GB") return times(1000 * 1000 * 1000, 1024);
  if (unit == "TiB" || unit == "T") return times(1024ULL * 1024 * 1024, 1);
  return std::nullopt;
}

Result<std::uint64_t> sized(const std::string& origin, const pugi::xml_node& node,
                            std::string_view text, const char* unit_attr, const char* what) {
  auto v = to_integer(text);
  auto kib = v ? to_kib(*v, node.attribute(unit_attr).value()) : std::nullopt;
  if (!kib) {
    return make_error(ErrorKind::input,
                      origin + ": <" + std::string(node.name()) + "> " + what + " '" +
                          std::string(text.substr(0, 80)) + "' unit '" +
                          node.attribute(unit_attr).value() +
                          "': expected a size in KiB/MiB/GiB/TiB that fits 64 bits");
  }
  return *kib;
}

// The cell's hugepage pools: every <pages> but the first (smallest), the base page size.
Result<std::vector<HugepagePool>> parse_hugepage_pools(const std::string& origin,
                                                       const pugi::xml_node& cell) {
  std::vector<HugepagePool> pools;
  for (auto pages : cell.children("pages")) {
    TL_ASSIGN(auto size,
              sized(origin, pages, pages.attribute("size").value(), "unit", "page size"));
    auto count = to_integer(pages.child_value());
    if (!count || *count < 0) {
      return make_error(ErrorKind::input, origin + ": <pages size='" +
                                              pages.attribute("size").value() + "'> count '" +
                                              std::string(pages.child_value()).substr(0, 80) +
                                              "': expected a non-negative integer");
    }
    pools.push_back({size, static_cast<std::uint64_t>(*count), 0});
  }
  std::sort(pools.begin(), pools.end(),
            [](const HugepagePool& a, const HugepagePool& b) { return a.page_kib < b.page_kib; });
  if (!pools.empty()) pools.erase(pools.begin());
  return pools;
}

// One <cpu> of a cell. libvirt omits socket_id/core_id/siblings for offline CPUs.
Result<RawCpu> parse_cell_cpu(const std::string& origin, const pugi::xml_node& cpu, int cell_id,
                              CpuIdBudget& budget) {
  RawCpu r;
  TL_ASSIGN_CTX(auto cpu_id, int_attr(origin, cpu, "id", 0, kMaxCpuIds - 1),
                "cell " + std::to_string(cell_id));
  r.id = cpu_id;
  r.siblings = CpuList{r.id};
  r.online = static_cast<bool>(cpu.attribute("socket_id"));
  if (!r.online) return r;
  TL_ASSIGN(auto pkg, int_attr(origin, cpu, "socket_id", -1));
  r.package = pkg;
  if (cpu.attribute("die_id")) {
    TL_ASSIGN(auto die, int_attr(origin, cpu, "die_id", -1));
    r.die_id = die;
  }
  if (cpu.attribute("siblings")) {
    TL_ASSIGN(auto siblings, list_attr(origin, cpu, "siblings", budget));
    r.siblings = siblings.united(CpuList{r.id});
  }
  return r;
}

Result<void> parse_cell(const std::string& origin, const pugi::xml_node& cell, RawTopology& raw,
                        CpuIdBudget& budget) {
  NumaNode node;
  TL_ASSIGN(auto id, int_attr(origin, cell, "id"));
  node.id = id;
  if (auto mem = cell.child("memory")) {
    TL_ASSIGN(auto kib, sized(origin, mem, mem.child_value(), "unit", "memory"));
    node.memory_kib = kib;
    node.memoryless = kib == 0;
  }
  TL_ASSIGN(node.hugepages, parse_hugepage_pools(origin, cell));
  // Two <cpus> lists in one cell: which one libvirt meant is unknowable (the first was taken).
  auto cpus_lists = cell.children("cpus");
  if (std::distance(cpus_lists.begin(), cpus_lists.end()) > 1)
    return make_error(ErrorKind::input, origin + ": <cell id='" + std::to_string(id) +
                                            "'> has more than one <cpus> element (expected one)");
  std::vector<int> node_cpus;
  for (auto cpu : cell.child("cpus").children("cpu")) {
    TL_ASSIGN(RawCpu r, parse_cell_cpu(origin, cpu, node.id, budget));
    if (r.online) node_cpus.push_back(r.id);
    raw.cpus.push_back(std::move(r));
    if (raw.cpus.size() > static_cast<std::size_t>(kMaxTopologyCpus)) {
      return make_error(ErrorKind::input,
                        origin + ": more than " + std::to_string(kMaxTopologyCpus) + " CPUs");
    }
  }
  node.cpus = CpuList::from_vector(std::move(node_cpus));
  raw.numa_nodes.push_back(std::move(node));
  return {};
}

// A second <cell> with an id already seen was dropped silently (its CPUs and memory lost).
Result<void> refuse_duplicate_cells(const std::string& origin, const RawTopology& raw) {
  std::set<int> seen;
  for (const auto& n : raw.numa_nodes)
    if (!seen.insert(n.id).second)
      return make_error(ErrorKind::input,
                        origin + ": <cell id='" + std::to_string(n.id) +
                            "'> listed twice (expected one <cell> per NUMA node id)");
  return {};
}

Result<void> parse_cache(const std::string& origin, const pugi::xml_node& cache, RawTopology& raw,
                         CpuIdBudget& budget) {
  for (auto bank : cache.children("bank")) {
    if (std::string_view(bank.attribute("level").value()) != "3") continue;
    if (std::string_view(bank.attribute("type").value()) == "code") continue;
    TL_ASSIGN(auto cpus, list_attr(origin, bank, "cpus", budget));
    RawCache c;
    c.cpus = std::move(cpus);
    if (bank.attribute("size")) {
      TL_ASSIGN(auto kib, sized(origin, bank, bank.attribute("size").value(), "unit", "size"));
      c.size_kib = kib;
    }
    raw.l3.push_back(std::move(c));
  }
  return {};
}

// libvirt says "Intel"/"AMD"; the model (and /proc/cpuinfo, and guests) use the CPUID names.
std::string cpuid_vendor(std::string vendor) {
  if (vendor == "Intel") return "GenuineIntel";
  if (vendor == "AMD") return "AuthenticAMD";
  if (vendor == "Hygon") return "HygonGenuine";
  return vendor;
}

// <cell><distances><sibling id='1' value='16'/>: kept for a node only when it names every node
// once (topo.numa_nodes order), values 0..255.
Result<void> parse_distances(const std::string& origin, const pugi::xml_node& cells,
                             HostTopology& topo) {
  auto index_of = [&](int id) {
    for (std::size_t k = 0; k < topo.numa_nodes.size(); ++k)
      if (topo.numa_nodes[k].id == id) return static_cast<int>(k);
    return -1;
  };
  for (auto cell : cells.children("cell")) {
    TL_ASSIGN(auto id, int_attr(origin, cell, "id"));
    const int at = index_of(id);
    if (at < 0 || !cell.child("distances")) continue;
    std::vector<int> row(topo.numa_nodes.size(), -1);
    for (auto sib : cell.child("distances").children("sibling")) {
      TL_ASSIGN(auto to, int_attr(origin, sib, "id"));
      TL_ASSIGN_CTX(auto value, int_attr(origin, sib, "value", 0, 255),
                    "cell " + std::to_string(id) + " distances");
      const int k = index_of(to);
      if (k >= 0) row[static_cast<std::size_t>(k)] = value;
    }
    if (std::find(row.begin(), row.end(), -1) == row.end())
      topo.numa_nodes[static_cast<std::size_t>(at)].distances = std::move(row);
  }
  return {};
}

Result<HostTopology> parse_xml(std::string_view xml, const std::string& origin) {
  pugi::xml_document doc;
  pugi::xml_parse_result parsed = doc.load_buffer(xml.data(), xml.size());
  if (!parsed) {
    return make_error(ErrorKind::input, origin + ": invalid XML at offset " +
                                            std::to_string(parsed.offset) + ": " +
                                            parsed.description());
  }
  pugi::xml_node host = doc.child("capabilities").child("host");
  if (!host) return make_error(ErrorKind::input, origin + ": no <capabilities><host> element");
  RawTopology raw;
  raw.source = origin.rfind("libvirt:", 0) == 0 ? origin : "caps:" + origin;
  pugi::xml_node cells = host.child("topology").child("cells");
  CpuIdBudget budget;
  for (auto cell : cells.children("cell")) TL_TRY(parse_cell(origin, cell, raw, budget));
  TL_TRY(refuse_duplicate_cells(origin, raw));
  if (raw.cpus.empty()) {
    return make_error(ErrorKind::input,
                      origin + ": no <host><topology><cells><cell><cpus><cpu> elements (no CPUs)");
  }
  TL_TRY(parse_cache(origin, host.child("cache"), raw, budget));
  raw.vendor = cpuid_vendor(host.child("cpu").child_value("vendor"));
  raw.model = host.child("cpu").child_value("model");
  TL_ASSIGN_CTX(auto topo, build_topology(std::move(raw)), origin);
  TL_TRY(parse_distances(origin, cells, topo));
  return topo;
}

}  // namespace

Result<HostTopology> parse_capabilities_xml(std::string_view xml, const std::string& origin) {
  auto topo = parse_xml(xml, origin);
  if (!topo) return one_line(topo.error());
  return topo;
}

}  // namespace topolab
