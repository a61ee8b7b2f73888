#include "orchestrator/experiment/experiment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "common/file_io.hpp"
#include "common/safe_name.hpp"
#include "orchestrator/experiment/benchmark_check.hpp"
#include "orchestrator/experiment/experiment_detail.hpp"
#include "orchestrator/experiment/guest_table.hpp"
#include "orchestrator/experiment/hosts.hpp"
#include "orchestrator/experiment/matrix.hpp"
#include "orchestrator/layout/layout_fields.hpp"
#include "protocol/guest_settings.hpp"

namespace topolab::experiment {
using namespace detail;  // Ctx and the [factors] readers (experiment_factors.cpp)

namespace {

Result<int> positive_int(const Ctx& c, const toml::node& n, const std::string& key, int max) {
  auto i = n.as_integer();
  if (!i || i->get() < 1 || i->get() > max)
    return c.at(n, "'" + key + "': expected an integer 1.." + std::to_string(max));
  return static_cast<int>(i->get());
}

Result<std::string> string_value(const Ctx& c, const toml::node& n, const std::string& key) {
  auto s = n.as_string();
  if (!s) return c.at(n, "'" + key + "': expected a string");
  return s->get();
}

Result<void> parse_benchmarks(const Ctx& c, const toml::node& n, Experiment& e) {
  auto arr = n.as_array();
  if (!arr || !arr->is_array_of_tables())
    return c.at(n, "'benchmark': expected [[benchmark]] tables");
  for (const auto& item : *arr) {
    const auto& t = *item.as_table();
    BenchmarkSpec b;
    b.line = line_of(item);
    for (const auto& [k, v] : t) {
      if (k == "name") {
        auto s = string_value(c, v, "benchmark.name");
        if (!s) return s.error();
        b.name = *s;
      } else if (k == "params") {
        auto p = v.as_table();
        if (!p) return c.at(v, "'benchmark.params': expected a table");
        auto j = params_to_json(c, *p);
        if (!j) return j.error();
        b.params = *j;
      } else {
        return c.at(
            v, "unknown key 'benchmark." + std::string(k.str()) + "': expected name or params");
      }
    }
    if (b.name.empty()) return c.at(item, "[[benchmark]]: expected a non-empty 'name'");
    e.benchmarks.push_back(std::move(b));
  }
  return {};
}

Result<void> parse_adaptive(const Ctx& c, const toml::node& n, Experiment& e) {
  auto t = n.as_table();
  if (!t) return c.at(n, "'adaptive': expected a table");
  AdaptiveSpec a;
  for (const auto& [k, v] : *t) {
    if (k == "cv_threshold") {
      auto d = v.value<double>();
      if (!d || !std::isfinite(*d) || *d <= 0 || *d >= 10)
        return c.at(v, "'adaptive.cv_threshold': expected a number in (0, 10)");
      a.cv_threshold = *d;
    } else if (k == "ci_halfwidth_pct") {
      auto d = v.value<double>();
      if (!d || !std::isfinite(*d) || *d <= 0 || *d >= 100)
        return c.at(v, "'adaptive.ci_halfwidth_pct': expected a number in (0, 100)");
      a.ci_halfwidth_pct = *d;
    } else if (k == "max_repetitions") {
      auto i = positive_int(c, v, "adaptive.max_repetitions", 1000);
      if (!i) return i.error();
      a.max_repetitions = *i;
    } else {
      return c.at(v, "unknown key 'adaptive." + std::string(k.str()) +
                         "': expected cv_threshold, ci_halfwidth_pct or max_repetitions");
    }
  }
  if (!a.cv_threshold && !a.ci_halfwidth_pct) a.cv_threshold = 0.05;
  e.adaptive = a;
  return {};
}

// hosts = ["qemu:///system", ...]: each URI checked, no duplicates, at most kMaxHosts.
Result<void> parse_hosts(const Ctx& c, const toml::node& n, Experiment& e) {
  auto arr = n.as_array();
  if (!arr || arr->empty()) return c.at(n, "'hosts': expected a non-empty array of libvirt URIs");
  if (arr->size() > kMaxHosts)
    return c.at(n, "'hosts': " + std::to_string(arr->size()) + " hosts, more than the limit " +
                       std::to_string(kMaxHosts));
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const toml::node& item = *arr->get(i);
    auto s = item.as_string();
    if (!s) return c.at(item, "'hosts': expected strings (libvirt URIs)");
    const std::string uri = s->get();
    if (auto p = host_uri_problem(uri, virt::UriSource::file); !p.empty())
      return c.at(item, "'hosts' " + shown_uri(uri, i) + ": " + p);
    if (auto d = duplicate_problem(e.hosts, uri); !d.empty())
      return c.at(item, "'hosts' '" + uri + "': " + d);
    e.hosts.push_back(uri);
  }
  e.hosts_source = virt::UriSource::file;
  if (e.backend == BackendKind::kHost)
    return c.at(n, "'hosts': backend \"host\" runs on this machine only; remove 'hosts'");
  return {};
}

Result<void> check_params_factors(const Ctx& c, const Experiment& e) {
  for (const auto& f : e.factors) {
    if (f.kind != FactorKind::kParam || f.key.find('.', 6) == std::string::npos) continue;
    std::string bench = f.key.substr(6, f.key.find('.', 6) - 6);
    bool known = false;
    for (const auto& b : e.benchmarks) known = known || b.name == bench;
    if (!known)
      return c.at_line(f.line, "factor '" + f.key + "': no [[benchmark]] named '" + bench + "'");
  }
  return {};
}

// [os]: settings held for the whole experiment, written without the "os." prefix.
Result<void> parse_os_table(const Ctx& c, const toml::node& n, Experiment& e) {
  auto t = n.as_table();
  if (!t) return c.at(n, "'os': expected a table of guest settings (smt = \"off\", ...)");
  for (const auto& [k, v] : *t) {
    const std::string name = "os." + std::string(k.str());
    auto value = scalar_to_json(c, v, "[os] '" + std::string(k.str()) + "'");
    if (!value) return value.error();
    if (e.factor(name))
      return c.at(v, "[os] '" + std::string(k.str()) + "': " + name +
                         " is also a factor; give it in one place");
    e.os_constants.push_back({name, *value, line_of(v)});
  }
  return {};
}

// Which OS the experiment's os.* settings are for; nullopt when the file cannot tell (a
// template domain: the agent's hello decides, per cell).
std::optional<protocol::SettingOs> settings_os(const Experiment& e) {
  if (e.backend == BackendKind::kHost || e.guest.builtin()) return protocol::SettingOs::kLinux;
  if (e.guest.kind == guestsource::GuestKind::kDisk)
    return e.guest.os == GuestOs::kWindows ? protocol::SettingOs::kWindows
                                           : protocol::SettingOs::kLinux;
  return std::nullopt;
}

std::string guest_description(const Experiment& e) {
  if (e.backend == BackendKind::kHost) return "backend \"host\" runs on this Linux host";
  if (e.guest.builtin()) return "the built-in guest runs Linux";
  return "this experiment's guest runs " + std::string(to_string(e.guest.os));
}

// One os.* name and value: a known row, of the guest's OS, a value of the row's domain.
Result<void> check_os_value(const Ctx& c, int line, const Experiment& e, const std::string& what,
                            const std::string& name, const nlohmann::json* value) {
  const auto os = settings_os(e);
  const protocol::SettingRow* row = protocol::find_setting(name);
  if (!row) {
    const std::string known =
        os ? "known for " + std::string(protocol::to_string(*os)) + ": " +
                 protocol::setting_names(*os)
           : "known: " + protocol::setting_names(protocol::SettingOs::kLinux) + ", " +
                 protocol::setting_names(protocol::SettingOs::kWindows);
    return c.at_line(line, what + " '" + name + "': not a guest setting (" + known + ")");
  }
  if (os && row->os != *os)
    return c.at_line(line, what + " '" + name + "': a " +
                               std::string(protocol::to_string(row->os)) + " setting, but " +
                               guest_description(e) +
                               " (its settings: " + protocol::setting_names(*os) + ")");
  if (value) {
    auto ok = protocol::check_setting_value(*row, *value);
    if (!ok) return c.at_line(line, what + " '" + name + "': " + ok.error().message);
  }
  return {};
}

Result<void> check_os_settings(const Ctx& c, const Experiment& e) {
  for (const auto& f : e.factors) {
    if (f.kind != FactorKind::kOs) continue;
    TL_TRY(check_os_value(c, f.line, e, "factor", f.key, nullptr));
    for (const auto& level : f.levels)
      TL_TRY(check_os_value(c, f.line, e, "factor", f.key, &level));
  }
  for (const auto& k : e.os_constants)
    TL_TRY(check_os_value(c, k.line, e, "[os]", k.name, &k.value));
  return {};
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a)
    return std::numeric_limits<std::uint64_t>::max();
  return a * b;
}

