// [factors], [baseline] and [[exclude]] of an experiment file.
#include <cmath>
#include <set>
#include <string_view>

#include "orchestrator/model/layout/layout_fields.hpp"
#include "orchestrator/run/experiment/experiment_detail.hpp"

namespace topolab::experiment::detail {
namespace {

const char* level_kind(const nlohmann::json& j) {
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number_float()) return "a float";
  return "an integer";
}

// A cmdline.* factor becomes "option=value" on the guest's kernel command line, which the kernel
// splits at blanks: a blank, quote or control byte would make one level several parameters (or
// a quoted run of them), so only what one parameter can hold is accepted.
bool kernel_param_text(std::string_view text, bool value) {
  if (text.empty() || text.size() > 256) return false;
  for (unsigned char ch : text) {
    const bool word = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.';
    const bool value_char = ch > 0x20 && ch < 0x7f && ch != '"' && ch != '\\';
    if (!(value ? value_char : word)) return false;
  }
  return true;
}

Result<void> check_cmdline_level(const Ctx& c, const toml::node& n, const std::string& key,
                                 const nlohmann::json& level) {
  if (level.is_boolean() || level.is_number()) return {};
  if (kernel_param_text(level_text(level), true)) return {};
  return c.at(n, "factor '" + key + "' level '" + level_text(level) +
                     "': expected one kernel parameter value (1..256 printable ASCII bytes, no "
                     "blank, quote or backslash)");
}

Result<FactorKind> classify_factor(const Ctx& c, const toml::node& n, const std::string& key) {
  if (key == "replicate") return FactorKind::kReplicate;
  if (key.rfind("cmdline.", 0) == 0) {
    if (key.size() == 8) return c.at(n, "factor '" + key + "': expected cmdline.<option>");
    if (!kernel_param_text(std::string_view(key).substr(8), false))
      return c.at(n, "factor '" + key +
                         "': expected cmdline.<option>, the option of letters, digits, '_', '-' "
                         "and '.' (one kernel parameter, at most 256 bytes)");
    return FactorKind::kCmdline;
  }
  if (key.rfind("os.", 0) == 0) {
    if (key.size() == 3) return c.at(n, "factor '" + key + "': expected os.<setting>");
    return FactorKind::kOs;  // the name and levels are checked against the guest's OS later
  }
  if (key.rfind("param.", 0) == 0) {
    auto dot = key.find('.', 6);
    if (key.size() == 6 || dot == 6 || (dot != std::string::npos && dot + 1 == key.size()))
      return c.at(n, "factor '" + key + "': expected param.<benchmark>.<name> or param.<name>");
    return FactorKind::kParam;
  }
  if (!layout_field_key(key)) {
    std::string known;
    for (const auto& k : layout_field_keys()) known += (known.empty() ? "" : ", ") + k;
    return c.at(n, "factor '" + key + "': not a layout field (expected one of " + known +
                       ", cmdline.<option>, param.<name>, replicate or os.<setting>)");
  }
  return FactorKind::kLayout;
}

// Factor keys are a few segments (param.<bench>.<name>); the TOML depth gate bounds the input,
// this bounds topolab's own walk independently of it.
constexpr int kMaxFactorKeyDepth = 8;

Result<void> check_unique_key(const Ctx& c, const toml::node& n, const std::string& what,
                              const std::string& written, const std::string& canonical,
                              KeyLines& seen) {
  auto [it, added] = seen.try_emplace(canonical, written, line_of(n));
  if (added) return {};
  // toml++ iterates keys sorted, not in file order: name the later line as the repetition.
  std::pair<std::string, int> first = it->second, second{written, line_of(n)};
  if (second.second < first.second) std::swap(first, second);
  return c.at_line(second.second, what + " '" + second.first + "' repeats '" + first.first +
                                      "' (line " + std::to_string(first.second) + "): both are " +
                                      canonical + "; write it once");
}

// A layout level is checked by its field's setter now, with its line: a typo in the last level
// should not wait until the run plans its configurations.
Result<void> check_layout_level(const Ctx& c, const toml::node& n, const std::string& written,
                                const std::string& canonical, const nlohmann::json& level) {
  Layout scratch;
  auto set = set_layout_level(scratch, canonical, level);
  if (!set)
    return c.at(
        n, "factor '" + written + "' level '" + level_text(level) + "': " + set.error().message);
  return {};
}

// A level in [baseline] or [[exclude]] must name a factor and one of its levels, of the
// levels' type; the factor's own level is stored so that later matching is exact.
Result<const nlohmann::json*> find_level(const Ctx& c, const toml::node& v, const Factor& f,
                                         const std::string& what, const std::string& key) {
  auto j = scalar_to_json(c, v, what + " '" + key + "'");
  if (!j) return j.error();
  std::string levels;
  for (const auto& l : f.levels) {
    if (same_level(l, *j)) return &l;
    levels += (levels.empty() ? "" : ", ") + level_text(l);
  }
  // "1" for the integer 1 looks right and matched nothing: say that the type differs.
  std::string type_note;
  for (const auto& l : f.levels)
    if (level_text(l) == level_text(*j))
      type_note = " (" + std::string(level_kind(*j)) + "; that level is " + level_kind(l) + ")";
  return c.at(v, what + " '" + key + "' = '" + level_text(*j) + "'" + type_note +
                     ": expected one of " + levels);
}

Result<void> factor_levels_table(const Ctx& c, const toml::table& t, const Experiment& e,
                                 const std::string& what, const std::string& prefix, int depth,
                                 KeyLines& seen, std::map<std::string, nlohmann::json>& out) {
  for (const auto& [k, v] : t) {
    std::string key = prefix + std::string(k.str());
    if (auto sub = v.as_table()) {
      if (depth >= kMaxFactorKeyDepth)
        return c.at(v, what + ": '" + key + "...' is not a factor of this experiment");
      TL_TRY(factor_levels_table(c, *sub, e, what, key + ".", depth + 1, seen, out));
      continue;
    }
    const std::string canonical = canonical_factor_key(key);
    const Factor* f = e.factor(canonical);
    if (!f) return c.at(v, what + ": '" + key + "' is not a factor of this experiment");
    TL_TRY(check_unique_key(c, v, what, key, canonical, seen));
    auto level = find_level(c, v, *f, what, key);
    if (!level) return level.error();
    out[f->key] = **level;  // the cells name the factor as [factors] wrote it
  }
  return {};
}

}  // namespace

