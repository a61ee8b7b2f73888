#include "host/topology_json.hpp"

#include <algorithm>
#include <charconv>

#include "common/terminal_text.hpp"
#include "host/topology_builder.hpp"

namespace topolab {

using nlohmann::json;

json topology_to_json(const HostTopology& topo) {
  json cpus = json::array();
  for (const auto& c : topo.cpus) {
    cpus.push_back({{"id", c.id},
                    {"online", c.online},
                    {"package", c.package},
                    {"die", c.die},
                    {"core", c.core},
                    {"l3", c.l3},
                    {"node", c.node},
                    {"siblings", c.siblings.to_string()}});
  }
  json packages = json::array();
  for (const auto& p : topo.packages)
    packages.push_back({{"id", p.id}, {"cpus", p.cpus.to_string()}});
  json dies = json::array();
  for (const auto& d : topo.dies) {
    dies.push_back(
        {{"id", d.id}, {"package", d.package}, {"die_id", d.die_id}, {"cpus", d.cpus.to_string()}});
  }
  json l3 = json::array();
  for (const auto& d : topo.l3_domains) {
    l3.push_back({{"id", d.id}, {"cpus", d.cpus.to_string()}, {"size_kib", d.size_kib}});
  }
  json nodes = json::array();
  for (const auto& n : topo.numa_nodes) {
    json pools = json::array();
    for (const auto& p : n.hugepages) {
      pools.push_back({{"page_kib", p.page_kib}, {"total", p.total}, {"free", p.free}});
    }
    json node = {{"id", n.id},
                 {"cpus", n.cpus.to_string()},
                 {"memory_kib", n.memory_kib},
                 {"hugepages", pools}};
    // Written only when set, so that the JSON of topologies without them is unchanged.
    if (n.memoryless) node["memoryless"] = true;
    if (!n.distances.empty()) node["distances"] = n.distances;
    nodes.push_back(std::move(node));
  }
  return {{"cpus", cpus},          {"packages", packages}, {"dies", dies},
          {"l3_domains", l3},      {"numa_nodes", nodes},  {"isolated", topo.isolated.to_string()},
          {"vendor", topo.vendor}, {"model", topo.model},  {"source", topo.source}};
}

namespace {

constexpr int kMaxId = 1 << 20;
constexpr std::size_t kMaxStringBytes = 4096;
constexpr std::size_t kMaxArrayItems = static_cast<std::size_t>(kMaxTopologyCpus);

std::string shown(const json& j) {
  std::string s = j.dump();
  return s.size() > 60 ? s.substr(0, 60) + "..." : s;
}

Error type_error(const std::string& where, const char* expected, const json& got) {
  return make_error(ErrorKind::input,
                    "topology JSON: " + where + ": expected " + expected + ", got " + shown(got));
}

// The guest's lists: strict syntax, then CpuList's limits on the text, and one expansion budget
// for the whole document (a 1 MiB hello could otherwise name "0-8191" for each of 8192 CPUs).
Result<CpuList> parse_bounded_list(const std::string& text, const std::string& where,
                                   CpuIdBudget& budget) {
  if (text.find_first_not_of("0123456789,-") != std::string::npos) {
    return make_error(ErrorKind::input, "topology JSON: " + where +
                                            ": expected list syntax such as '0-3,8', got '" +
                                            text.substr(0, 60) + "'");
  }
  TL_ASSIGN_CTX(auto list, CpuList::parse(text, &budget), "topology JSON: " + where);
  return list;
}

class Reader {
 public:
  Result<int> integer(const json& obj, const char* key, const std::string& where, int min_value,
                      int fallback, bool required = true) const {
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required)
        return make_error(ErrorKind::input,
                          "topology JSON: " + where + ": missing \"" + key + "\"");
      return fallback;
    }
    if (!it->is_number_integer()) return type_error(where + "." + key, "an integer", *it);
    bool in_range = it->is_number_unsigned()
                        ? it->get<std::uint64_t>() <= kMaxId
                        : it->get<std::int64_t>() >= min_value && it->get<std::int64_t>() <= kMaxId;
    if (!in_range) {
      return make_error(ErrorKind::input, "topology JSON: " + where + "." + key + ": " +
                                              shown(*it) + " out of range " +
                                              std::to_string(min_value) + ".." +
                                              std::to_string(kMaxId));
    }
    return static_cast<int>(it->get<std::int64_t>());
  }

