// Layout field values from text (the command line, `--set`) and from typed experiment levels:
// the value half of the field table (layout_fields.cpp holds the rows and their setters).
#include <charconv>
#include <optional>

#include "common/cpu_list.hpp"
#include "orchestrator/model/layout/layout_fields.hpp"
#include "orchestrator/model/layout/layout_text.hpp"

namespace topolab {
namespace {

using layout_text::lower;
using layout_text::trim;
using nlohmann::json;

Result<std::int64_t> int_from_text(std::string_view text, const std::string& key) {
  std::int64_t v = 0;
  auto t = trim(text);
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size())
    return make_error(ErrorKind::input,
                      key + ": expected an integer, got '" + std::string(text) + "'");
  return v;
}

Result<bool> bool_from_text(std::string_view text, const std::string& key) {
  auto t = lower(trim(text));
  if (t == "true" || t == "yes" || t == "1" || t == "on") return true;
  if (t == "false" || t == "no" || t == "0" || t == "off") return false;
  return make_error(ErrorKind::input,
                    key + ": expected true or false, got '" + std::string(text) + "'");
}

// Splits at any of `separators`, dropping empty items; stops one past the largest list any
// field accepts so that the setter names the limit without the text being split entirely.
std::vector<std::string> split_items(std::string_view text, std::string_view separators) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (out.size() > static_cast<std::size_t>(kMaxCpuIds)) break;
    if (separators.find(c) == std::string_view::npos) {
      cur += c;
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

Result<IntList> ints_from_text(std::string_view text, const std::string& key) {
  IntList out;
  for (const auto& item : split_items(text, ", \t")) {
    TL_ASSIGN(auto v, int_from_text(item, key));
    out.push_back(v);
  }
  return out;
}

Result<IntMatrix> matrix_from_text(std::string_view text, const std::string& key) {
  IntMatrix out;
  for (const auto& row : split_items(text, ";/")) {
    TL_ASSIGN(auto ints, ints_from_text(row, key));
    out.push_back(std::move(ints));
  }
  return out;
}

std::optional<IntList> ints_from_json(const json& a) {
  if (!a.is_array()) return std::nullopt;
  IntList out;
  for (const auto& v : a) {
    if (!v.is_number_integer()) return std::nullopt;
    out.push_back(v.get<std::int64_t>());
  }
  return out;
}

std::optional<IntMatrix> matrix_from_json(const json& a) {
  if (!a.is_array()) return std::nullopt;
  IntMatrix out;
  for (const auto& row : a) {
    auto ints = ints_from_json(row);
    if (!ints) return std::nullopt;
    out.push_back(std::move(*ints));
  }
  return out;
}

}  // namespace

const char* field_type_name(FieldType t) {
  switch (t) {
    case FieldType::kString:
      return "a string";
    case FieldType::kInt:
      return "an integer";
    case FieldType::kBool:
      return "true or false";
    case FieldType::kStringList:
      return "an array of strings";
    case FieldType::kIntList:
      return "an array of integers";
    case FieldType::kIntMatrix:
      return "an array of arrays of integers";
  }
  return "?";
}

Result<FieldValue> field_value_from_text(const LayoutField& f, std::string_view text) {
  const std::string key(f.key);
  switch (f.type) {
    case FieldType::kString:
      return FieldValue{std::string(text)};
    case FieldType::kInt: {
      TL_ASSIGN(auto v, int_from_text(text, key));
      return FieldValue{v};
    }
    case FieldType::kBool: {
      TL_ASSIGN(auto v, bool_from_text(text, key));
      return FieldValue{v};
    }
    case FieldType::kStringList:
      // CPU lists contain ',' themselves, so one list per vCPU is separated by ';' or '/'.
      return FieldValue{split_items(text, key == "placement.explicit" ? ";/" : ", \t")};
    case FieldType::kIntList: {
      TL_ASSIGN(auto v, ints_from_text(text, key));
      return FieldValue{std::move(v)};
    }
    case FieldType::kIntMatrix: {
      TL_ASSIGN(auto v, matrix_from_text(text, key));
      return FieldValue{std::move(v)};
    }
  }
  return make_error(ErrorKind::input, key + ": unknown field type");
}

Result<FieldValue> field_value_from_json(const LayoutField& f, const json& level) {
  if (f.type == FieldType::kInt && level.is_number_integer())
    return FieldValue{level.get<std::int64_t>()};
  if (f.type == FieldType::kBool && level.is_boolean()) return FieldValue{level.get<bool>()};
  if (f.type == FieldType::kString && level.is_string())
    return FieldValue{level.get<std::string>()};
  if (f.type == FieldType::kIntList)
    if (auto v = ints_from_json(level)) return FieldValue{std::move(*v)};
  if (f.type == FieldType::kIntMatrix)
    if (auto v = matrix_from_json(level)) return FieldValue{std::move(*v)};
  return field_value_from_text(f, level.is_string() ? level.get<std::string>() : level.dump());
}

}  // namespace topolab