std::string count_text(std::uint64_t n) {
  if (n == std::numeric_limits<std::uint64_t>::max()) return "more than " + std::to_string(n);
  return std::to_string(n);
}

// "3 × 2 × 4", at most 12 terms.
std::string factor_product_text(const Experiment& e) {
  std::string out;
  for (std::size_t i = 0; i < e.factors.size(); ++i) {
    if (i == 12) return out + " × ... (" + std::to_string(e.factors.size()) + " factors)";
    out += (i ? " × " : "") + std::to_string(e.factors[i].levels.size());
  }
  return out;
}

Result<void> check_size_limits(const Ctx& c, int factors_line, const Experiment& e,
                               bool reps_from_cli) {
  // Every cell runs once per host: the hosts multiply the cells like a factor.
  const std::uint64_t cells =
      saturating_mul(full_factorial_cells(e), std::max<std::size_t>(e.hosts.size(), 1));
  if (cells > kMaxCells)
    return c.at_line(factors_line, "[factors]: the matrix has " + count_text(cells) + " cells (" +
                                       factor_product_text(e) + "), more than the limit " +
                                       std::to_string(kMaxCells) +
                                       "; remove factors or levels, or split the experiment");
  const auto reps = static_cast<std::uint64_t>(
      e.adaptive ? std::max(e.repetitions, e.adaptive->max_repetitions) : e.repetitions);
  const std::uint64_t runs = saturating_mul(saturating_mul(cells, e.benchmarks.size()), reps);
  if (runs > kMaxRuns)
    return c.at_line(factors_line,
                     "[factors]: the experiment has up to " + count_text(runs) + " runs (" +
                         std::to_string(cells) + " cells × " + std::to_string(e.benchmarks.size()) +
                         " benchmarks × " + std::to_string(reps) +
                         (e.adaptive ? " adaptive.max_repetitions" : " repetitions") +
                         (reps_from_cli ? " (with --repetitions)" : "") +
                         "), more than the limit " + std::to_string(kMaxRuns) +
                         "; remove levels, benchmarks or repetitions, or split the experiment");
  return {};
}

