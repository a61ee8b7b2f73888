#include "orchestrator/model/layout/layout_fields.hpp"

#include <algorithm>
#include <optional>

#include "common/cpu_list.hpp"
#include "common/safe_name.hpp"
#include "orchestrator/model/layout/layout_text.hpp"

namespace topolab {
namespace {

using layout_text::as_input;
using layout_text::lower;
using layout_text::trim;
using nlohmann::json;

// ---- checks shared by several rows ----

Result<int> count(const FieldValue& v, const std::string& key, int max) {
  auto n = std::get<std::int64_t>(v);
  TL_TRY(check_count(n, key, max));
  return static_cast<int>(n);
}

Result<void> check_feature_name(const std::string& f, const std::string& key) {
  bool ok = !f.empty() && f.size() <= 64 && std::all_of(f.begin(), f.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
  if (!ok) {
    return make_error(
        ErrorKind::input,
        key + ": expected CPU feature names (letters, digits, - _ .), got '" + f + "'");
  }
  return {};
}

// Checks every name, then stores the list.
Result<void> set_features(std::vector<std::string>& field, const FieldValue& v,
                          const std::string& key) {
  const auto& words = std::get<std::vector<std::string>>(v);
  for (const auto& w : words) TL_TRY(check_feature_name(w, key));
  field = words;
  return {};
}

// An empty value (`--host-cpus ''`, a shell variable that expanded to nothing) used to lift the
// layout's restriction silently; lifting it must be said: "none".
Result<void> set_cpus(std::optional<CpuList>& field, const FieldValue& v, const std::string& key) {
  const auto& text = std::get<std::string>(v);
  if (trim(text).empty()) {
    return make_error(ErrorKind::input,
                      key +
                          ": empty CPU list (expected a list such as 2-7, or 'none' to lift the "
                          "restriction)");
  }
  if (lower(trim(text)) == "none") {
    field.reset();
    return {};
  }
  auto cpus = CpuList::parse(text);
  if (!cpus) return as_input(cpus.error().context(key));
  field = std::move(*cpus);
  return {};
}

// One list per vCPU. One budget for all of them: 16 000 copies of "0-8191" must not expand into
// 500 MB (issue 12).
Result<void> set_explicit(Layout& l, const FieldValue& v, const std::string& key) {
  const auto& items = std::get<std::vector<std::string>>(v);
  if (items.size() > static_cast<std::size_t>(kMaxCpuIds))
    return make_error(ErrorKind::input,
                      key + ": more than " + std::to_string(kMaxCpuIds) + " lists");
  std::vector<CpuList> lists;
  CpuIdBudget budget;
  for (const auto& item : items) {
    auto cpus = CpuList::parse(item, &budget);
    if (!cpus) return as_input(cpus.error().context(key));
    lists.push_back(std::move(*cpus));
  }
  l.explicit_cpus = std::move(lists);
  return {};
}

json cpus_json(const std::optional<CpuList>& cpus) {
  return cpus ? json(cpus->to_string()) : json();
}

// ---- the rows' setters (one line each where the check is shared) ----

const std::string& str(const FieldValue& v) { return std::get<std::string>(v); }

Result<void> set_name(Layout& l, const FieldValue& v, const std::string& key) {
  if (auto problem = name_problem(str(v)); !problem.empty())
    return make_error(ErrorKind::input, key + ": " + problem);
  l.name = str(v);
  return {};
}

Result<void> set_memory(Layout& l, const FieldValue& v, const std::string& key) {
  auto n = std::get<std::int64_t>(v);
  if (n < 1)
    return make_error(ErrorKind::input,
                      key + ": expected a positive size in MiB, got " + std::to_string(n));
  l.memory_mib = static_cast<std::uint64_t>(n);
  l.memory_given = true;
  return {};
}

Result<void> set_iothreads(Layout& l, const FieldValue& v, const std::string& key) {
  auto n = std::get<std::int64_t>(v);
  if (n < 0 || n > 64)
    return make_error(ErrorKind::input, key + ": expected 0 to 64, got " + std::to_string(n));
  l.iothreads = static_cast<int>(n);
  return {};
}

// A newline or other control character ended up raw inside <cmdline> (redteam).
Result<void> set_cmdline(Layout& l, const FieldValue& v, const std::string& key) {
  if (has_control_chars(str(v)))
    return make_error(ErrorKind::input,
                      key + ": expected one line of kernel parameters, got a control character");
  l.kernel_cmdline_extra = str(v);
  return {};
}

Result<void> set_cpu_model(Layout& l, const FieldValue& v, const std::string& key) {
  std::string m(trim(str(v)));
  if (!m.empty() && m != "auto") TL_TRY(check_feature_name(m, key));
  l.cpu_model = m == "auto" ? "" : m;
  return {};
}

// Stores a value parsed by a function whose errors do not name the key yet.
template <typename T>
Result<void> store(Result<T> parsed, T& field, const std::string& key) {
  if (!parsed) return as_input(parsed.error().context(key));
  field = std::move(*parsed);
  return {};
}

#define TL_COUNT(member, max)                                                \
  [](Layout& l, const FieldValue& v, const std::string& k) -> Result<void> { \
    auto n = count(v, k, max);                                               \
    if (!n) return n.error();                                                \
    l.member = *n;                                                           \
    return {};                                                               \
  }
#define TL_PLAIN(member, T)                                                \
  [](Layout& l, const FieldValue& v, const std::string&) -> Result<void> { \
    l.member = std::get<T>(v);                                             \
    return {};                                                             \
  }
#define TL_JSON(expr) [](const Layout& l) -> json { return expr; }

using FT = FieldType;

// "" (a cleared override) is unknown, as an absent [guest] os.
Result<void> set_guest_os(Layout& l, const FieldValue& v, const std::string& k) {
  if (str(v).empty()) {
    l.guest_os.reset();
    return {};
  }
  auto g = read_guest_edition(str(v));
  if (!g) return as_input(g.error().context(k));
  l.guest_os = std::move(*g);
  return {};
}

Result<void> set_expose(Layout& l, const FieldValue& v, const std::string& k) {
  return store(parse_exposure(str(v)), l.expose, k);
}
Result<void> set_policy(Layout& l, const FieldValue& v, const std::string& k) {
  return store(parse_policy(str(v)), l.policy, k);
}
Result<void> set_host_cpus(Layout& l, const FieldValue& v, const std::string& k) {
  return set_cpus(l.host_cpus, v, k);
}
Result<void> set_housekeeping(Layout& l, const FieldValue& v, const std::string& k) {
  return set_cpus(l.housekeeping_cpus, v, k);
}
Result<void> set_disable(Layout& l, const FieldValue& v, const std::string& k) {
  return set_features(l.cpu_features_disable, v, k);
}
Result<void> set_require(Layout& l, const FieldValue& v, const std::string& k) {
  return set_features(l.cpu_features_require, v, k);
}
Result<void> set_hugepages(Layout& l, const FieldValue& v, const std::string& k) {
  return store(parse_hugepage_size(str(v)), l.hugepage_kib, k);
}
json explicit_json(const Layout& l) {
  json out = json::array();
  for (const auto& c : l.explicit_cpus) out.push_back(c.to_string());
  return out;
}

// ---- two-level fields ----

Result<void> set_numa_nodes(Layout& l, const FieldValue& v, const std::string& key) {
  auto n = count(v, key, kMaxNumaNodes);
  if (!n) return n.error();
  l.numa_nodes = *n;
  return {};
}

Result<void> set_memoryless(Layout& l, const FieldValue& v, const std::string& key) {
  const auto& items = std::get<IntList>(v);
  std::vector<int> nodes;
  for (auto m : items) {
    if (m < 0 || m >= kMaxNumaNodes)
      return make_error(ErrorKind::input,
                        key + ": expected node indices from 0 to 63, got " + std::to_string(m));
    if (std::find(nodes.begin(), nodes.end(), m) != nodes.end())
      return make_error(ErrorKind::input, key + ": node " + std::to_string(m) + " listed twice");
    nodes.push_back(static_cast<int>(m));
  }
  std::sort(nodes.begin(), nodes.end());
  l.memoryless_nodes = std::move(nodes);
  return {};
}

// Values are checked here; the shape (N x N, diagonal, symmetry) against numa_nodes in
// validate_layout, since numa_nodes may be set after this field.
Result<void> set_distances(Layout& l, const FieldValue& v, const std::string& key) {
  const auto& rows = std::get<IntMatrix>(v);
  if (rows.size() > static_cast<std::size_t>(kMaxNumaNodes))
    return make_error(ErrorKind::input, key + ": more than 64 rows");
  std::vector<std::vector<int>> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].size() > static_cast<std::size_t>(kMaxNumaNodes))
      return make_error(ErrorKind::input, key + "[" + std::to_string(i) + "]: more than 64 values");
    std::vector<int> row;
    for (auto d : rows[i]) {
      if (d < kLocalDistance || d > kMaxDistance)
        return make_error(ErrorKind::input, key + "[" + std::to_string(i) +
                                                "]: expected distances from 10 to 254, got " +
                                                std::to_string(d));
      row.push_back(static_cast<int>(d));
    }
    out.push_back(std::move(row));
  }
  l.node_distances = std::move(out);
  return {};
}

