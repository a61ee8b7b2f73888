#include "tests/host/expected_file.hpp"

#include <fstream>
#include <regex>
#include <stdexcept>

namespace topolab::testing {
namespace {

CpuList list_or_throw(const std::string& text, const std::string& line) {
  auto l = CpuList::parse(text);
  if (!l) throw std::runtime_error("bad CPU list in expected line: " + line);
  return *l;
}

std::uint64_t size_kib(const std::string& number, const std::string& unit) {
  std::uint64_t v = std::stoull(number);
  if (unit == "MiB") return v * 1024;
  if (unit == "KiB" || unit == "K") return v;
  return v / 1024;  // hwloc XML gives bytes
}

// "{2: 5, 1: 2}" or "{'Package': 8, 'PU': 16}"
std::map<std::string, int> parse_dict(const std::string& text) {
  std::map<std::string, int> out;
  static const std::regex item(R"('?([A-Za-z0-9]+)'?:\s*(\d+))");
  for (std::sregex_iterator it(text.begin(), text.end(), item), end; it != end; ++it) {
    out[(*it)[1]] = std::stoi((*it)[2]);
  }
  return out;
}

// The "== Naive" section: exact L3 sizes from sysfs (hwloc's console rounds 28160 KiB to
// "28MiB" and lscpu's section has none), matched to the L3s read earlier by their CPUs.
void read_naive_line(const std::string& line, ExpectedTopology& e) {
  static const std::regex naive_l3(R"(^\s+L3#\d+ size=(\d+)K cores=\d+ PUs=(\S+))");
  std::smatch m;
  if (!std::regex_search(line, m, naive_l3)) return;
  CpuList cpus = list_or_throw(m[2], line);
  for (auto& d : e.l3_domains) {
    if (d.cpus == cpus) d.size_kib = std::stoull(m[1]);
  }
}

// One line of the hwloc-console section; false when it is none of its lines.
bool read_hwloc_line(const std::string& line, ExpectedTopology& e) {
  static const std::regex counts(R"(^counts: (\{.*\}))");
  static const std::regex pus(R"(^PUs: (\S+))");
  static const std::regex package(R"(^\s+Package#\d+ P#(\d+): cores=\S+ PUs (\S+))");
  static const std::regex node(R"(^\s+NUMANode#\d+ P#(\d+): cores=\S+ PUs (\S+))");
  static const std::regex l3(R"(^\s+L3#\d+: cores=\d+ pus=\d+ PUs (\S+)\s+\((\d+)(KiB|MiB)?\))");
  static const std::regex threads(R"(^threads-per-core histogram: (\{.*\}))");
  std::smatch m;
  if (std::regex_search(line, m, counts)) {
    e.counts = parse_dict(m[1]);
  } else if (std::regex_search(line, m, pus)) {
    e.pus = list_or_throw(m[1], line);
  } else if (std::regex_search(line, m, package)) {
    e.packages[std::stoi(m[1])] = list_or_throw(m[2], line);
  } else if (std::regex_search(line, m, node)) {
    e.numa_nodes[std::stoi(m[1])] = list_or_throw(m[2], line);
  } else if (std::regex_search(line, m, l3)) {
    e.l3_domains.push_back({list_or_throw(m[1], line), size_kib(m[2], m[3])});
  } else if (std::regex_search(line, m, threads)) {
    for (auto& [k, v] : parse_dict(m[1])) e.threads_per_core[std::stoi(k)] = v;
  } else {
    return false;
  }
  return true;
}

// One line of the util-linux lscpu section.
void read_lscpu_line(const std::string& line, ExpectedTopology& e) {
  static const std::regex summary(
      R"(^sockets=(\d+) NUMA=(\d+) L3=(\d+) cores=(\d+) PUs=(\d+) \(threads/core: \[(\d+)\]\))");
  static const std::regex socket(R"(^\s+Socket (\d+): PUs (\S+))");
  static const std::regex lnode(R"(^\s+Node (\d+): PUs (\S+))");
  static const std::regex ll3(R"(^\s+L3 \d+: cores=\d+ PUs (\S+))");
  std::smatch m;
  if (std::regex_search(line, m, summary)) {
    e.counts = {{"Package", std::stoi(m[1])},
                {"NUMANode", std::stoi(m[2])},
                {"L3Cache", std::stoi(m[3])},
                {"Core", std::stoi(m[4])},
                {"PU", std::stoi(m[5])}};
    e.threads_per_core[std::stoi(m[6])] = std::stoi(m[4]);
  } else if (std::regex_search(line, m, socket)) {
    e.packages[std::stoi(m[1])] = list_or_throw(m[2], line);
  } else if (std::regex_search(line, m, lnode)) {
    e.numa_nodes[std::stoi(m[1])] = list_or_throw(m[2], line);
  } else if (std::regex_search(line, m, ll3)) {
    e.l3_domains.push_back({list_or_throw(m[1], line), 0});
  }
}

}  // namespace

ExpectedTopology read_expected_file(const std::filesystem::path& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path.string());
  ExpectedTopology e;
  std::string line;
  bool naive = false;
  while (std::getline(f, line)) {
    if (line.rfind("== Naive", 0) == 0) naive = true;
    if (naive) {
      read_naive_line(line, e);
    } else if (!read_hwloc_line(line, e)) {
      read_lscpu_line(line, e);
    }
  }
  if (e.pus.empty()) {
    for (const auto& [id, cpus] : e.packages) e.pus = e.pus.united(cpus);
  }
  if (e.counts.empty()) throw std::runtime_error(path.string() + ": no counts found");
  return e;
}

}  // namespace topolab::testing