// The command line wins over the file; applied before any limit is checked.
void apply_overrides(const Overrides& o, Experiment& e) {
  if (o.repetitions) {
    e.repetitions = *o.repetitions;
    if (e.adaptive && e.adaptive->max_repetitions < e.repetitions)
      e.adaptive->max_repetitions = e.repetitions;
  }
  if (o.seed) e.seed = *o.seed;
  // Backend "host" never connected anywhere: one --connect is ignored there, as it always was.
  if (!o.hosts.empty() && e.backend != BackendKind::kHost) {
    e.hosts = o.hosts;
    e.hosts_source = virt::UriSource::command_line;
  }
}

Result<void> parse_root(const Ctx& c, const toml::table& root, const std::filesystem::path& base,
                        const Overrides& overrides, Experiment& e) {
  const toml::node* exclude_node = nullptr;
  const toml::node* baseline_node = nullptr;
  const toml::node* hosts_node = nullptr;  // read after 'backend', which it depends on
  const toml::node* guest_node = nullptr;  // checked against 'backend' once it is read
  const toml::node* os_node = nullptr;     // [os]: read once the guest's OS is known
  int factors_line = 1;
  for (const auto& [k, v] : root) {
    std::string key(k.str());
    if (key == "name" || key == "description" || key == "layout" || key == "backend") {
      auto s = string_value(c, v, key);
      if (!s) return s.error();
      if (key == "name") {  // names the default store file and terminal lines (redteam)
        if (auto problem = name_problem(*s); !problem.empty()) return c.at(v, "'name': " + problem);
        e.name = *s;
      }
      if (key == "description") e.description = *s;
      if (key == "layout") e.layout_path = (base / *s).lexically_normal();
      if (key == "backend") {
        if (*s == "guest")
          e.backend = BackendKind::kGuest;
        else if (*s == "host")
          e.backend = BackendKind::kHost;
        else
          return c.at(v, "'backend' = '" + *s + "': expected \"guest\" or \"host\"");
      }
    } else if (key == "repetitions") {
      auto i = positive_int(c, v, key, 1000);
      if (!i) return i.error();
      e.repetitions = *i;
    } else if (key == "timeout_s") {
      auto i = positive_int(c, v, key, 86400);
      if (!i) return i.error();
      e.timeout_s = *i;
    } else if (key == "seed") {
      auto i = v.as_integer();
      if (!i || i->get() < 0) return c.at(v, "'seed': expected a non-negative integer");
      e.seed = static_cast<std::uint64_t>(i->get());
    } else if (key == "factors") {
      auto t = v.as_table();
      if (!t) return c.at(v, "'factors': expected a table");
      factors_line = line_of(v);
      KeyLines seen;
      TL_TRY(collect_factors(c, *t, "", 1, seen, e.factors));
      // toml++ tables iterate in key order; the file order is the order people expect.
      std::stable_sort(e.factors.begin(), e.factors.end(),
                       [](const Factor& a, const Factor& b) { return a.line < b.line; });
    } else if (key == "benchmark") {
      TL_TRY(parse_benchmarks(c, v, e));
    } else if (key == "exclude") {
      exclude_node = &v;
    } else if (key == "baseline") {
      baseline_node = &v;
    } else if (key == "adaptive") {
      TL_TRY(parse_adaptive(c, v, e));
    } else if (key == "guest") {
      auto g = parse_guest_table(v, base, c.origin);
      if (!g) return g.error();
      e.guest = *g;
      guest_node = &v;
    } else if (key == "boot") {
      auto b = parse_boot_settings(v, c.origin);
      if (!b) return b.error();
      e.boot = *b;
    } else if (key == "hosts") {
      hosts_node = &v;
    } else if (key == "os") {
      os_node = &v;
    } else {
      return c.at(v, "unknown key '" + key +
                         "': expected name, description, layout, repetitions, seed, backend, "
                         "timeout_s, factors, benchmark, exclude, baseline, adaptive, guest, "
                         "boot, hosts or os");
    }
  }
  if (e.name.empty()) return c.at_line(1, "missing 'name': expected a non-empty string");
  // Read in any key order, so checked once 'backend' is known (issue 32: it was ignored).
  if (guest_node && e.backend == BackendKind::kHost)
    return c.at(*guest_node,
                "[guest]: backend \"host\" runs the benchmarks on this machine, in no guest; "
                "remove [guest] or use backend \"guest\"");
  if (e.layout_path.empty() && e.backend == BackendKind::kGuest)
    return c.at_line(1, "missing 'layout': expected a layout file path");
  if (e.benchmarks.empty()) return c.at_line(1, "missing [[benchmark]]: expected at least one");
  TL_TRY(check_params_factors(c, e));
  if (os_node) TL_TRY(parse_os_table(c, *os_node, e));
  TL_TRY(check_os_settings(c, e));
  if (hosts_node) TL_TRY(parse_hosts(c, *hosts_node, e));
  // [[exclude]] and [baseline] refer to factors, so they are read after [factors].
  if (exclude_node) {
    auto arr = exclude_node->as_array();
    if (!arr || !arr->is_array_of_tables())
      return c.at(*exclude_node, "'exclude': expected [[exclude]] tables");
    for (const auto& item : *arr) {
      auto m = factor_levels(c, *item.as_table(), e, "[[exclude]]");
      if (!m) return m.error();
      if (m->empty()) return c.at(item, "[[exclude]]: expected at least one factor = level");
      e.excludes.push_back({*m, line_of(item)});
    }
  }
  if (baseline_node) {
    auto t = baseline_node->as_table();
    if (!t) return c.at(*baseline_node, "'baseline': expected a table");
    auto m = factor_levels(c, *t, e, "[baseline]");
    if (!m) return m.error();
    e.baseline = *m;
  }
  if (overrides.repetitions && (*overrides.repetitions < 1 || *overrides.repetitions > 1000))
    return make_error("--repetitions " + std::to_string(*overrides.repetitions) +
                      ": expected an integer 1..1000");
  TL_TRY(check_host_list(overrides.hosts, "--connect"));
  if (overrides.hosts.size() > 1 && e.backend == BackendKind::kHost)
    return make_error("--connect: backend \"host\" runs on this machine only");
  apply_overrides(overrides, e);
  if (e.adaptive && e.adaptive->max_repetitions < e.repetitions)
    return c.at_line(1, "'adaptive.max_repetitions' (" +
                            std::to_string(e.adaptive->max_repetitions) +
                            ") must be >= repetitions (" + std::to_string(e.repetitions) + ")");
  TL_TRY(check_size_limits(c, factors_line, e, overrides.repetitions.has_value()));
  TL_TRY(check_benchmark_params(c, e));  // after the size check: it walks every param level
  // After the size check, so the expansion is bounded. An experiment whose [[exclude]] rules
  // drop every cell ran nothing and exited 0 (redteam).
  if (!e.excludes.empty() && expand_cells(e).empty())
    return c.at_line(e.excludes.front().line,
                     "[[exclude]]: the rules exclude every cell of the matrix; nothing would run");
  return {};
}

}  // namespace

