// The checks of an experiment file across its keys, once every key is read (parse_root in
// experiment.cpp): factors against benchmarks, os.* settings against the guest's OS, the
// matrix's size against its limits.
#include <algorithm>
#include <limits>

#include "orchestrator/run/experiment/experiment_detail.hpp"
#include "protocol/guest_settings.hpp"

namespace topolab::experiment {
namespace detail {
namespace {

// Which OS the experiment's os.* settings are for; nullopt when the file cannot tell (a
// template domain: the agent's hello decides, per cell).
std::optional<GuestOs> settings_os(const Experiment& e) {
  if (e.backend == BackendKind::kHost || e.guest.builtin()) return GuestOs::kLinux;
  if (e.guest.kind == GuestKind::kDisk) return e.guest.os;
  return std::nullopt;
}

std::string guest_description(const Experiment& e) {
  if (e.backend == BackendKind::kHost) return "backend \"host\" runs on this Linux host";
  if (e.guest.builtin()) return "the built-in guest runs Linux";
  return "this experiment's guest runs " + std::string(to_string(e.guest.os));
}

// One os.* name and value: a known row, of the guest's OS, a value of the row's domain.
Result<void> check_os_value(const Ctx& c, int line, const Experiment& e, const std::string& what,
                            const std::string& name, const nlohmann::json* value) {
  const auto os = settings_os(e);
  const protocol::SettingRow* row = protocol::find_setting(name);
  if (!row) {
    const std::string known =
        os ? "known for " + std::string(display_name(*os)) + ": " + protocol::setting_names(*os)
           : "known: " + protocol::setting_names(GuestOs::kLinux) + ", " +
                 protocol::setting_names(GuestOs::kWindows);
    return c.at_line(line, what + " '" + name + "': not a guest setting (" + known + ")");
  }
  if (os && row->os != *os)
    return c.at_line(line, what + " '" + name + "': a " + std::string(display_name(row->os)) +
                               " setting, but " + guest_description(e) +
                               " (its settings: " + protocol::setting_names(*os) + ")");
  if (value) {
    auto ok = protocol::check_setting_value(*row, *value);
    if (!ok) return c.at_line(line, what + " '" + name + "': " + ok.error().message);
  }
  return {};
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a)
    return std::numeric_limits<std::uint64_t>::max();
  return a * b;
}

std::string count_text(std::uint64_t n) {
  if (n == std::numeric_limits<std::uint64_t>::max()) return "more than " + std::to_string(n);
  return std::to_string(n);
}

// "3 × 2 × 4", at most 12 terms.
std::string factor_product_text(const Experiment& e) {
  std::string out;
  for (std::size_t i = 0; i < e.factors.size(); ++i) {
    if (i == 12) return out + " × ... (" + std::to_string(e.factors.size()) + " factors)";
    out += (i ? " × " : "") + std::to_string(e.factors[i].levels.size());
  }
  return out;
}

}  // namespace

Result<void> check_params_factors(const Ctx& c, const Experiment& e) {
  for (const auto& f : e.factors) {
    if (f.kind != FactorKind::kParam || f.key.find('.', 6) == std::string::npos) continue;
    std::string bench = f.key.substr(6, f.key.find('.', 6) - 6);
    bool known = false;
    for (const auto& b : e.benchmarks) known = known || b.name == bench;
    if (!known)
      return c.at_line(f.line, "factor '" + f.key + "': no [[benchmark]] named '" + bench + "'");
  }
  return {};
}

Result<void> check_os_settings(const Ctx& c, const Experiment& e) {
  for (const auto& f : e.factors) {
    if (f.kind != FactorKind::kOs) continue;
    TL_TRY(check_os_value(c, f.line, e, "factor", f.key, nullptr));
    for (const auto& level : f.levels)
      TL_TRY(check_os_value(c, f.line, e, "factor", f.key, &level));
  }
  for (const auto& k : e.os_constants)
    TL_TRY(check_os_value(c, k.line, e, "[os]", k.name, &k.value));
  return {};
}

Result<void> check_size_limits(const Ctx& c, int factors_line, const Experiment& e,
                               bool reps_from_cli) {
  // Every cell runs once per host: the hosts multiply the cells like a factor.
  const std::uint64_t cells =
      saturating_mul(full_factorial_cells(e), std::max<std::size_t>(e.hosts.size(), 1));
  if (cells > kMaxCells)
    return c.at_line(factors_line, "[factors]: the matrix has " + count_text(cells) + " cells (" +
                                       factor_product_text(e) + "), more than the limit " +
                                       std::to_string(kMaxCells) +
                                       "; remove factors or levels, or split the experiment");
  const auto reps = static_cast<std::uint64_t>(
      e.adaptive ? std::max(e.repetitions, e.adaptive->max_repetitions) : e.repetitions);
  const std::uint64_t runs = saturating_mul(saturating_mul(cells, e.benchmarks.size()), reps);
  if (runs > kMaxRuns)
    return c.at_line(factors_line,
                     "[factors]: the experiment has up to " + count_text(runs) + " runs (" +
                         std::to_string(cells) + " cells × " + std::to_string(e.benchmarks.size()) +
                         " benchmarks × " + std::to_string(reps) +
                         (e.adaptive ? " adaptive.max_repetitions" : " repetitions") +
                         (reps_from_cli ? " (with --repetitions)" : "") +
                         "), more than the limit " + std::to_string(kMaxRuns) +
                         "; remove levels, benchmarks or repetitions, or split the experiment");
  return {};
}

}  // namespace detail

std::uint64_t full_factorial_cells(const Experiment& e) {
  std::uint64_t cells = 1;
  for (const auto& f : e.factors) cells = detail::saturating_mul(cells, f.levels.size());
  return cells;
}

}  // namespace topolab::experiment
