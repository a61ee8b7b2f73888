// TOML -> Layout. Every key is type-checked against a small schema and then stored through
// set_layout_field, so the file and the CLI/experiment overrides share one set of rules.
#include <algorithm>
#include <map>
#include <sstream>

#include "orchestrator/layout/layout.hpp"
#include "orchestrator/layout/toml_parse.hpp"

namespace topolab {
namespace {

enum class Kind { kString, kInt, kBool, kStringArray };

struct Field {
  const char* name;
  Kind kind;
};

const std::map<std::string, std::vector<Field>>& schema() {
  static const std::map<std::string, std::vector<Field>> s = {
      {"guest",
       {{"l3_groups", Kind::kInt},
        {"cores_per_group", Kind::kInt},
        {"threads_per_core", Kind::kInt},
        {"memory_mib", Kind::kInt},
        {"iothreads", Kind::kInt},
        {"hyperv", Kind::kBool},
        {"kernel_cmdline_extra", Kind::kString},
        {"os", Kind::kString}}},
      {"expose", {{"as", Kind::kString}}},
      {"placement",
       {{"policy", Kind::kString},
        {"host_cpus", Kind::kString},
        {"housekeeping_cpus", Kind::kString},
        {"explicit", Kind::kStringArray}}},
      {"cpu",
       {{"model", Kind::kString},
        {"features_disable", Kind::kStringArray},
        {"features_require", Kind::kStringArray}}},
      {"memory", {{"hugepages", Kind::kString}, {"locked", Kind::kBool}}},
  };
  return s;
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kString:
      return "a string";
    case Kind::kInt:
      return "an integer";
    case Kind::kBool:
      return "true or false";
    case Kind::kStringArray:
      return "an array of strings";
  }
  return "?";
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
    return make_error(origin_ + ":" + std::to_string(where.begin.line) + ": " + message);
  }
  Error at_line(std::uint32_t line, const std::string& message) const {
    return make_error(origin_ + ":" + std::to_string(line) + ": " + message);
  }

  // Converts a node to the text set_layout_field takes, after checking its TOML type.
  Result<std::string> value_text(const toml::node& n, Kind kind, const std::string& key) const {
    auto wrong = [&] {
      return at(n.source(), key + ": expected " + kind_name(kind) + ", got " + type_name(n));
    };
    switch (kind) {
      case Kind::kString:
        if (!n.is_string()) return wrong();
        return *n.value<std::string>();
      case Kind::kInt:
        if (!n.is_integer()) return wrong();
        return std::to_string(*n.value<std::int64_t>());
      case Kind::kBool:
        if (!n.is_boolean()) return wrong();
        return std::string(*n.value<bool>() ? "true" : "false");
      case Kind::kStringArray: {
        if (!n.is_array()) return wrong();
        std::string joined;
        std::size_t i = 0;
        for (const auto& item : *n.as_array()) {
          if (!item.is_string()) {
            return at(item.source(), key + "[" + std::to_string(i) + "]: expected a string, got " +
                                         type_name(item));
          }
          auto s = *item.value<std::string>();
          if (key != "placement.explicit" && s.find_first_of(", \t") != std::string::npos) {
            return at(item.source(), key + "[" + std::to_string(i) +
                                         "]: expected CPU feature names (letters, digits, - _ "
                                         ".), got '" +
                                         s + "'");
          }
          if (s.find_first_of(";/") != std::string::npos) {
            return at(item.source(), key + "[" + std::to_string(i) +
                                         "]: expected a CPU list or name, got '" + s + "'");
          }
          if (i++) joined += key == "placement.explicit" ? ";" : ",";
          joined += s;
        }
        return joined;
      }
    }
    return wrong();
  }

  Result<void> section(const std::string& name, const toml::node& node, Layout& layout) {
    if (!node.is_table()) {
      return at(node.source(), name + ": expected a table [" + name + "], got " + type_name(node));
    }
    const auto& fields = schema().at(name);
    for (const auto& [k, v] : *node.as_table()) {
      std::string key(k.str());
      auto f = std::find_if(fields.begin(), fields.end(),
                            [&](const Field& fd) { return key == fd.name; });
      if (f == fields.end()) {
        std::string known;
        for (auto& fd : fields) known += (known.empty() ? "" : ", ") + std::string(fd.name);
        return at(k.source(),
                  "unknown key '" + key + "' in [" + name + "] (expected one of " + known + ")");
      }
      const std::string full = name + "." + key;
      auto text = value_text(v, f->kind, full);
      if (!text) return text.error();
      auto set = set_layout_field(layout, full, *text);
      if (!set) return at(v.source(), set.error().message);
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
    auto parsed = parse_toml(text, origin_);
    if (!parsed) return parsed.error();
    const toml::table& root = *parsed;
    Layout layout;
    layout.name.clear();
    std::map<std::string, std::uint32_t> section_lines;
    for (const auto& [k, v] : root) {
      std::string key(k.str());
      if (key == "name" || key == "description") {
        auto text_value = value_text(v, Kind::kString, key);
        if (!text_value) return text_value.error();
        if (auto set = set_layout_field(layout, key, *text_value); !set)
          return at(v.source(), set.error().message);  // file:line for a refused name
      } else if (key == "hostdev") {
        TL_TRY(hostdevs(v, layout));
      } else if (schema().count(key)) {
        section_lines[key] = v.source().begin.line;
        TL_TRY(section(key, v, layout));
      } else {
        return at(k.source(), "unknown key '" + key +
                                  "' (expected name, description, [guest], [expose], "
                                  "[placement], [cpu], [memory] or [[hostdev]])");
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