  Result<std::uint64_t> count(const json& obj, const char* key, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end()) return std::uint64_t{0};
    if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<std::int64_t>() >= 0)) {
      return type_error(where + "." + key, "a non-negative integer", *it);
    }
    return it->get<std::uint64_t>();
  }

  Result<bool> boolean(const json& obj, const char* key, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end()) return true;
    if (!it->is_boolean()) return type_error(where + "." + key, "true or false", *it);
    return it->get<bool>();
  }

  Result<std::string> string(const json& obj, const char* key, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end()) return std::string();
    if (!it->is_string()) return type_error(where + "." + key, "a string", *it);
    const auto& s = it->get_ref<const std::string&>();
    if (s.size() > kMaxStringBytes) {
      return make_error(ErrorKind::input, "topology JSON: " + where + "." + key + ": longer than " +
                                              std::to_string(kMaxStringBytes) + " bytes");
    }
    return s;
  }

  Result<CpuList> list(const json& obj, const char* key, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end()) return CpuList();
    if (!it->is_string()) return type_error(where + "." + key, "a CPU list string", *it);
    const auto& s = it->get_ref<const std::string&>();
    if (s.size() > 1u << 20) {
      return make_error(ErrorKind::input,
                        "topology JSON: " + where + "." + key + ": CPU list too long");
    }
    return parse_bounded_list(s, where + "." + key, budget_);
  }

  // Returns the array at key (empty when absent and optional), checked and bounded.
  Result<const json*> array(const json& obj, const char* key, bool required) const {
    static const json kEmpty = json::array();
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required)
        return make_error(ErrorKind::input, std::string("topology JSON: missing \"") + key + "\"");
      return &kEmpty;
    }
    if (!it->is_array()) return type_error(key, "an array", *it);
    if (it->size() > kMaxArrayItems) {
      return make_error(ErrorKind::input, std::string("topology JSON: ") + key + ": more than " +
                                              std::to_string(kMaxArrayItems) + " entries");
    }
    return &*it;
  }

 private:
  mutable CpuIdBudget budget_;  // one per document: every list draws on it
};

std::string at(const char* array, std::size_t i) {
  return std::string(array) + "[" + std::to_string(i) + "]";
}

Result<void> read_cpus(const Reader& r, const json& arr, HostTopology& topo) {
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const json& j = arr[i];
    std::string w = at("cpus", i);
    if (!j.is_object()) return type_error(w, "an object", j);
    CpuInfo c;
    TL_ASSIGN(c.id, r.integer(j, "id", w, 0, -1));
    TL_ASSIGN(c.online, r.boolean(j, "online", w));
    TL_ASSIGN(c.package, r.integer(j, "package", w, -1, -1, false));
    TL_ASSIGN(c.die, r.integer(j, "die", w, -1, -1, false));
    TL_ASSIGN(c.core, r.integer(j, "core", w, -1, -1, false));
    TL_ASSIGN(c.l3, r.integer(j, "l3", w, -1, -1, false));
    TL_ASSIGN(c.node, r.integer(j, "node", w, -1, -1, false));
    TL_ASSIGN(c.siblings, r.list(j, "siblings", w));
    if (c.core >= kMaxTopologyCpus) {
      return make_error(ErrorKind::input, "topology JSON: " + w +
                                              ".core: " + std::to_string(c.core) +
                                              " out of range (more cores than CPUs allowed)");
    }
    topo.cpus.push_back(std::move(c));
  }
  std::sort(topo.cpus.begin(), topo.cpus.end(),
            [](const CpuInfo& a, const CpuInfo& b) { return a.id < b.id; });
  for (std::size_t i = 1; i < topo.cpus.size(); ++i) {
    if (topo.cpus[i].id == topo.cpus[i - 1].id) {
      return make_error(ErrorKind::input, "topology JSON: cpus: CPU " +
                                              std::to_string(topo.cpus[i].id) + " listed twice");
    }
  }
  return {};
}

