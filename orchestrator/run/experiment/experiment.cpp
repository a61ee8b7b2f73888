#include "orchestrator/run/experiment/experiment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "common/file_io.hpp"
#include "common/safe_name.hpp"
#include "orchestrator/model/layout/layout_fields.hpp"
#include "orchestrator/run/experiment/benchmark_check.hpp"
#include "orchestrator/run/experiment/experiment_detail.hpp"
#include "orchestrator/run/experiment/guest_table.hpp"
#include "orchestrator/run/experiment/hosts.hpp"
#include "orchestrator/run/experiment/matrix.hpp"
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

// The keys read after the loop over the file, once the keys they depend on are known.
struct LaterKeys {
  const toml::node* exclude = nullptr;
  const toml::node* baseline = nullptr;
  const toml::node* hosts = nullptr;  // read after 'backend', which it depends on
  const toml::node* guest = nullptr;  // checked against 'backend' once it is read
  const toml::node* os = nullptr;     // [os]: read once the guest's OS is known
  int factors_line = 1;
};

// name, description, layout, backend: the experiment's string keys.
Result<void> parse_string_key(const Ctx& c, const std::string& key, const toml::node& v,
                              const std::filesystem::path& base, Experiment& e) {
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
  return {};
}

// repetitions, timeout_s, seed.
Result<void> parse_number_key(const Ctx& c, const std::string& key, const toml::node& v,
                              Experiment& e) {
  if (key == "repetitions") {
    auto i = positive_int(c, v, key, 1000);
    if (!i) return i.error();
    e.repetitions = *i;
  } else if (key == "timeout_s") {
    auto i = positive_int(c, v, key, 86400);
    if (!i) return i.error();
    e.timeout_s = *i;
  } else {
    auto i = v.as_integer();
    if (!i || i->get() < 0) return c.at(v, "'seed': expected a non-negative integer");
    e.seed = static_cast<std::uint64_t>(i->get());
  }
  return {};
}

Result<void> parse_factors(const Ctx& c, const toml::node& v, Experiment& e) {
  auto t = v.as_table();
  if (!t) return c.at(v, "'factors': expected a table");
  KeyLines seen;
  TL_TRY(collect_factors(c, *t, "", 1, seen, e.factors));
  // toml++ tables iterate in key order; the file order is the order people expect.
  std::stable_sort(e.factors.begin(), e.factors.end(),
                   [](const Factor& a, const Factor& b) { return a.line < b.line; });
  return {};
}

// One top-level key of the file: read now, or kept in `later`.
Result<void> parse_root_key(const Ctx& c, const std::string& key, const toml::node& v,
                            const std::filesystem::path& base, Experiment& e, LaterKeys& later) {
  if (key == "name" || key == "description" || key == "layout" || key == "backend") {
    return parse_string_key(c, key, v, base, e);
  } else if (key == "repetitions" || key == "timeout_s" || key == "seed") {
    return parse_number_key(c, key, v, e);
  } else if (key == "factors") {
    later.factors_line = line_of(v);
    return parse_factors(c, v, e);
  } else if (key == "benchmark") {
    return parse_benchmarks(c, v, e);
  } else if (key == "exclude") {
    later.exclude = &v;
  } else if (key == "baseline") {
    later.baseline = &v;
  } else if (key == "adaptive") {
    return parse_adaptive(c, v, e);
  } else if (key == "guest") {
    auto g = parse_guest_table(v, base, c.origin);
    if (!g) return g.error();
    e.guest = *g;
    later.guest = &v;
  } else if (key == "boot") {
    auto b = parse_boot_settings(v, c.origin);
    if (!b) return b.error();
    e.boot = *b;
  } else if (key == "hosts") {
    later.hosts = &v;
  } else if (key == "os") {
    later.os = &v;
  } else {
    return c.at(v, "unknown key '" + key +
                       "': expected name, description, layout, repetitions, seed, backend, "
                       "timeout_s, factors, benchmark, exclude, baseline, adaptive, guest, "
                       "boot, hosts or os");
  }
  return {};
}

