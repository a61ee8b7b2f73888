// TOML -> Layout. Every key is found in the layout field table (layout_fields.hpp), its TOML
// value type-checked and handed typed to the row's setter, so the file and the CLI/experiment
// overrides share one set of rules.
#include <algorithm>
#include <map>

#include "orchestrator/model/layout/layout_fields.hpp"
#include "orchestrator/model/layout/toml_parse.hpp"

namespace topolab {
namespace {

// The sections and their fields, in table order, from layout_fields().
std::vector<std::string_view> sections() {
  std::vector<std::string_view> out;
  for (const auto& f : layout_fields())
    if (!f.section().empty() && std::find(out.begin(), out.end(), f.section()) == out.end())
      out.push_back(f.section());
  return out;
}

const LayoutField* field_in(std::string_view section, std::string_view name) {
  for (const auto& f : layout_fields())
    if (f.section() == section && f.name() == name) return &f;
  return nullptr;
}

std::string names_in(std::string_view section) {
  std::string known;
  for (const auto& f : layout_fields())
    if (f.section() == section) known += (known.empty() ? "" : ", ") + std::string(f.name());
  return known;
}

// "name, description, [guest], ..., [memory] or [[hostdev]]"
std::string top_level_keys() {
  std::string out;
  for (const auto& f : layout_fields())
    if (f.section().empty()) out += std::string(f.key) + ", ";
  for (auto s : sections()) out += "[" + std::string(s) + "], ";
  return out.substr(0, out.size() - 2) + " or [[hostdev]]";
}

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    default:
      return "nothing";
  }
}

class Parser {
 public:
  explicit Parser(std::string origin) : origin_(std::move(origin)) {}

  Error at(const toml::source_region& where, const std::string& message) const {
    return make_error(ErrorKind::input,
                      origin_ + ":" + std::to_string(where.begin.line) + ": " + message);
  }
  Error at_line(std::uint32_t line, const std::string& message) const {
    return make_error(ErrorKind::input, origin_ + ":" + std::to_string(line) + ": " + message);
  }

  // The node as the field's typed value, after checking its TOML type (no text round trip).
  Result<FieldValue> typed_value(const toml::node& n, const LayoutField& f) const {
    const std::string key(f.key);
    auto wrong = [&] {
      return at(n.source(),
                key + ": expected " + field_type_name(f.type) + ", got " + type_name(n));
    };
    switch (f.type) {
      case FieldType::kString:
        if (!n.is_string()) return wrong();
        return FieldValue{*n.value<std::string>()};
      case FieldType::kInt:
        if (!n.is_integer()) return wrong();
        return FieldValue{*n.value<std::int64_t>()};
      case FieldType::kBool:
        if (!n.is_boolean()) return wrong();
        return FieldValue{*n.value<bool>()};
      case FieldType::kStringList: {
        if (!n.is_array()) return wrong();
        std::vector<std::string> items;
        for (const auto& item : *n.as_array()) {
          if (!item.is_string()) {
            return at(item.source(), key + "[" + std::to_string(items.size()) +
                                         "]: expected a string, got " + type_name(item));
          }
          items.push_back(*item.value<std::string>());
        }
        return FieldValue{std::move(items)};
      }
      case FieldType::kIntList: {
        if (!n.is_array()) return wrong();
        TL_ASSIGN(auto ints, int_array(*n.as_array(), key));
        return FieldValue{std::move(ints)};
      }
      case FieldType::kIntMatrix: {
        if (!n.is_array()) return wrong();
        IntMatrix rows;
        for (const auto& row : *n.as_array()) {
          const std::string at_row = key + "[" + std::to_string(rows.size()) + "]";
          if (!row.is_array())
            return at(row.source(),
                      at_row + ": expected an array of integers, got " + type_name(row));
          TL_ASSIGN(auto ints, int_array(*row.as_array(), at_row));
          rows.push_back(std::move(ints));
        }
        return FieldValue{std::move(rows)};
      }
    }
    return wrong();
  }

  Result<IntList> int_array(const toml::array& a, const std::string& key) const {
    IntList out;
    for (const auto& item : a) {
      if (!item.is_integer())
        return at(item.source(), key + "[" + std::to_string(out.size()) +
                                     "]: expected an integer, got " + type_name(item));
      out.push_back(*item.value<std::int64_t>());
    }
    return out;
  }