// A node's distances: at most one per possible node, each 0..255 (a SLIT byte).
Result<void> read_distances(const Reader& r, const json& node, const std::string& where,
                            NumaNode& n) {
  const json* arr = nullptr;
  TL_ASSIGN(arr, r.array(node, "distances", false));
  for (const auto& d : *arr) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 0 || d.get<std::int64_t>() > 255)
      return type_error(where + ".distances", "integers from 0 to 255", d);
    n.distances.push_back(d.get<int>());
  }
  return {};
}

// Reads the optional array `key` of `top` into `out`, one object at a time with `read_one`.
template <typename T, typename ReadOne>
Result<void> read_each(const Reader& r, const json& top, const char* key, std::vector<T>& out,
                       ReadOne read_one) {
  const json* arr = nullptr;
  TL_ASSIGN(arr, r.array(top, key, false));
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const json& j = (*arr)[i];
    const std::string w = at(key, i);
    if (!j.is_object()) return type_error(w, "an object", j);
    T item;
    TL_TRY(read_one(r, j, w, item));
    out.push_back(std::move(item));
  }
  return {};
}

Result<void> read_package_entry(const Reader& r, const json& j, const std::string& w, Package& p) {
  TL_ASSIGN(p.id, r.integer(j, "id", w, -1, -1));
  TL_ASSIGN(p.cpus, r.list(j, "cpus", w));
  return {};
}

Result<void> read_die_entry(const Reader& r, const json& j, const std::string& w, Die& d) {
  TL_ASSIGN(d.id, r.integer(j, "id", w, 0, -1));
  TL_ASSIGN(d.package, r.integer(j, "package", w, -1, -1, false));
  TL_ASSIGN(d.die_id, r.integer(j, "die_id", w, -1, 0, false));
  TL_ASSIGN(d.cpus, r.list(j, "cpus", w));
  return {};
}

Result<void> read_l3_entry(const Reader& r, const json& j, const std::string& w, L3Domain& d) {
  TL_ASSIGN(d.id, r.integer(j, "id", w, 0, -1));
  TL_ASSIGN(d.cpus, r.list(j, "cpus", w));
  TL_ASSIGN(d.size_kib, r.count(j, "size_kib", w));
  return {};
}

// A node's hugepage pools: at most 64.
Result<void> read_pools(const Reader& r, const json& node, const std::string& w, NumaNode& n) {
  const json* pools = nullptr;
  TL_ASSIGN(pools, r.array(node, "hugepages", false));
  if (pools->size() > 64)
    return make_error(ErrorKind::input, "topology JSON: " + w + ".hugepages: too many");
  for (std::size_t k = 0; k < pools->size(); ++k) {
    const json& pj = (*pools)[k];
    std::string pw = w + "." + at("hugepages", k);
    if (!pj.is_object()) return type_error(pw, "an object", pj);
    HugepagePool p;
    TL_ASSIGN(p.page_kib, r.count(pj, "page_kib", pw));
    TL_ASSIGN(p.total, r.count(pj, "total", pw));
    TL_ASSIGN(p.free, r.count(pj, "free", pw));
    n.hugepages.push_back(p);
  }
  return {};
}

