#pragma once
// The one table of layout fields. Each row says a field's file key, its TOML type, its short
// aliases, its plan/xml/apply option (if any), how a typed value is checked and stored, and how
// it is written to the canonical JSON. The TOML parser, `--set`, the CLI overrides, experiment
// factors and layout_to_json all read this table, so a field is described once.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/model/layout/layout.hpp"

namespace topolab {

// The value types a layout file uses. A TOML value of the field's type is stored as is; text
// (the command line, an experiment level of another type) is parsed into it first.
enum class FieldType { kString, kInt, kBool, kStringList, kIntList, kIntMatrix };
using IntList = std::vector<std::int64_t>;
using IntMatrix = std::vector<IntList>;
using FieldValue =
    std::variant<std::string, std::int64_t, bool, std::vector<std::string>, IntList, IntMatrix>;

struct LayoutField {
  std::string_view key;                   // file key: "guest.l3_groups"; no dot: top level
  FieldType type;                         // its TOML type
  std::vector<std::string_view> aliases;  // short names for --set and factors ("groups")
  std::string_view cli_flag;              // plan/xml/apply option ("--groups"); "" none
  std::string_view cli_help;
  // Checks `value` (of `type`) and stores it; errors start with `key` (the row's key).
  Result<void> (*set)(Layout&, const FieldValue& value, const std::string& key);
  // The field in layout_to_json; nullptr for fields that do not shape the guest (name, ...).
  // A discarded value (kUnsetField) leaves the key out: fields added later are absent while
  // unset, so results stored before them still match their layouts on resume.
  nlohmann::json (*to_json)(const Layout&);

  std::string_view section() const;  // "guest"; "" for a top-level key
  std::string_view name() const;     // "l3_groups"
};

inline const nlohmann::json kUnsetField = nlohmann::json(nlohmann::json::value_t::discarded);

// Every field, in the order help texts and error messages list them.
const std::vector<LayoutField>& layout_fields();
// The field `key` names: a file key or an alias, any case, '-' or '_' ("L3-Groups"); nullptr
// when it names none.
const LayoutField* find_layout_field(std::string_view key);
// Text as the command line writes it: integers, true/false/yes/no/on/off/1/0, lists separated
// by ',' or blanks (CPU features, integer lists) or by ';' or '/' (placement.explicit, one list
// per vCPU; the rows of an integer matrix: "10,21;21,10").
Result<FieldValue> field_value_from_text(const LayoutField&, std::string_view text);
// An experiment level: used as is when it has the field's type, else read as its text.
Result<FieldValue> field_value_from_json(const LayoutField&, const nlohmann::json& level);
// "an integer", "true or false", ... (for "expected ..." messages).
const char* field_type_name(FieldType);

// "KEY: expected an integer from 1 to MAX, got V" unless 1 <= v <= max.
Result<void> check_count(std::int64_t v, std::string_view key, int max);

// Sets a field from a typed experiment level (see field_value_from_json).
Result<void> set_layout_level(Layout&, std::string_view key, const nlohmann::json& level);

}  // namespace topolab
