#include "protocol/benchmark_result.hpp"

#include <cmath>
#include <limits>
#include <set>

#include "common/json_text.hpp"

namespace topolab::protocol {

using nlohmann::json;

namespace {

// "number 5", "string \"ab...\"": what came, short and with control bytes made visible.
std::string describe(const json& v) {
  std::string text = v.is_discarded()
                         ? "unreadable JSON (not JSON, over the size limit or nested too deep)"
                         : v.type_name();
  if (v.is_primitive() && !v.is_null() && !v.is_discarded()) {
    std::string dump = json_line(v);
    if (dump.size() > 40) dump = dump.substr(0, 40) + "...";
    text += " ";
    for (char c : dump) {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7F) {
        static const char* hex = "0123456789abcdef";
        text += "\\x";
        text += hex[u >> 4];
        text += hex[u & 15];
      } else {
        text += c;
      }
    }
  }
  return text;
}

Error bad(const std::string& where, const std::string& expected, const json* v) {
  return make_error(ErrorKind::input, "field '" + where + "': expected " + expected +
                                          (v ? ", got " + describe(*v) : ", but it is missing"));
}

const json* member(const json& obj, std::string_view key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

Result<std::string> bounded_string(const json& obj, std::string_view key, std::size_t max) {
  const json* v = member(obj, key);
  const std::string where(key);
  if (v == nullptr || !v->is_string()) return bad(where, "a string", v);
  const auto& s = v->get_ref<const std::string&>();
  if (s.size() > max)
    return make_error(ErrorKind::input, "field '" + where + "': " + std::to_string(s.size()) +
                                            " bytes, more than the limit of " +
                                            std::to_string(max));
  return s;
}

bool is_finite_number(const json& v) {
  return v.is_number() && (!v.is_number_float() || std::isfinite(v.get<double>()));
}

Result<std::optional<double>> optional_number(const json& obj, std::string_view key,
                                              const std::string& where) {
  const json* v = member(obj, key);
  if (v == nullptr || v->is_null()) return std::optional<double>();
  if (!is_finite_number(*v)) return bad(where, "a finite number or null", v);
  return std::optional<double>(v->get<double>());
}

Result<std::int64_t> cpu_id(const json& v, const std::string& where) {
  const std::string range = "a CPU id (integer 0.." + std::to_string(kMaxCpuId) + ")";
  if (!v.is_number_integer()) return bad(where, range, &v);
  if (v.is_number_unsigned() ? v.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxCpuId)
                             : (v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > kMaxCpuId))
    return bad(where, range, &v);
  return v.get<std::int64_t>();
}

Result<void> check_node(const json& v, const std::string& where, int depth) {
  if (depth > kMaxResultDepth)
    return make_error(ErrorKind::input, "field '" + where + "': nested deeper than " +
                                            std::to_string(kMaxResultDepth) + " levels");
  if (v.is_discarded()) return bad(where, "JSON", &v);
  if (v.is_number_float() && !std::isfinite(v.get<double>()))
    return bad(where, "a finite number", &v);
  if (v.is_string() && v.get_ref<const std::string&>().size() > kMaxTextBytes)
    return make_error(ErrorKind::input, "field '" + where + "': string longer than " +
                                            std::to_string(kMaxTextBytes) + " bytes");
  if (v.is_array()) {
    if (v.size() > kMaxArrayItems)
      return make_error(ErrorKind::input, "field '" + where + "': " + std::to_string(v.size()) +
                                              " items, more than the limit of " +
                                              std::to_string(kMaxArrayItems));
    for (std::size_t i = 0; i < v.size(); ++i)
      TL_TRY(check_node(v[i], where + "[" + std::to_string(i) + "]", depth + 1));
  }
  if (v.is_object()) {
    if (v.size() > kMaxObjectMembers)
      return make_error(ErrorKind::input, "field '" + where + "': " + std::to_string(v.size()) +
                                              " members, more than the limit of " +
                                              std::to_string(kMaxObjectMembers));
    for (const auto& [k, child] : v.items()) {
      if (k.size() > kMaxTextBytes)
        return make_error(ErrorKind::input, "field '" + where + "': a key longer than " +
                                                std::to_string(kMaxTextBytes) + " bytes");
      TL_TRY(check_node(child, where.empty() ? k : where + "." + k, depth + 1));
    }
  }
  return {};
}

// details.pairs of a core-to-core result: every named CPU id in range, few enough distinct ids
// for the report's n x n matrix.
Result<void> check_pairs(const json& pairs) {
  if (!pairs.is_array()) return bad("details.pairs", "an array", &pairs);
  std::set<std::int64_t> ids;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const json& p = pairs[i];
    const std::string where = "details.pairs[" + std::to_string(i) + "]";
    if (!p.is_object()) return bad(where, "an object", &p);
    for (const char* k : {"a", "b"}) {
      const json* id = member(p, k);
      if (id == nullptr) continue;
      TL_ASSIGN(auto cpu, cpu_id(*id, where + "." + k));
      ids.insert(cpu);
      if (ids.size() > kMaxC2cCpus)
        return make_error(ErrorKind::input, "field 'details.pairs': names more than " +
                                                std::to_string(kMaxC2cCpus) +
                                                " distinct CPUs (the limit)");
    }
    for (const char* k : {"ns", "median_ns", "min_ns"}) {
      TL_TRY(optional_number(p, k, where + "." + k));
    }
  }
  return {};
}

