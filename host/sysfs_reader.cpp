#include "host/sysfs_reader.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "common/file_io.hpp"
#include "host/sysfs_attributes.hpp"
#include "host/topology_builder.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;
using namespace sysfs;  // NOLINT: the attribute readers this file is made of

constexpr std::size_t kMaxCpuinfoBytes = 16u << 20;

// A topology/ that is a symlink loop (or points back at its CPU directory or above) was read as
// "no topology/": the CPU silently became package 0 without siblings.
Result<void> refuse_looping_dir(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(dir, ec))) return {};
  auto target = fs::canonical(dir, ec);
  if (ec)
    return make_error(ErrorKind::input,
                      dir.string() + ": a symlink that does not resolve (" + ec.message() + ")");
  auto parent = fs::canonical(dir.parent_path(), ec);
  if (ec) return {};
  const auto rel = parent.lexically_relative(target);
  if (rel.empty() || *rel.begin() != "..")
    return make_error(ErrorKind::input,
                      dir.string() + ": a symlink back to " + target.string() +
                          " (its own CPU directory or above): a loop, not a topology/ directory");
  return {};
}

// Online state: cpuN/online wins (it is per CPU and hotplug-accurate); then the global
// cpu/online list; then "has a topology/ directory" for trees that have neither.
Result<bool> read_online(const fs::path& cpu_dir, int id, const std::optional<CpuList>& online) {
  fs::path own = cpu_dir / ("cpu" + std::to_string(id)) / "online";
  if (path_exists(own)) {
    TL_ASSIGN(auto v, read_int(own, 0, 1));
    return v == 1;
  }
  if (online) return online->contains(id);
  TL_TRY(refuse_looping_dir(cpu_dir / ("cpu" + std::to_string(id)) / "topology"));
  return is_directory_path(cpu_dir / ("cpu" + std::to_string(id)) / "topology");
}

Result<RawCpu> read_cpu(const fs::path& cpu_dir, int id, bool online, CpuIdBudget& budget) {
  RawCpu cpu;
  cpu.id = id;
  cpu.online = online;
  cpu.siblings = CpuList{id};
  fs::path topo = cpu_dir / ("cpu" + std::to_string(id)) / "topology";
  TL_TRY(refuse_looping_dir(topo));
  if (!online) return cpu;
  cpu.package = 0;  // an online CPU without topology/ (very old or odd kernels): one package
  if (!is_directory_path(topo)) return cpu;
  if (path_exists(topo / "physical_package_id")) {
    TL_ASSIGN(auto pkg, read_int(topo / "physical_package_id"));
    cpu.package = pkg;
  }
  if (path_exists(topo / "die_id")) {
    TL_ASSIGN(auto die, read_int(topo / "die_id"));
    cpu.die_id = die;
  }
  TL_ASSIGN(auto siblings, read_cpu_set(topo, {"core_cpus_list", "thread_siblings_list"},
                                        {"core_cpus", "thread_siblings"}, budget));
  if (siblings) cpu.siblings = siblings.value().united(CpuList{id});
  return cpu;
}

// Cache size attribute: "8192K", "32M", or plain bytes-less number of KiB.
std::optional<std::uint64_t> parse_size_kib(const std::string& text) {
  std::string_view s = text;
  std::uint64_t mult = 1;
  if (!s.empty() && (s.back() == 'K' || s.back() == 'k')) {
    s.remove_suffix(1);
  } else if (!s.empty() && (s.back() == 'M' || s.back() == 'm')) {
    s.remove_suffix(1);
    mult = 1024;
  } else if (!s.empty() && (s.back() == 'G' || s.back() == 'g')) {
    s.remove_suffix(1);
    mult = 1024 * 1024;
  }
  auto v = parse_integer(s);
  if (!v || *v < 0 || *v > (1LL << 40)) return std::nullopt;
  return static_cast<std::uint64_t>(*v) * mult;
}

