#include "protocol/host_telemetry.hpp"

#include <charconv>
#include <cmath>
#include <set>

#include "common/cpu_list.hpp"
#include "common/json_text.hpp"
#include "protocol/benchmark_result.hpp"

namespace topolab::protocol {

using nlohmann::json;

namespace {

Error host_bad(const std::string& key, const std::string& expected, const json& v) {
  std::string got = v.type_name();
  if (v.is_primitive() && !v.is_null()) {
    std::string dump = json_line(v);
    if (dump.size() > 40) dump = dump.substr(0, 40) + "...";
    got += " " + dump;
  }
  return make_error(ErrorKind::input, "field 'host_telemetry" + (key.empty() ? "" : "." + key) +
                                          "': expected " + expected + ", got " + got);
}

const json* find(const json& o, const char* key) {
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

Result<std::uint64_t> count(const json& o, const char* key, std::uint64_t max,
                            const std::string& where) {
  const json* v = find(o, key);
  const std::string name = where + key;
  if (v == nullptr) return host_bad(name, "an integer 0.." + std::to_string(max), json());
  const bool ok =
      v->is_number_unsigned() || (v->is_number_integer() && v->get<std::int64_t>() >= 0);
  if (!ok || v->get<std::uint64_t>() > max)
    return host_bad(name, "an integer 0.." + std::to_string(max), *v);
  return v->get<std::uint64_t>();
}

Result<std::map<int, double>> l3_shares(const json& v, const std::string& where) {
  if (!v.is_object()) return host_bad(where, "an object of L3 index: share", v);
  std::map<int, double> out;
  double sum = 0;
  for (const auto& [key, share] : v.items()) {
    int l3 = -1;
    const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), l3);
    if (ec != std::errc() || end != key.data() + key.size() || l3 < 0 || l3 >= kMaxCpuIds)
      return host_bad(where, "L3 indices 0.." + std::to_string(kMaxCpuIds - 1), json(key));
    if (!share.is_number() || !std::isfinite(share.get<double>()) || share.get<double>() < 0 ||
        share.get<double>() > 1)
      return host_bad(where + "." + key, "a share 0..1", share);
    out[l3] = share.get<double>();
    sum += share.get<double>();
  }
  if (sum > 1 + 1e-6) return host_bad(where, "shares summing to at most 1", json(sum));
  return out;
}

Result<VcpuHostTelemetry> parse_vcpu(const json& v, const std::string& where, std::uint64_t ticks) {
  if (!v.is_object()) return host_bad(where, "an object", v);
  VcpuHostTelemetry out;
  TL_ASSIGN(const auto id, count(v, "vcpu", kMaxHostVcpus - 1, where + "."));
  out.vcpu = static_cast<int>(id);
  const json* pinned = find(v, "pinned");
  if (pinned == nullptr || !pinned->is_boolean())
    return host_bad(where + ".pinned", "true or false", pinned ? *pinned : json());
  out.pinned = pinned->get<bool>();
  TL_ASSIGN(out.samples, count(v, "samples", ticks, where + "."));
  // A change is seen between two reads of this vCPU; a crossing is a change of L3 domain.
  const std::uint64_t pairs = out.samples == 0 ? 0 : out.samples - 1;
  TL_ASSIGN(out.vcpu_host_cpu_changes, count(v, "vcpu_host_cpu_changes", pairs, where + "."));
  TL_ASSIGN(out.vcpu_host_l3_crossings,
            count(v, "vcpu_host_l3_crossings", out.vcpu_host_cpu_changes, where + "."));
  TL_ASSIGN(out.unknown_cpu_samples, count(v, "unknown_cpu_samples", out.samples, where + "."));
  const json* shares = find(v, "l3_share");
  TL_ASSIGN(out.l3_share, l3_shares(shares ? *shares : json(), where + ".l3_share"));
  return out;
}

}  // namespace

HostTelemetry host_not_sampled(const std::string& why) {
  HostTelemetry t;
  t.not_sampled = why.substr(0, kMaxNotSampledBytes);
  return t;
}

Result<HostTelemetry> parse_host_telemetry(const json& value) {
  if (!value.is_object()) return host_bad("", "an object", value);
  TL_TRY(check_bounded_json(value, "host_telemetry"));
  HostTelemetry t;
  const json* sampled = find(value, "sampled");
  if (sampled == nullptr || !sampled->is_boolean())
    return host_bad("sampled", "true or false", sampled ? *sampled : json());
  t.sampled = sampled->get<bool>();
  if (!t.sampled) {
    const json* why = find(value, "not_sampled");
    if (why == nullptr || !why->is_string() ||
        why->get_ref<const std::string&>().size() > kMaxNotSampledBytes)
      return host_bad("not_sampled", "a reason of at most 1024 bytes", why ? *why : json());
    t.not_sampled = why->get<std::string>();
    return t;
  }
  TL_ASSIGN(const auto interval, count(value, "interval_ms", 3600000, ""));
  if (interval == 0) return host_bad("interval_ms", "an integer 1..3600000", json(0));
  t.interval_ms = static_cast<int>(interval);
  TL_ASSIGN(t.samples, count(value, "samples", kMaxHostSamples, ""));
  const json* cost = find(value, "read_us_median");
  if (cost == nullptr || !cost->is_number() || !std::isfinite(cost->get<double>()) ||
      cost->get<double>() < 0 || cost->get<double>() > 1e7)
    return host_bad("read_us_median", "microseconds 0..1e7", cost ? *cost : json());
  t.read_us_median = cost->get<double>();
  const json* vcpus = find(value, "vcpus");
  if (vcpus == nullptr || !vcpus->is_array() || vcpus->size() > kMaxHostVcpus)
    return host_bad("vcpus", "an array of at most 1024 vCPUs", vcpus ? *vcpus : json());
  std::set<int> seen;
  for (std::size_t i = 0; i < vcpus->size(); ++i) {
    const std::string where = "vcpus[" + std::to_string(i) + "]";
    TL_ASSIGN(auto v, parse_vcpu((*vcpus)[i], where, t.samples));
    if (!seen.insert(v.vcpu).second) return host_bad(where + ".vcpu", "a vCPU named once", v.vcpu);
    t.vcpus.push_back(std::move(v));
  }
  return t;
}

json host_telemetry_to_json(const HostTelemetry& t) {
  if (!t.sampled) return {{"sampled", false}, {"not_sampled", t.not_sampled}};
  json vcpus = json::array();
  for (const auto& v : t.vcpus) {
    json shares = json::object();
    for (const auto& [l3, share] : v.l3_share) shares[std::to_string(l3)] = share;
    vcpus.push_back({{"vcpu", v.vcpu},
                     {"pinned", v.pinned},
                     {"samples", v.samples},
                     {"vcpu_host_cpu_changes", v.vcpu_host_cpu_changes},
                     {"vcpu_host_l3_crossings", v.vcpu_host_l3_crossings},
                     {"unknown_cpu_samples", v.unknown_cpu_samples},
                     {"l3_share", shares}});
  }
  return {{"sampled", true},
          {"interval_ms", t.interval_ms},
          {"samples", t.samples},
          {"read_us_median", t.read_us_median},
          {"vcpus", vcpus}};
}

}  // namespace topolab::protocol