Result<void> check_matrix(const json& rows, const std::string& where) {
  if (!rows.is_array()) return bad(where, "an array of rows", &rows);
  if (rows.size() > kMaxC2cCpus)
    return make_error(ErrorKind::input, "field '" + where + "': " + std::to_string(rows.size()) +
                                            " rows, more than the limit of " +
                                            std::to_string(kMaxC2cCpus));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string row = where + "[" + std::to_string(i) + "]";
    if (!rows[i].is_array() || rows[i].size() > kMaxC2cCpus)
      return bad(row, "an array of at most " + std::to_string(kMaxC2cCpus) + " numbers", &rows[i]);
    for (std::size_t j = 0; j < rows[i].size(); ++j)
      if (!rows[i][j].is_null() && !is_finite_number(rows[i][j]))
        return bad(row + "[" + std::to_string(j) + "]", "a finite number or null", &rows[i][j]);
  }
  return {};
}

// details.cpus: an array of ids, or a CPU-list string whose every number is in range (checked
// on the text, so the report's CpuList::parse can never expand a huge range).
Result<void> check_cpus(const json& cpus) {
  if (cpus.is_array()) {
    if (cpus.size() > kMaxC2cCpus) return bad("details.cpus", "at most 1024 CPU ids", &cpus);
    for (std::size_t i = 0; i < cpus.size(); ++i) {
      TL_TRY(cpu_id(cpus[i], "details.cpus[" + std::to_string(i) + "]"));
    }
    return {};
  }
  if (!cpus.is_string()) return bad("details.cpus", "an array of CPU ids or a CPU list", &cpus);
  std::uint64_t number = 0;
  bool in_number = false;
  for (char c : cpus.get_ref<const std::string&>()) {
    if (c >= '0' && c <= '9') {
      number = in_number ? number * 10 + static_cast<std::uint64_t>(c - '0')
                         : static_cast<std::uint64_t>(c - '0');
      in_number = true;
      if (number > static_cast<std::uint64_t>(kMaxCpuId))
        return bad("details.cpus", "CPU ids up to " + std::to_string(kMaxCpuId), &cpus);
    } else {
      in_number = false;
    }
  }
  return {};
}

Result<void> check_details(const json& d) {
  if (d.is_null()) return {};
  if (!d.is_object()) return bad("details", "an object or null", &d);
  TL_TRY(check_node(d, "details", 1));
  if (const json* p = member(d, "pairs")) TL_TRY(check_pairs(*p));
  for (const char* k : {"matrix_ns", "matrix", "latency_ns"})
    if (const json* m = member(d, k)) TL_TRY(check_matrix(*m, std::string("details.") + k));
  if (const json* c = member(d, "cpus")) TL_TRY(check_cpus(*c));
  return {};
}

Result<ResultSummary> check_summary(const json& obj) {
  const json* s = member(obj, "summary");
  if (s == nullptr || !s->is_object()) return bad("summary", "an object", s);
  ResultSummary out;
  const json* n = member(*s, "n");
  if (n == nullptr || !n->is_number_integer() ||
      (!n->is_number_unsigned() && n->get<std::int64_t>() < 0) ||
      n->get<std::uint64_t>() > kMaxSamples)
    return bad("summary.n", "an integer 0.." + std::to_string(kMaxSamples), n);
  out.n = n->get<std::uint64_t>();
  std::optional<double>* fields[] = {&out.min, &out.median, &out.mean, &out.max, &out.cv};
  const char* names[] = {"min", "median", "mean", "max", "cv"};
  for (int i = 0; i < 5; ++i) {
    TL_ASSIGN(*fields[i], optional_number(*s, names[i], std::string("summary.") + names[i]));
  }
  return out;
}