// Appends this CPU's L3 caches (cache/indexN with level 3, not instruction-only).
Result<void> read_l3(const fs::path& cpu_dir, int id, std::vector<RawCache>& out,
                     CpuIdBudget& budget) {
  fs::path cache = cpu_dir / ("cpu" + std::to_string(id)) / "cache";
  if (!is_directory_path(cache)) return {};
  TL_ASSIGN(auto indexes, list_numbered_dirs(cache, "index"));
  for (int index : indexes) {
    fs::path dir = cache / ("index" + std::to_string(index));
    if (!path_exists(dir / "level")) continue;
    TL_ASSIGN(auto level, read_int(dir / "level", 0, 16));
    if (level != 3) continue;
    if (path_exists(dir / "type")) {
      TL_ASSIGN(auto type, read_text(dir / "type"));
      if (type == "Instruction") continue;
    }
    TL_ASSIGN(auto cpus, read_cpu_set(dir, {"shared_cpu_list"}, {"shared_cpu_map"}, budget));
    RawCache c;
    c.cpus = cpus ? cpus.value() : CpuList{id};
    c.cpus.insert(id);
    if (path_exists(dir / "size")) {
      TL_ASSIGN(auto text, read_text(dir / "size"));
      auto size = parse_size_kib(text);
      if (!size)
        return make_error(
            ErrorKind::input,
            (dir / "size").string() + ": expected a size such as '8192K', got " + shown_text(text));
      c.size_kib = *size;
    }
    out.push_back(std::move(c));
  }
  return {};
}

// "Node 0 MemTotal:  16772456 kB" -> 16772456.
Result<std::uint64_t> read_node_memory(const fs::path& meminfo) {
  TL_ASSIGN(auto text, read_file(meminfo, 1u << 20));
  std::string_view rest = text;
  while (!rest.empty()) {
    auto nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    auto key = line.find("MemTotal:");
    if (key == std::string_view::npos) continue;
    std::string_view value = line.substr(key + 9);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    auto end = value.find(' ');
    auto kib = parse_integer(value.substr(0, end));
    if (!kib || *kib < 0) {
      return make_error(ErrorKind::input,
                        meminfo.string() + ": bad MemTotal line " + shown_text(std::string(line)));
    }
    return static_cast<std::uint64_t>(*kib);
  }
  return std::uint64_t{0};
}

// "10 16 16 16" (node/nodeN/distance): at most kMaxDistanceNodes values from 0 to 255.
constexpr std::size_t kMaxDistanceNodes = 1024;
Result<std::vector<int>> read_distances(const fs::path& file) {
  TL_ASSIGN(auto text, read_text(file));
  std::vector<int> out;
  std::string_view rest = text;
  while (!rest.empty()) {
    auto b = rest.find_first_not_of(" \t");
    if (b == std::string_view::npos) break;
    rest.remove_prefix(b);
    auto e = rest.find_first_of(" \t");
    auto v = parse_integer(rest.substr(0, e));
    if (!v || *v < 0 || *v > 255 || out.size() >= kMaxDistanceNodes)
      return make_error(
          ErrorKind::input,
          file.string() + ": expected up to 1024 distances from 0 to 255, got " + shown_text(text));
    out.push_back(static_cast<int>(*v));
    rest = e == std::string_view::npos ? std::string_view{} : rest.substr(e);
  }
  return out;
}

Result<std::vector<HugepagePool>> read_hugepages(const fs::path& dir) {
  std::vector<HugepagePool> pools;
  if (!is_directory_path(dir)) return pools;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    std::string name = it->path().filename().string();  // hugepages-2048kB
    if (name.rfind("hugepages-", 0) != 0 || name.size() < 13 ||
        name.compare(name.size() - 2, 2, "kB") != 0) {
      continue;
    }
    auto size = parse_integer(std::string_view(name).substr(10, name.size() - 12));
    if (!size || *size <= 0) continue;
    HugepagePool pool;
    pool.page_kib = static_cast<std::uint64_t>(*size);
    for (auto [file, field] :
         {std::pair{"nr_hugepages", &pool.total}, std::pair{"free_hugepages", &pool.free}}) {
      if (!path_exists(it->path() / file)) continue;
      TL_ASSIGN(auto v, read_int(it->path() / file, 0, 1 << 30));
      *field = static_cast<std::uint64_t>(v);
    }
    pools.push_back(pool);
  }
  std::sort(pools.begin(), pools.end(),
            [](const HugepagePool& a, const HugepagePool& b) { return a.page_kib < b.page_kib; });
  return pools;
}