Result<nlohmann::json> scalar_to_json(const Ctx& c, const toml::node& n, const std::string& what) {
  if (auto s = n.as_string()) return nlohmann::json(s->get());
  if (auto i = n.as_integer()) return nlohmann::json(i->get());
  if (auto f = n.as_floating_point()) {
    // JSON has no nan/inf (they would be stored as null) and no measurement means them.
    if (!std::isfinite(f->get())) return c.at(n, what + ": expected a finite number");
    return nlohmann::json(f->get());
  }
  if (auto b = n.as_boolean()) return nlohmann::json(b->get());
  return c.at(n, what + ": expected a string, integer, float or boolean");
}

Result<nlohmann::json> table_to_json(const Ctx& c, const toml::table& t, const std::string& what) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : t) {
    auto j = scalar_to_json(c, v, what + "." + std::string(k.str()));
    if (!j) return j.error();
    out[std::string(k.str())] = *j;
  }
  return out;
}

// [factors] may use dotted keys (guest.l3_groups = [...]) which TOML turns into sub-tables.
Result<void> collect_factors(const Ctx& c, const toml::table& t, const std::string& prefix,
                             int depth, KeyLines& seen, std::vector<Factor>& out) {
  for (const auto& [k, v] : t) {
    std::string key = prefix + std::string(k.str());
    if (auto sub = v.as_table()) {
      if (depth >= kMaxFactorKeyDepth)
        return c.at(v, "factor '" + key + "...': expected at most " +
                           std::to_string(kMaxFactorKeyDepth) + " key segments");
      TL_TRY(collect_factors(c, *sub, key + ".", depth + 1, seen, out));
      continue;
    }
    auto arr = v.as_array();
    if (!arr) return c.at(v, "factor '" + key + "': expected an array of levels");
    if (arr->empty()) return c.at(v, "factor '" + key + "': expected at least one level");
    auto kind = classify_factor(c, v, key);
    if (!kind) return kind.error();
    const std::string canonical = canonical_factor_key(key);
    TL_TRY(check_unique_key(c, v, "factor", key, canonical, seen));
    Factor f{key, canonical, *kind, {}, line_of(v)};
    std::set<std::string> texts;  // "1" and 1 would read the same in labels and reports
    for (const auto& lv : *arr) {
      auto j = scalar_to_json(c, lv, "factor '" + key + "' level");
      if (!j) return j.error();
      if (!texts.insert(level_text(*j)).second)
        return c.at(lv, "factor '" + key + "': duplicate level '" + level_text(*j) + "'");
      if (*kind == FactorKind::kLayout) TL_TRY(check_layout_level(c, lv, key, canonical, *j));
      if (*kind == FactorKind::kCmdline) TL_TRY(check_cmdline_level(c, lv, key, *j));
      f.levels.push_back(*j);
    }
    out.push_back(std::move(f));
  }
  return {};
}

Result<std::map<std::string, nlohmann::json>> factor_levels(const Ctx& c, const toml::table& t,
                                                            const Experiment& e,
                                                            const std::string& what) {
  std::map<std::string, nlohmann::json> out;
  KeyLines seen;
  TL_TRY(factor_levels_table(c, t, e, what, "", 1, seen, out));
  return out;
}

}  // namespace topolab::experiment::detail