json numa_nodes_json(const Layout& l) { return l.two_level() ? json(l.numa_nodes) : kUnsetField; }
json memoryless_json(const Layout& l) {
  return l.memoryless_nodes.empty() ? kUnsetField : json(l.memoryless_nodes);
}
json distances_json(const Layout& l) {
  return l.node_distances.empty() ? kUnsetField : json(l.node_distances);
}

// One row per field: key, TOML type, aliases, option, option help, setter, JSON form.
// clang-format off
std::vector<LayoutField> make_table() {
  return {
    {"name", FT::kString, {}, "", "", set_name, nullptr},
    {"description", FT::kString, {}, "", "", TL_PLAIN(description, std::string), nullptr},
    {"guest.l3_groups", FT::kInt, {"groups", "l3_groups"}, "--groups",
     "override: number of L3 groups",
     TL_COUNT(l3_groups, kMaxGroupsOrCores), TL_JSON(l.l3_groups)},
    {"guest.cores_per_group", FT::kInt, {"cores", "cores_per_group"}, "--cores",
     "override: cores per group",
     TL_COUNT(cores_per_group, kMaxGroupsOrCores), TL_JSON(l.cores_per_group)},
    {"guest.threads_per_core", FT::kInt, {"threads", "threads_per_core"}, "--threads",
     "override: threads per core",
     TL_COUNT(threads_per_core, kMaxThreadsPerCore), TL_JSON(l.threads_per_core)},
    {"guest.memory_mib", FT::kInt, {"memory", "memory_mib"}, "--memory",
     "override: guest memory in MiB", set_memory, TL_JSON(l.memory_mib)},
    {"guest.iothreads", FT::kInt, {"iothreads"}, "", "", set_iothreads, TL_JSON(l.iothreads)},
    {"guest.hyperv", FT::kBool, {"hyperv"}, "", "", TL_PLAIN(hyperv, bool), TL_JSON(l.hyperv)},
    {"guest.kernel_cmdline_extra", FT::kString, {"kernel_cmdline_extra"}, "", "", set_cmdline,
     TL_JSON(l.kernel_cmdline_extra)},
    {"guest.os", FT::kString, {"guest_os"}, "", "", set_guest_os,
     TL_JSON(l.guest_os ? l.guest_os->written : "")},
    {"guest.numa_nodes", FT::kInt, {"numa_nodes", "nodes"}, "", "", set_numa_nodes,
     numa_nodes_json},
    {"guest.memoryless_nodes", FT::kIntList, {"memoryless_nodes"}, "", "", set_memoryless,
     memoryless_json},
    {"guest.node_distances", FT::kIntMatrix, {"node_distances", "distances"}, "", "",
     set_distances, distances_json},
    {"expose.as", FT::kString, {"expose", "exposure"}, "--expose",
     "override: flat | sockets | dies | numa", set_expose, TL_JSON(to_string(l.expose))},
    {"placement.policy", FT::kString, {"policy"}, "--policy",
     "override: l3-aligned | compact | scatter | unpinned | explicit", set_policy,
     TL_JSON(to_string(l.policy))},
    {"placement.host_cpus", FT::kString, {"host_cpus"}, "--host-cpus",
     "override: host CPUs the guest may use (list)", set_host_cpus,
     TL_JSON(cpus_json(l.host_cpus))},
    {"placement.housekeeping_cpus", FT::kString, {"housekeeping_cpus"}, "--housekeeping-cpus",
     "override: CPUs for emulator and I/O threads (list)", set_housekeeping,
     TL_JSON(cpus_json(l.housekeeping_cpus))},
    {"placement.explicit", FT::kStringList, {"explicit"}, "", "", set_explicit, explicit_json},
    {"cpu.model", FT::kString, {"cpu_model", "model"}, "", "", set_cpu_model,
     TL_JSON(l.cpu_model)},
    {"cpu.features_disable", FT::kStringList, {}, "", "", set_disable,
     TL_JSON(l.cpu_features_disable)},
    {"cpu.features_require", FT::kStringList, {}, "", "", set_require,
     TL_JSON(l.cpu_features_require)},
    {"memory.hugepages", FT::kString, {"hugepages"}, "", "", set_hugepages,
     TL_JSON(l.hugepage_kib)},
    {"memory.locked", FT::kBool, {"locked"}, "", "", TL_PLAIN(hugepages_locked, bool),
     TL_JSON(l.hugepages_locked)},
  };
}
// clang-format on