  Result<void> set(const toml::node& v, const LayoutField& f, Layout& layout) const {
    TL_ASSIGN(auto value, typed_value(v, f));
    auto set = f.set(layout, value, std::string(f.key));
    if (!set) return at(v.source(), set.error().message);  // file:line for a refused value
    return {};
  }

  Result<void> section(const std::string& name, const toml::node& node, Layout& layout) {
    if (!node.is_table()) {
      return at(node.source(), name + ": expected a table [" + name + "], got " + type_name(node));
    }
    for (const auto& [k, v] : *node.as_table()) {
      std::string key(k.str());
      const LayoutField* f = field_in(name, key);
      if (!f) {
        return at(k.source(), "unknown key '" + key + "' in [" + name + "] (expected one of " +
                                  names_in(name) + ")");
      }
      TL_TRY(set(v, *f, layout));
    }
    return {};
  }

  Result<void> hostdevs(const toml::node& node, Layout& layout) {
    if (!node.is_array_of_tables()) {
      return at(node.source(), "hostdev: expected [[hostdev]] tables, got " + type_name(node));
    }
    for (const auto& item : *node.as_array()) {
      const auto& t = *item.as_table();
      HostDevice dev;
      bool have_address = false;
      for (const auto& [k, v] : t) {
        std::string key(k.str());
        if (key == "address") {
          if (!v.is_string()) {
            return at(v.source(), "hostdev.address: expected a string, got " + type_name(v));
          }
          auto a = parse_pci_address(*v.value<std::string>());
          if (!a) return at(v.source(), "hostdev.address: " + a.error().message);
          dev.pci_address = *a;
          have_address = true;
        } else if (key == "managed") {
          if (!v.is_boolean()) {
            return at(v.source(), "hostdev.managed: expected true or false, got " + type_name(v));
          }
          dev.managed = *v.value<bool>();
        } else {
          return at(k.source(),
                    "unknown key '" + key + "' in [[hostdev]] (expected one of address, managed)");
        }
      }
      if (!have_address) {
        return at(t.source(),
                  "[[hostdev]]: missing key 'address' (expected a PCI address like "
                  "\"0000:01:00.0\")");
      }
      layout.hostdevs.push_back(dev);
    }
    return {};
  }

  Result<Layout> parse(std::string_view text) {
    TL_ASSIGN(const toml::table& root, parse_toml(text, origin_));
    Layout layout;
    layout.name.clear();
    std::map<std::string, std::uint32_t> section_lines;
    for (const auto& [k, v] : root) {
      std::string key(k.str());
      const auto all = sections();
      if (const LayoutField* f = field_in("", key)) {
        TL_TRY(set(v, *f, layout));
      } else if (key == "hostdev") {
        TL_TRY(hostdevs(v, layout));
      } else if (std::find(all.begin(), all.end(), key) != all.end()) {
        section_lines[key] = v.source().begin.line;
        TL_TRY(section(key, v, layout));
      } else {
        return at(k.source(), "unknown key '" + key + "' (expected " + top_level_keys() + ")");
      }
    }
    auto guest = root["guest"];
    if (!guest) {
      return at_line(1,
                     "missing section [guest] (expected l3_groups, cores_per_group, "
                     "threads_per_core, memory_mib)");
    }
    for (const char* required : {"l3_groups", "cores_per_group"}) {
      if (!guest[required]) {
        return at_line(section_lines["guest"], std::string("[guest]: missing key '") + required +
                                                   "' (expected a positive integer)");
      }
    }
    if (layout.policy == PlacementPolicy::kExplicit && !root["placement"]["explicit"]) {
      return at_line(section_lines["placement"],
                     "[placement]: policy \"explicit\" needs explicit = [\"<cpus of vCPU 0>\", "
                     "...] (one list per vCPU)");
    }
    auto valid = validate_layout(layout);
    if (!valid) {
      // Point at the section the message names, else the top of the file.
      std::uint32_t line = 1;
      for (const auto& [name, l] : section_lines) {
        if (valid.error().message.rfind(name, 0) == 0) line = l;
      }
      return at_line(line, valid.error().message);
    }
    return layout;
  }

 private:
  std::string origin_;
};

}  // namespace

Result<Layout> parse_layout(std::string_view toml_text, const std::string& origin) {
  return Parser(origin).parse(toml_text);
}

}  // namespace topolab
