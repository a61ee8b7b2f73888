#include "guest-agent/bench/params.hpp"

#include <algorithm>

#include "common/json_text.hpp"

namespace topolab::bench {
namespace {

constexpr int kMaxCpuId = 8191;  // the kernel's NR_CPUS ceiling on x86-64

// A value as JSON for an error message, cut at 120 bytes: the message must stay far below the
// protocol's line cap whatever the request held.
std::string excerpt(const nlohmann::json& v) {
  std::string text = json_line(v);
  return text.size() > 120 ? text.substr(0, 120) + "..." : text;
}

}  // namespace

std::string shown_name(const std::string& name) {
  const bool cut = name.size() > kMaxShownName;
  // JSON string escaping without its double quotes: control bytes \u-escaped, bytes that are
  // not UTF-8 replaced (a cut inside a character is replaced the same way).
  const std::string json = json_line(nlohmann::json(cut ? name.substr(0, kMaxShownName) : name));
  return "'" + json.substr(1, json.size() - 2) + "'" +
         (cut ? " (cut, " + std::to_string(name.size()) + " bytes)" : "");
}

namespace {

std::string bounds_text(const ParamSpec& s) {
  return "[" + std::to_string(s.min) + ", " + std::to_string(s.max) + "]";
}

Result<nlohmann::json> check_int(const nlohmann::json& v, const ParamSpec& s,
                                 const std::string& where) {
  if (!v.is_number_integer()) {
    return make_error(ErrorKind::input,
                      where + ": parameter '" + s.name + "' must be an integer, got " + excerpt(v));
  }
  std::int64_t x = v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX
                       ? INT64_MAX
                       : v.get<std::int64_t>();
  if (x < s.min || x > s.max) {
    return make_error(ErrorKind::input, where + ": parameter '" + s.name + "' = " + excerpt(v) +
                                            " is outside " + bounds_text(s));
  }
  return nlohmann::json(x);
}

Result<nlohmann::json> check_cpu_list(const nlohmann::json& v, const ParamSpec& s,
                                      const std::string& where) {
  CpuList list;
  if (v.is_string()) {
    TL_ASSIGN_CTX(list, CpuList::parse(v.get<std::string>()),
                  where + ": parameter '" + s.name + "'");
  } else if (v.is_number_integer()) {
    if (v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > kMaxCpuId) {
      return make_error(ErrorKind::input, where + ": parameter '" + s.name + "': CPU id " +
                                              excerpt(v) + " is outside [0, " +
                                              std::to_string(kMaxCpuId) + "]");
    }
    list = CpuList{v.get<int>()};
  } else if (v.is_array()) {
    std::vector<int> ids;
    for (const auto& e : v) {
      if (!e.is_number_integer() || e.get<std::int64_t>() < 0 ||
          e.get<std::int64_t>() > kMaxCpuId) {
        return make_error(ErrorKind::input,
                          where + ": parameter '" + s.name + "': bad CPU id " + excerpt(e));
      }
      ids.push_back(e.get<int>());
    }
    list = CpuList::from_vector(std::move(ids));
  } else {
    return make_error(ErrorKind::input,
                      where + ": parameter '" + s.name +
                          "' must be a CPU list string or an array of CPU ids, got " + excerpt(v));
  }
  if (!list.empty() && list.last() > kMaxCpuId) {
    return make_error(ErrorKind::input, where + ": parameter '" + s.name + "': CPU id " +
                                            std::to_string(list.last()) + " is outside [0, " +
                                            std::to_string(kMaxCpuId) + "]");
  }
  return nlohmann::json(list.to_string());
}

Result<nlohmann::json> check_value(const nlohmann::json& v, const ParamSpec& s,
                                   const std::string& where) {
  switch (s.type) {
    case ParamType::kInt:
      return check_int(v, s, where);
    case ParamType::kNumber: {
      if (!v.is_number()) {
        return make_error(ErrorKind::input, where + ": parameter '" + s.name +
                                                "' must be a number, got " + excerpt(v));
      }
      double x = v.get<double>();
      if (!(x >= static_cast<double>(s.min) && x <= static_cast<double>(s.max))) {
        return make_error(ErrorKind::input, where + ": parameter '" + s.name + "' = " + excerpt(v) +
                                                " is outside " + bounds_text(s));
      }
      return nlohmann::json(x);
    }
    case ParamType::kBool:
      if (!v.is_boolean()) {
        return make_error(ErrorKind::input, where + ": parameter '" + s.name +
                                                "' must be true or false, got " + excerpt(v));
      }
      return v;
    case ParamType::kString: {
      if (!v.is_string()) {
        return make_error(ErrorKind::input, where + ": parameter '" + s.name +
                                                "' must be a string, got " + excerpt(v));
      }
      const auto& text = v.get_ref<const std::string&>();
      if (text.size() > 4096) {
        return make_error(ErrorKind::input,
                          where + ": parameter '" + s.name + "' is longer than 4096 bytes");
      }
      if (!s.choices.empty() &&
          std::find(s.choices.begin(), s.choices.end(), text) == s.choices.end()) {
        std::string all;
        for (const auto& c : s.choices) all += (all.empty() ? "'" : ", '") + c + "'";
        return make_error(ErrorKind::input, where + ": parameter '" + s.name + "' = '" +
                                                text.substr(0, 256) + "' is not one of " + all);
      }
      return v;
    }
    case ParamType::kIntList: {
      nlohmann::json list = v.is_array() ? v : nlohmann::json::array({v});
      if (list.empty() || list.size() > s.max_items) {
        return make_error(ErrorKind::input, where + ": parameter '" + s.name + "' needs 1.." +
                                                std::to_string(s.max_items) + " items, got " +
                                                std::to_string(list.size()));
      }
      nlohmann::json out = nlohmann::json::array();
      for (const auto& e : list) {
        TL_ASSIGN(auto item, check_int(e, s, where));
        out.push_back(item);
      }
      return out;
    }
    case ParamType::kCpuList:
      return check_cpu_list(v, s, where);
  }
  return make_error(ErrorKind::internal,
                    where + ": parameter '" + s.name + "' has an unknown type");
}

}  // namespace

const char* to_string(ParamType type) {
  switch (type) {
    case ParamType::kInt:
      return "integer";
    case ParamType::kNumber:
      return "number";
    case ParamType::kBool:
      return "bool";
    case ParamType::kString:
      return "string";
    case ParamType::kIntList:
      return "integer list";
    case ParamType::kCpuList:
      return "CPU list";
  }
  return "?";
}

Result<Params> validate_params(const nlohmann::json& given, const std::vector<ParamSpec>& specs,
                               const std::string& where) {
  if (!given.is_null() && !given.is_object()) {
    return make_error(ErrorKind::input,
                      where + ": parameters must be a JSON object, got " + excerpt(given));
  }
  if (given.is_object()) {
    for (const auto& item : given.items()) {
      // A named copy, not a structured binding: clang (the fuzz build) cannot capture those.
      const std::string key = item.key();
      bool known = std::any_of(specs.begin(), specs.end(),
                               [&](const ParamSpec& s) { return s.name == key; });
      if (known) continue;
      std::string names;
      for (const auto& s : specs) names += (names.empty() ? "" : ", ") + s.name;
      return make_error(ErrorKind::input, where + ": unknown parameter " + shown_name(key) +
                                              " (known: " + names + ")");
    }
  }
  nlohmann::json effective = nlohmann::json::object();
  for (const auto& s : specs) {
    bool present = given.is_object() && given.contains(s.name);
    const nlohmann::json& v = present ? given.at(s.name) : s.default_value;
    TL_ASSIGN(effective[s.name], check_value(v, s, where));
  }
  return Params(std::move(effective));
}

std::int64_t Params::integer(const std::string& name) const {
  return values_.at(name).get<std::int64_t>();
}
double Params::number(const std::string& name) const { return values_.at(name).get<double>(); }
bool Params::boolean(const std::string& name) const { return values_.at(name).get<bool>(); }
std::string Params::string(const std::string& name) const {
  return values_.at(name).get<std::string>();
}
std::vector<std::int64_t> Params::integers(const std::string& name) const {
  return values_.at(name).get<std::vector<std::int64_t>>();
}
CpuList Params::cpus(const std::string& name) const {
  auto parsed = CpuList::parse(values_.at(name).get<std::string>());
  return parsed ? *parsed : CpuList{};  // validated already
}

nlohmann::json parse_cli_value(const std::string& text) {
  auto parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || parsed.is_object() || parsed.is_null()) {
    return nlohmann::json(text);
  }
  // "0-3" is not JSON; "7" is (a single CPU or a count): both work for CPU lists.
  return parsed;
}

}  // namespace topolab::bench
