#pragma once
// Text helpers the reporters of this folder share, so every format prints a number, a change or
// a verdict the same way: one copy, since a unity batch compiles several reporters in one unit
// (issue 31).
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "common/terminal_text.hpp"
#include "orchestrator/results/report/compare.hpp"
#include "orchestrator/results/report/report_data.hpp"

namespace topolab::report {

// Every text cell of a console table goes through terminal_safe (class 8).
inline std::string tt(const std::string& s) { return terminal_safe(s); }

inline nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nullptr;
}

// --- Numbers and words of one report ---

// Number formatting shared by the reporters: 4 significant digits, "-" for NaN.
std::string format_number(double v);
// The coefficient of variation in percent, "12.3%", "-" for NaN.
std::string cv_text(const ReportRow& r);
// The change against the baseline as every format prints it (issue 27): "+3.1% [+1.0, +5.2]"
// with an interval, "range -5.7..+33.4%" with too few runs (no interval), "baseline", or "-".
std::string change_text(const ReportRow& r);
// The verdict word ("~" for not_significant when `short_form`), "-" for a row without data.
std::string verdict_text(const ReportRow& r, bool short_form);
// The noise reasons joined with "; ", "-" when not noisy.
std::string noise_column(const ReportRow& r);
// One line per row that stopped at [adaptive] max_repetitions with its target unmet.
std::vector<std::string> cap_lines(const ReportData& data);

// --- Numbers and words of a comparison ---

// How the numbers of a comparison are computed, in one sentence every format prints.
extern const char* const kCompareMethod;
// "+12.3%" / "[+1.0, +20.5]" / "0.0079".
std::string delta_text(double pct);
std::string ci_text(const Interval& ci);
// The interval, or with too few runs the range of the change (as the single-store table).
std::string interval_or_range(const CompareRow& r);
// The p the verdict was decided from (Holm-adjusted unless --no-correction), "-" untested.
std::string p_text(const CompareRow& r);
// "WARNING (A): ...", "(B)" or "(A and B)": which side's figures are emulated.
std::string compare_tcg_warning(const CompareData& d);
// The context fields of both sides, A and B, in one list: (name, value A, value B).
std::vector<std::tuple<std::string, std::string, std::string>> compare_side_fields(
    const CompareData& d);

// --- CSV and aligned text ---

// RFC 4180 quoting of a number or fixed word topolab wrote itself.
std::string csv_quoted(const std::string& s);
// Text that may come from a guest, a stored row or the experiment file: control characters made
// visible (the CSV goes to stdout, often a terminal), formula prefixes neutralised (OWASP CSV
// injection), then quoted.
std::string csv_field(const std::string& s);
// Prints a table with columns padded to their widest cell and a rule under the header row: the
// first left_columns columns and the last are left-aligned text, the others right-aligned numbers.
void print_aligned(std::ostream& out, const std::vector<std::vector<std::string>>& table,
                   std::size_t left_columns);

}  // namespace topolab::report
