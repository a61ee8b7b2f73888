#include "protocol/run_telemetry.hpp"

#include <cmath>

#include "common/json_text.hpp"
#include "protocol/benchmark_result.hpp"

namespace topolab::protocol {

using nlohmann::json;

namespace {

// "number -1", "string \"x\"": what came, cut short (json_line escapes control bytes).
std::string telemetry_got(const json& v) {
  std::string text = v.type_name();
  if (v.is_primitive() && !v.is_null()) {
    std::string dump = json_line(v);
    if (dump.size() > 40) dump = dump.substr(0, 40) + "...";
    text += " " + dump;
  }
  return text;
}

Error telemetry_bad(const std::string& key, const std::string& expected, const json& v) {
  return make_error(ErrorKind::input, "field 'telemetry" + (key.empty() ? "" : "." + key) +
                                          "': expected " + expected + ", got " + telemetry_got(v));
}

Result<double> telemetry_seconds(const json& v, const std::string& key) {
  const bool ok = v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= 0 &&
                  v.get<double>() <= kMaxTelemetrySeconds;
  if (!ok) return telemetry_bad(key, "seconds 0..1e7 (a finite number)", v);
  return v.get<double>();
}

Result<std::uint64_t> telemetry_count(const json& v, const std::string& key, std::uint64_t max) {
  const bool ok = v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
  if (!ok || v.get<std::uint64_t>() > max)
    return telemetry_bad(key, "an integer 0.." + std::to_string(max), v);
  return v.get<std::uint64_t>();
}

Result<void> telemetry_omitted(const json& v, RunTelemetry& t) {
  if (!v.is_object()) return telemetry_bad("omitted", "an object of field: reason", v);
  for (const auto& [name, why] : v.items()) {
    bool known = false;
    for (const auto& f : telemetry_fields()) known = known || name == f.name;
    if (!known) return telemetry_bad("omitted", "names of telemetry fields", json(name));
    if (!why.is_string() || why.get_ref<const std::string&>().size() > kMaxOmittedBytes)
      return telemetry_bad("omitted." + name, "a reason of at most 1024 bytes", why);
    t.omitted[name] = why.get<std::string>();
  }
  return {};
}

// Counts the sampler derived: a subset can never exceed its whole, and no tick sees more
// changes than threads.
Result<void> telemetry_consistent(const RunTelemetry& t) {
  const std::uint64_t all = t.migrations.value_or(0);
  for (const auto* part : {&t.migrations_cross_l3, &t.migrations_cross_package})
    if (*part && (!t.migrations || **part > all))
      return make_error(ErrorKind::input, "field 'telemetry': cross-L3/cross-package migrations (" +
                                              std::to_string(**part) +
                                              ") exceed the migrations counted (" +
                                              std::to_string(all) + ")");
  if (all > t.samples * kMaxSampledThreads)
    return make_error(ErrorKind::input, "field 'telemetry.migrations': " + std::to_string(all) +
                                            " changes in " + std::to_string(t.samples) +
                                            " samples is impossible");
  return {};
}

}  // namespace

const std::vector<TelemetryField>& telemetry_fields() {
  static const std::vector<TelemetryField> fields = {
      {"cpu_user_s", true},
      {"cpu_sys_s", true},
      {"ctx_switches_involuntary", false},
      {"ctx_switches_voluntary", false},
      {"migrations", false},
      {"migrations_cross_l3", false},
      {"migrations_cross_package", false},
      {"kernel_migrations", false},
  };
  return fields;
}

std::optional<double> telemetry_value(const RunTelemetry& t, const std::string& name) {
  if (name == "cpu_user_s") return t.cpu_user_s;
  if (name == "cpu_sys_s") return t.cpu_sys_s;
  const std::pair<const char*, const std::optional<std::uint64_t>*> counts[] = {
      {"ctx_switches_involuntary", &t.ctx_switches_involuntary},
      {"ctx_switches_voluntary", &t.ctx_switches_voluntary},
      {"migrations", &t.migrations},
      {"migrations_cross_l3", &t.migrations_cross_l3},
      {"migrations_cross_package", &t.migrations_cross_package},
      {"kernel_migrations", &t.kernel_migrations}};
  for (const auto& [key, v] : counts)
    if (name == key && *v) return static_cast<double>(**v);
  return std::nullopt;
}

Result<RunTelemetry> parse_telemetry(const json& value) {
  if (!value.is_object()) return telemetry_bad("", "an object", value);
  TL_TRY(check_bounded_json(value, "telemetry"));
  RunTelemetry t;
  for (const auto& [key, v] : value.items()) {
    if (key == "cpu_user_s") {
      TL_ASSIGN(t.cpu_user_s, telemetry_seconds(v, key));
    } else if (key == "cpu_sys_s") {
      TL_ASSIGN(t.cpu_sys_s, telemetry_seconds(v, key));
    } else if (key == "samples") {
      TL_ASSIGN(t.samples, telemetry_count(v, key, kMaxTelemetrySamples));
    } else if (key == "omitted") {
      TL_TRY(telemetry_omitted(v, t));
    } else {
      std::optional<std::uint64_t>* slot = nullptr;
      if (key == "ctx_switches_involuntary") slot = &t.ctx_switches_involuntary;
      if (key == "ctx_switches_voluntary") slot = &t.ctx_switches_voluntary;
      if (key == "migrations") slot = &t.migrations;
      if (key == "migrations_cross_l3") slot = &t.migrations_cross_l3;
      if (key == "migrations_cross_package") slot = &t.migrations_cross_package;
      if (key == "kernel_migrations") slot = &t.kernel_migrations;
      if (slot) {
        TL_ASSIGN(*slot, telemetry_count(v, key, kMaxTelemetryCount));
      }
    }
  }
  TL_TRY(telemetry_consistent(t));
  return t;
}

json telemetry_to_json(const RunTelemetry& t) {
  json out = json::object();
  for (const auto& f : telemetry_fields()) {
    const auto v = telemetry_value(t, f.name);
    if (!v) continue;
    out[f.name] = f.seconds ? json(*v) : json(static_cast<std::uint64_t>(*v));
  }
  out["samples"] = t.samples;
  if (!t.omitted.empty()) out["omitted"] = t.omitted;
  return out;
}

}  // namespace topolab::protocol
