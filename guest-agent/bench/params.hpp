#pragma once
// Benchmark parameters: a JSON object checked against a list of specs. Everything a request
// names must be known, of the right type and within bounds, so a hostile or mistaken request
// cannot exhaust the guest.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/cpu_list.hpp"
#include "common/result.hpp"

namespace topolab::bench {

enum class ParamType {
  kInt,      // JSON integer in [min, max]
  kNumber,   // JSON number in [min, max]
  kBool,     // JSON boolean
  kString,   // JSON string, one of `choices` when choices are given
  kIntList,  // JSON array of integers in [min, max], 1..max_items items
  kCpuList,  // "0-3,8" list syntax or an array of CPU ids; "" = all allowed CPUs
};

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::kInt;
  nlohmann::json default_value;
  std::int64_t min = 0;
  std::int64_t max = 0;
  std::vector<std::string> choices;
  std::size_t max_items = 64;
  std::string help;
};

const char* to_string(ParamType type);

// Effective parameters: defaults filled in, CPU lists normalised to list syntax.
class Params {
 public:
  Params() = default;
  explicit Params(nlohmann::json effective) : values_(std::move(effective)) {}
  std::int64_t integer(const std::string& name) const;
  double number(const std::string& name) const;
  bool boolean(const std::string& name) const;
  std::string string(const std::string& name) const;
  std::vector<std::int64_t> integers(const std::string& name) const;
  CpuList cpus(const std::string& name) const;  // empty: all allowed
  const nlohmann::json& json() const { return values_; }

 private:
  nlohmann::json values_ = nlohmann::json::object();
};

// A name the request gave (a parameter, a benchmark), as the agent echoes it in an error:
// quoted, JSON-escaped, at most kMaxShownName bytes of it, so a 1 MB or escape-laden name comes
// back short and inert whatever prints it.
inline constexpr std::size_t kMaxShownName = 64;
std::string shown_name(const std::string& name);

// `where` names the benchmark in error messages.
Result<Params> validate_params(const nlohmann::json& given, const std::vector<ParamSpec>& specs,
                               const std::string& where);

// Parses a CLI value: JSON when it is JSON (numbers, lists, true/false), else a plain string.
nlohmann::json parse_cli_value(const std::string& text);

}  // namespace topolab::bench