std::string to_string(BackendKind b) { return b == BackendKind::kHost ? "host" : "guest"; }

const Factor* Experiment::factor(std::string_view key) const {
  for (const auto& f : factors)
    if (f.key == key) return &f;
  const std::string field = canonical_factor_key(std::string(key));
  for (const auto& f : factors)
    if (f.field == field) return &f;
  return nullptr;
}

std::uint64_t full_factorial_cells(const Experiment& e) {
  std::uint64_t cells = 1;
  for (const auto& f : e.factors) cells = saturating_mul(cells, f.levels.size());
  return cells;
}

std::string canonical_factor_key(const std::string& key) {
  if (key.rfind("cmdline.", 0) == 0 || key.rfind("param.", 0) == 0 || key.rfind("os.", 0) == 0)
    return key;
  return layout_field_key(key).value_or(key);
}

bool same_level(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number_float() != b.is_number_float()) return false;
  if (a.is_number() && b.is_number()) return a == b;
  return a.type() == b.type() && a == b;
}

std::string level_text(const nlohmann::json& level) {
  if (level.is_string()) return level.get<std::string>();
  return level.dump();
}

Result<Experiment> parse_experiment(std::string_view text, const std::string& origin,
                                    const std::filesystem::path& base_dir,
                                    const Overrides& overrides) {
  Ctx c{origin};
  auto root = parse_toml(text, origin);
  if (!root) return root.error();
  Experiment e;
  e.source_file = origin;
  TL_TRY(parse_root(c, *root, base_dir, overrides, e));
  return e;
}