Result<std::vector<double>> check_samples(const json& obj) {
  const json* s = member(obj, "samples");
  if (s == nullptr || !s->is_array()) return bad("samples", "an array of numbers", s);
  if (s->size() > kMaxSamples)
    return make_error(ErrorKind::input, "field 'samples': " + std::to_string(s->size()) +
                                            " samples, more than the limit of " +
                                            std::to_string(kMaxSamples));
  std::vector<double> out;
  out.reserve(s->size());
  for (std::size_t i = 0; i < s->size(); ++i) {
    if (!is_finite_number((*s)[i]))
      return bad("samples[" + std::to_string(i) + "]", "a finite number", &(*s)[i]);
    out.push_back((*s)[i].get<double>());
  }
  return out;
}

Result<json> free_object(const json& obj, std::string_view key, bool null_ok) {
  const json* v = member(obj, key);
  const std::string where(key);
  if (v == nullptr || (null_ok && v->is_null())) return null_ok ? json() : json::object();
  if (!v->is_object()) return bad(where, null_ok ? "an object or null" : "an object", v);
  TL_TRY(check_node(*v, where, 1));
  return *v;
}

}  // namespace

Result<void> check_bounded_json(const json& value, const std::string& where) {
  return check_node(value, where, 1);
}

namespace {

Result<BenchmarkResult> validate_fields(const json& result) {
  if (!result.is_object())
    return make_error(ErrorKind::input, "expected an object, got " + describe(result));
  BenchmarkResult r;
  TL_ASSIGN(r.benchmark, bounded_string(result, "benchmark", kMaxNameBytes));
  TL_ASSIGN(r.metric, bounded_string(result, "metric", kMaxNameBytes));
  TL_ASSIGN(r.unit, bounded_string(result, "unit", kMaxUnitBytes));
  const json* lib = member(result, "lower_is_better");
  if (lib == nullptr || !lib->is_boolean()) return bad("lower_is_better", "true or false", lib);
  r.lower_is_better = lib->get<bool>();
  TL_ASSIGN(r.samples, check_samples(result));
  TL_ASSIGN(r.summary, check_summary(result));
  TL_ASSIGN(r.params, free_object(result, "params", false));
  TL_ASSIGN(r.environment, free_object(result, "environment", false));
  if (const json* d = member(result, "details")) {
    TL_TRY(check_details(*d));
    r.details = *d;
  }
  if (const json* t = member(result, "telemetry"); t != nullptr && !t->is_null()) {
    TL_ASSIGN(r.telemetry, parse_telemetry(*t));
  }
  if (const json* h = member(result, "host_telemetry"); h != nullptr && !h->is_null()) {
    TL_ASSIGN(r.host_telemetry, parse_host_telemetry(*h));
  }
  return r;
}

}  // namespace

Result<BenchmarkResult> validate_result(const json& result) {
  TL_ASSIGN_CTX(auto r, validate_fields(result), "guest result");
  return r;
}

json result_to_json(const BenchmarkResult& r) {
  json summary = {{"n", r.summary.n}};
  const std::pair<const char*, const std::optional<double>*> stats[] = {
      {"min", &r.summary.min},
      {"median", &r.summary.median},
      {"mean", &r.summary.mean},
      {"max", &r.summary.max},
      {"cv", &r.summary.cv}};
  for (const auto& [name, v] : stats) summary[name] = *v ? json(**v) : json();
  json out = {{"benchmark", r.benchmark},
              {"params", r.params},
              {"metric", r.metric},
              {"unit", r.unit},
              {"lower_is_better", r.lower_is_better},
              {"samples", r.samples},
              {"summary", summary},
              {"environment", r.environment},
              {"details", r.details}};
  if (r.telemetry) out["telemetry"] = telemetry_to_json(*r.telemetry);
  if (r.host_telemetry) out["host_telemetry"] = host_telemetry_to_json(*r.host_telemetry);
  return out;
}

double result_value(const BenchmarkResult& r) {
  return r.summary.median ? *r.summary.median : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace topolab::protocol