// The keys every experiment needs, and [guest] only where a guest runs.
Result<void> check_required_keys(const Ctx& c, const Experiment& e, const LaterKeys& later) {
  if (e.name.empty()) return c.at_line(1, "missing 'name': expected a non-empty string");
  // Read in any key order, so checked once 'backend' is known (issue 32: it was ignored).
  if (later.guest && e.backend == BackendKind::kHost)
    return c.at(*later.guest,
                "[guest]: backend \"host\" runs the benchmarks on this machine, in no guest; "
                "remove [guest] or use backend \"guest\"");
  if (e.layout_path.empty() && e.backend == BackendKind::kGuest)
    return c.at_line(1, "missing 'layout': expected a layout file path");
  if (e.benchmarks.empty()) return c.at_line(1, "missing [[benchmark]]: expected at least one");
  return {};
}

// [[exclude]] and [baseline] refer to factors, so they are read after [factors].
Result<void> parse_excludes_and_baseline(const Ctx& c, const LaterKeys& later, Experiment& e) {
  if (later.exclude) {
    auto arr = later.exclude->as_array();
    if (!arr || !arr->is_array_of_tables())
      return c.at(*later.exclude, "'exclude': expected [[exclude]] tables");
    for (const auto& item : *arr) {
      auto m = factor_levels(c, *item.as_table(), e, "[[exclude]]");
      if (!m) return m.error();
      if (m->empty()) return c.at(item, "[[exclude]]: expected at least one factor = level");
      e.excludes.push_back({*m, line_of(item)});
    }
  }
  if (later.baseline) {
    auto t = later.baseline->as_table();
    if (!t) return c.at(*later.baseline, "'baseline': expected a table");
    auto m = factor_levels(c, *t, e, "[baseline]");
    if (!m) return m.error();
    e.baseline = *m;
  }
  return {};
}

// The command line's options, checked and applied over the file.
Result<void> apply_command_line(const Ctx& c, const Overrides& overrides, Experiment& e) {
  if (overrides.repetitions && (*overrides.repetitions < 1 || *overrides.repetitions > 1000))
    return make_error(ErrorKind::input, "--repetitions " + std::to_string(*overrides.repetitions) +
                                            ": expected an integer 1..1000");
  TL_TRY(check_host_list(overrides.hosts, "--connect"));
  if (overrides.hosts.size() > 1 && e.backend == BackendKind::kHost)
    return make_error(ErrorKind::input, "--connect: backend \"host\" runs on this machine only");
  apply_overrides(overrides, e);
  if (e.adaptive && e.adaptive->max_repetitions < e.repetitions)
    return c.at_line(1, "'adaptive.max_repetitions' (" +
                            std::to_string(e.adaptive->max_repetitions) +
                            ") must be >= repetitions (" + std::to_string(e.repetitions) + ")");
  return {};
}

Result<void> parse_root(const Ctx& c, const toml::table& root, const std::filesystem::path& base,
                        const Overrides& overrides, Experiment& e) {
  LaterKeys later;
  for (const auto& [k, v] : root)
    TL_TRY(parse_root_key(c, std::string(k.str()), v, base, e, later));
  TL_TRY(check_required_keys(c, e, later));
  TL_TRY(check_params_factors(c, e));
  if (later.os) TL_TRY(parse_os_table(c, *later.os, e));
  TL_TRY(check_os_settings(c, e));
  if (later.hosts) TL_TRY(parse_hosts(c, *later.hosts, e));
  TL_TRY(parse_excludes_and_baseline(c, later, e));
  TL_TRY(apply_command_line(c, overrides, e));
  TL_TRY(check_size_limits(c, later.factors_line, e, overrides.repetitions.has_value()));
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

}  // namespace topolab::experiment
