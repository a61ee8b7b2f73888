#include "orchestrator/results/report/stored_placement.hpp"

#include <string>

namespace topolab::report {
namespace {

Result<int> stored_index(const nlohmann::json& v, const char* key) {
  if (!v.contains(key) || !v[key].is_number_integer())
    return make_error(ErrorKind::input, std::string(key) + ": expected an integer");
  const auto n = v[key].get<std::int64_t>();
  if (n < 0 || n >= kMaxCpuIds)
    return make_error(ErrorKind::input, std::string(key) + ": " + std::to_string(n) +
                                            " is outside 0.." + std::to_string(kMaxCpuIds - 1));
  return static_cast<int>(n);
}

Result<CpuList> stored_cpus(const nlohmann::json& v, const char* key, CpuIdBudget& budget) {
  if (!v.contains(key) || !v[key].is_string())
    return make_error(ErrorKind::input, std::string(key) + ": expected a CPU list string");
  const auto& text = v[key].get_ref<const std::string&>();
  if (text.size() > kMaxCpuListText)
    return make_error(ErrorKind::input, std::string(key) + ": too long");
  TL_ASSIGN_CTX(auto cpus, CpuList::parse(text, &budget), key);
  return cpus;
}

Result<StoredVcpu> stored_vcpu(const nlohmann::json& v, CpuIdBudget& budget) {
  if (!v.is_object()) return make_error(ErrorKind::input, "expected an object");
  StoredVcpu out;
  TL_ASSIGN(out.vcpu, stored_index(v, "vcpu"));
  TL_ASSIGN(out.host_cpus, stored_cpus(v, "host_cpus", budget));
  TL_ASSIGN(out.group, stored_index(v, "group"));
  TL_ASSIGN(out.core, stored_index(v, "core"));
  TL_ASSIGN(out.thread, stored_index(v, "thread"));
  return out;
}

}  // namespace

Result<StoredPlacement> placement_from_stored(const nlohmann::json& stored) {
  if (!stored.is_object()) return make_error(ErrorKind::input, "expected an object");
  if (!stored.contains("vcpus") || !stored["vcpus"].is_array())
    return make_error(ErrorKind::input, "vcpus: expected an array");
  const auto& vcpus = stored["vcpus"];
  if (vcpus.size() > static_cast<std::size_t>(kMaxCpuIds))
    return make_error(ErrorKind::input, "vcpus: " + std::to_string(vcpus.size()) +
                                            " entries, at most " + std::to_string(kMaxCpuIds));
  StoredPlacement p;
  CpuIdBudget budget;  // one for the whole placement: 8192 float sets of 0-8191 stop here
  for (std::size_t i = 0; i < vcpus.size(); ++i) {
    TL_ASSIGN_CTX(auto v, stored_vcpu(vcpus[i], budget), "vcpus[" + std::to_string(i) + "]");
    p.vcpus.push_back(std::move(v));
  }
  if (!stored.contains("pinned") || !stored["pinned"].is_boolean())
    return make_error(ErrorKind::input, "pinned: expected true or false");
  p.pinned = stored["pinned"].get<bool>();
  TL_ASSIGN(p.emulator_cpus, stored_cpus(stored, "emulator_cpus", budget));
  return p;
}

}  // namespace topolab::report