Result<Experiment> load_experiment_file(const std::filesystem::path& path,
                                        const Overrides& overrides) {
  auto text = read_file(path, 1u << 20);
  if (!text) return text.error();
  auto abs = std::filesystem::absolute(path);
  return parse_experiment(*text, path.string(), abs.parent_path(), overrides);
}

nlohmann::json experiment_to_json(const Experiment& e) {
  nlohmann::json factors = nlohmann::json::array();
  for (const auto& f : e.factors) factors.push_back({{"key", f.key}, {"levels", f.levels}});
  nlohmann::json benches = nlohmann::json::array();
  for (const auto& b : e.benchmarks) benches.push_back({{"name", b.name}, {"params", b.params}});
  nlohmann::json excludes = nlohmann::json::array();
  for (const auto& x : e.excludes) excludes.push_back(x.match);
  nlohmann::json j = {{"name", e.name},
                      {"description", e.description},
                      {"source_file", e.source_file.string()},
                      {"layout", e.layout_path.string()},
                      {"repetitions", e.repetitions},
                      {"factors", factors},
                      {"benchmarks", benches},
                      {"exclude", excludes},
                      {"baseline", e.baseline},
                      {"seed", e.seed},
                      {"backend", to_string(e.backend)},
                      {"timeout_s", e.timeout_s}};
  if (!e.guest.builtin()) j["guest"] = guest_source_to_json(e.guest);
  if (!e.hosts.empty()) j["hosts"] = e.hosts;
  for (const auto& k : e.os_constants) j["os"][k.name] = k.value;
  if (e.boot.retries) j["boot"]["retries"] = *e.boot.retries;
  if (e.boot.watchdog_ms) j["boot"]["watchdog_ms"] = *e.boot.watchdog_ms;
  if (e.adaptive) {
    j["adaptive"] = {{"max_repetitions", e.adaptive->max_repetitions}};
    if (e.adaptive->cv_threshold) j["adaptive"]["cv_threshold"] = *e.adaptive->cv_threshold;
    if (e.adaptive->ci_halfwidth_pct)
      j["adaptive"]["ci_halfwidth_pct"] = *e.adaptive->ci_halfwidth_pct;
  }
  return j;
}

}  // namespace topolab::experiment