#undef TL_COUNT
#undef TL_PLAIN
#undef TL_JSON

Error unknown_field(std::string_view key) {
  std::string known;
  for (const auto& f : layout_fields()) known += (known.empty() ? "" : ", ") + std::string(f.key);
  return make_error(ErrorKind::input, "unknown layout field '" + std::string(key) +
                                          "' (expected one of " + known + ")");
}

}  // namespace

std::string_view LayoutField::section() const {
  auto dot = key.find('.');
  return dot == std::string_view::npos ? std::string_view{} : key.substr(0, dot);
}

std::string_view LayoutField::name() const {
  auto dot = key.find('.');
  return dot == std::string_view::npos ? key : key.substr(dot + 1);
}

Result<void> check_count(std::int64_t v, std::string_view key, int max) {
  if (v < 1 || v > max) {
    return make_error(ErrorKind::input, std::string(key) + ": expected an integer from 1 to " +
                                            std::to_string(max) + ", got " + std::to_string(v));
  }
  return {};
}

const std::vector<LayoutField>& layout_fields() {
  static const std::vector<LayoutField> table = make_table();
  return table;
}

const LayoutField* find_layout_field(std::string_view raw) {
  std::string k = lower(trim(raw));
  std::replace(k.begin(), k.end(), '-', '_');
  for (const auto& f : layout_fields()) {
    if (k == f.key) return &f;
    for (auto alias : f.aliases)
      if (k == alias) return &f;
  }
  return nullptr;
}

Result<void> set_layout_field(Layout& l, std::string_view key, std::string_view value) {
  const LayoutField* f = find_layout_field(key);
  if (!f) return unknown_field(key);
  TL_ASSIGN(auto v, field_value_from_text(*f, value));
  return f->set(l, v, std::string(f->key));
}

Result<void> set_layout_level(Layout& l, std::string_view key, const json& level) {
  const LayoutField* f = find_layout_field(key);
  if (!f) return unknown_field(key);
  TL_ASSIGN(auto v, field_value_from_json(*f, level));
  return f->set(l, v, std::string(f->key));
}

const std::vector<std::string>& layout_field_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const auto& f : layout_fields()) out.emplace_back(f.key);
    return out;
  }();
  return keys;
}

std::optional<std::string> layout_field_key(std::string_view key) {
  const LayoutField* f = find_layout_field(key);
  if (!f) return std::nullopt;
  return std::string(f->key);
}

}  // namespace topolab