Result<std::vector<NumaNode>> read_nodes(const fs::path& node_dir, CpuIdBudget& budget) {
  std::vector<NumaNode> nodes;
  if (!is_directory_path(node_dir)) return nodes;
  TL_ASSIGN(auto ids, list_numbered_dirs(node_dir, "node"));
  for (int id : ids) {
    fs::path dir = node_dir / ("node" + std::to_string(id));
    NumaNode node;
    node.id = id;
    TL_ASSIGN(auto cpus, read_cpu_set(dir, {"cpulist"}, {"cpumap"}, budget));
    if (cpus) node.cpus = cpus.value();
    if (path_exists(dir / "meminfo")) {
      TL_ASSIGN(auto mem, read_node_memory(dir / "meminfo"));
      node.memory_kib = mem;
      node.memoryless = mem == 0;
    }
    TL_ASSIGN(auto pools, read_hugepages(dir / "hugepages"));
    node.hugepages = std::move(pools);
    if (path_exists(dir / "distance")) {
      TL_ASSIGN(auto distances, read_distances(dir / "distance"));
      node.distances = std::move(distances);
    }
    nodes.push_back(std::move(node));
  }
  // The kernel lists a node's distances to every online node in id order: kept only when that
  // is exactly the nodes read here.
  for (auto& n : nodes)
    if (n.distances.size() != nodes.size()) n.distances.clear();
  return nodes;
}

// First "vendor_id" and "model name" of /proc/cpuinfo (x86 names; other arches leave them "").
Result<void> read_cpuinfo(const fs::path& path, RawTopology& raw) {
  if (!path_exists(path)) return {};
  TL_ASSIGN(auto text, read_file(path, kMaxCpuinfoBytes));
  std::string_view rest = text;
  while (!rest.empty() && (raw.vendor.empty() || raw.model.empty())) {
    auto nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.remove_suffix(1);
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
      value.remove_prefix(1);
    }
    while (!value.empty() && (value.back() == ' ' || value.back() == '\r')) value.remove_suffix(1);
    if (value.size() > 256) value = value.substr(0, 256);
    if (key == "vendor_id" && raw.vendor.empty()) raw.vendor = value;
    if (key == "model name" && raw.model.empty()) raw.model = value;
  }
  return {};
}

// Why ROOT is not a directory we can read, if it is not: a symlink loop or a permission problem
// is named as such (errno text, io), not reported as "no such directory" (not-found).
std::optional<Error> root_problem(const fs::path& root) {
  std::error_code ec;
  if (fs::is_directory(root, ec)) return std::nullopt;
  if (ec && ec != std::errc::no_such_file_or_directory)
    return make_error(ErrorKind::io, root.string() + ": " + ec.message());
  if (fs::exists(root, ec))
    return make_error(ErrorKind::input, root.string() + ": not a directory");
  return make_error(ErrorKind::not_found, root.string() + ": no such directory");
}

Result<HostTopology> read_sysfs_tree(const fs::path& root) {
  if (auto problem = root_problem(root)) return *problem;
  fs::path cpu_dir = root / "sys/devices/system/cpu";
  if (!is_directory_path(cpu_dir))
    return make_error(ErrorKind::not_found, cpu_dir.string() + ": no such directory (no CPUs)");
  TL_ASSIGN(auto ids, list_numbered_dirs(cpu_dir, "cpu"));
  if (ids.empty())
    return make_error(ErrorKind::input, cpu_dir.string() + ": no cpuN directories (no CPUs)");

  CpuIdBudget budget;
  std::optional<CpuList> online_list;
  if (path_exists(cpu_dir / "online")) {
    TL_ASSIGN(auto l, read_list_file(cpu_dir / "online", budget));
    online_list = std::move(l);
  }
  RawTopology raw;
  raw.source = "sysfs:" + root.string();
  for (int id : ids) {
    TL_ASSIGN(auto online, read_online(cpu_dir, id, online_list));
    TL_ASSIGN(auto cpu, read_cpu(cpu_dir, id, online, budget));
    raw.cpus.push_back(std::move(cpu));
    if (online) TL_TRY(read_l3(cpu_dir, id, raw.l3, budget));
  }
  TL_ASSIGN(auto nodes, read_nodes(root / "sys/devices/system/node", budget));
  raw.numa_nodes = std::move(nodes);
  if (path_exists(cpu_dir / "isolated")) {
    TL_ASSIGN(auto isolated, read_list_file(cpu_dir / "isolated", budget));
    raw.isolated = std::move(isolated);
  }
  TL_TRY(read_cpuinfo(root / "proc/cpuinfo", raw));
  TL_ASSIGN_CTX(auto topo, build_topology(std::move(raw)), root.string());
  return topo;
}

}  // namespace

Result<HostTopology> read_sysfs_topology(const fs::path& root) {
  auto topo = read_sysfs_tree(root);
  if (!topo) return one_line(topo.error());
  return topo;
}

}  // namespace topolab