Result<void> read_node_entry(const Reader& r, const json& j, const std::string& w, NumaNode& n) {
  TL_ASSIGN(n.id, r.integer(j, "id", w, 0, -1));
  TL_ASSIGN(n.cpus, r.list(j, "cpus", w));
  TL_ASSIGN(n.memory_kib, r.count(j, "memory_kib", w));
  TL_TRY(read_pools(r, j, w, n));
  if (j.contains("memoryless")) {
    TL_ASSIGN(n.memoryless, r.boolean(j, "memoryless", w));
  }
  return read_distances(r, j, w, n);
}

// Every node lists its distance to each node, or none.
Result<void> check_distance_counts(const HostTopology& topo) {
  for (const auto& n : topo.numa_nodes)
    if (!n.distances.empty() && n.distances.size() != topo.numa_nodes.size())
      return make_error(ErrorKind::input, "topology JSON: numa node " + std::to_string(n.id) +
                                              ": " + std::to_string(n.distances.size()) +
                                              " distances for " +
                                              std::to_string(topo.numa_nodes.size()) +
                                              " nodes (expected one per node)");
  return {};
}

Result<void> read_groups(const Reader& r, const json& top, HostTopology& topo) {
  TL_TRY(read_each(r, top, "packages", topo.packages, read_package_entry));
  TL_TRY(read_each(r, top, "dies", topo.dies, read_die_entry));
  TL_TRY(read_each(r, top, "l3_domains", topo.l3_domains, read_l3_entry));
  TL_TRY(read_each(r, top, "numa_nodes", topo.numa_nodes, read_node_entry));
  return check_distance_counts(topo);
}

// Indexes must point at existing entries; consumers index vectors with them.
Result<void> check_references(const HostTopology& topo) {
  for (std::size_t i = 0; i < topo.dies.size(); ++i) {
    if (topo.dies[i].id != static_cast<int>(i)) {
      return make_error(ErrorKind::input, "topology JSON: " + at("dies", i) + ".id: expected " +
                                              std::to_string(i) + ", got " +
                                              std::to_string(topo.dies[i].id));
    }
  }
  for (std::size_t i = 0; i < topo.l3_domains.size(); ++i) {
    if (topo.l3_domains[i].id != static_cast<int>(i)) {
      return make_error(ErrorKind::input, "topology JSON: " + at("l3_domains", i) +
                                              ".id: expected " + std::to_string(i) + ", got " +
                                              std::to_string(topo.l3_domains[i].id));
    }
  }
  for (const auto& c : topo.cpus) {
    std::string w = "topology JSON: CPU " + std::to_string(c.id);
    if (c.die >= static_cast<int>(topo.dies.size())) {
      return make_error(ErrorKind::input, w + ": die " + std::to_string(c.die) + " not in dies");
    }
    if (c.l3 >= static_cast<int>(topo.l3_domains.size())) {
      return make_error(ErrorKind::input,
                        w + ": l3 " + std::to_string(c.l3) + " not in l3_domains");
    }
  }
  return {};
}

Result<HostTopology> from_json_checked(const json& j) {
  if (!j.is_object()) return type_error("top level", "an object", j);
  Reader r;
  HostTopology topo;
  const json* cpus = nullptr;
  TL_ASSIGN(cpus, r.array(j, "cpus", true));
  TL_TRY(read_cpus(r, *cpus, topo));
  TL_TRY(read_groups(r, j, topo));
  TL_TRY(check_references(topo));
  TL_ASSIGN(topo.isolated, r.list(j, "isolated", "top level"));
  TL_ASSIGN(topo.vendor, r.string(j, "vendor", "top level"));
  TL_ASSIGN(topo.model, r.string(j, "model", "top level"));
  TL_ASSIGN(topo.source, r.string(j, "source", "top level"));
  for (std::string* text : {&topo.vendor, &topo.model, &topo.source})
    *text = display_text(*text, kMaxTopologyTextBytes);  // a guest's hello, a stored topology
  return topo;
}

}  // namespace

Result<HostTopology> topology_from_json(const json& j) {
  auto topo = from_json_checked(j);
  if (!topo) return one_line(topo.error());
  return topo;
}

}  // namespace topolab
