#include "orchestrator/results/report/csv_reporter.hpp"

#include "common/json_text.hpp"
#include "orchestrator/base/statistics/descriptive.hpp"
#include "orchestrator/results/report/c2c_class_table.hpp"
#include "orchestrator/results/report/telemetry_table.hpp"

namespace topolab::report {
namespace {

// --- Context (issue 18): the same ordered fields in the table, CSV and JSON ---

std::string csv_context_header(const ReportData& data) {
  if (!data.context) return "";
  std::string out;
  for (const auto& [name, value] : experiment_fields(data.context->experiment)) out += "," + name;
  out += ",emulated,context_warning";
  for (const auto& [name, value] : cell_fields(CellContext{})) out += "," + name;
  for (const auto& [name, value] : condition_fields(data.context->experiment, CellContext{}))
    out += "," + name;
  return out;
}

std::string csv_context_values(const ReportData& data, const std::string& cell) {
  if (!data.context) return "";
  const auto& x = data.context->experiment;
  std::string out;
  for (const auto& [name, value] : experiment_fields(x)) out += "," + csv_field(value);
  out += std::string(x.emulated ? ",1," : ",0,") + (x.emulated ? csv_field(kTcgWarning) : "");
  const auto& c = cell_context(*data.context, cell);
  for (const auto& [name, value] : cell_fields(c)) out += "," + csv_field(value);
  for (const auto& [name, value] : condition_fields(x, c)) out += "," + csv_field(value);
  return out;
}

// Interval, range, p, verdict, noise and the adaptive cap: the same fields in CSV and JSON.
std::string csv_difference(const ReportRow& r) {
  using statistics::kNaN;
  const auto* d = r.difference ? &*r.difference : nullptr;
  auto field = [](double v) { return "," + format_number(v); };
  std::string out;
  out += field(d && d->ci_pct ? d->ci_pct->low : kNaN);
  out += field(d && d->ci_pct ? d->ci_pct->high : kNaN);
  out += field(d ? d->range_pct.low : kNaN) + field(d ? d->range_pct.high : kNaN);
  out += field(d ? d->p_value : kNaN) + field(d ? d->p_adjusted : kNaN);
  out += "," + std::string(statistics::verdict_name(r.verdict()));
  out += "," + csv_field(statistics::noise_text(r.noise)) + (r.stopped_at_cap ? ",1" : ",0");
  return out;
}

// The factor keys of the first row: one column each.
std::vector<std::string> csv_factor_keys(const ReportData& data) {
  std::vector<std::string> keys;
  if (!data.rows.empty())
    for (const auto& [k, v] : data.rows.front().factors.items()) keys.push_back(k);
  return keys;
}

void csv_report_row(std::ostream& out, const ReportData& data, const ReportRow& r,
                    const std::vector<std::string>& keys) {
  out << csv_field(data.experiment) << "," << csv_field(r.cell);
  for (const auto& k : keys) {
    const auto& v = r.factors.contains(k) ? r.factors[k] : nlohmann::json();
    // A number level is written as the number; only text can be a formula.
    out << "," << (v.is_string() ? csv_field(v.get<std::string>()) : csv_quoted(json_line(v)));
  }
  out << "," << csv_field(r.benchmark) << "," << csv_field(r.unit) << "," << r.values.size() << ","
      << format_number(r.median) << "," << format_number(r.min) << "," << format_number(r.max)
      << "," << format_number(r.mean) << "," << format_number(r.cv) << ","
      << (r.penalty ? format_number(*r.penalty) : "-") << csv_difference(r) << ","
      << (r.is_baseline ? "1" : "0") << "," << csv_field(r.status) << ","
      << (r.mismatch ? "1" : "0") << "," << csv_field(r.error)
      << csv_context_values(data, row_ref(r)) << csv_telemetry_values(data, &r) << "\n";
}

// An invalid stored run: one row, the reason in the error column, no numbers.
void csv_invalid_run_row(std::ostream& out, const ReportData& data, const InvalidRun& i,
                         std::size_t key_count) {
  out << csv_field(data.experiment) << "," << csv_field(i.cell);
  for (std::size_t k = 0; k < key_count; ++k) out << ",";
  out << "," << csv_field(i.benchmark) << ",,0,-,-,-,-,-,-,-,-,-,-,-,-,no_data,,0,0,invalid,0,"
      << csv_field("run " + std::to_string(i.run_id) + ": " + i.reason)
      << csv_context_values(data, i.cell) << csv_telemetry_values(data, nullptr) << "\n";
}

}  // namespace

void CsvReporter::report(const ReportData& data) {
  const std::vector<std::string> keys = csv_factor_keys(data);
  out_ << "experiment,cell";
  for (const auto& k : keys) out_ << "," << csv_field(k);
  out_ << ",benchmark,unit,n,median,min,max,mean,cv,penalty_pct,ci_low,ci_high,range_low,"
          "range_high,p_value,p_adjusted,verdict,noise,stopped_at_cap,baseline,status,mismatch,"
          "error"
       << csv_context_header(data) << csv_telemetry_header(data) << "\n";
  for (const auto& r : data.rows) csv_report_row(out_, data, r, keys);
  for (const auto& i : data.invalid_runs) csv_invalid_run_row(out_, data, i, keys.size());
  csv_c2c_classes(out_, data);
}

Result<void> CsvReporter::compare(const CompareData& d) {
  const auto fields = compare_side_fields(d);
  out_ << "cell,benchmark,unit,n_a,n_b,median_a,median_b,delta_pct,ci_low,ci_high,u,p_value,"
          "p_exact,verdict,topology_mismatch";
  for (const auto& f : fields) out_ << ",a_" << std::get<0>(f);
  for (const auto& f : fields) out_ << ",b_" << std::get<0>(f);
  out_ << ",emulated,context_warning" << csv_telemetry_delta_header(d) << "\n";
  std::string context;
  for (const auto& f : fields) context += "," + csv_field(std::get<1>(f));
  for (const auto& f : fields) context += "," + csv_field(std::get<2>(f));
  context += d.emulated() ? ",1," + csv_field(kTcgWarning) : ",0,";
  for (const auto& r : d.rows)
    out_ << csv_field(r.cell) << "," << csv_field(r.benchmark) << "," << csv_field(r.unit) << ","
         << r.a.size() << "," << r.b.size() << "," << format_number(r.median_a) << ","
         << format_number(r.median_b) << "," << format_number(r.delta_pct) << ","
         << format_number(r.delta_ci.low) << "," << format_number(r.delta_ci.high) << ","
         << format_number(r.test.u) << "," << format_number(r.test.p_value) << ","
         << (r.test.exact ? "1" : "0") << "," << csv_field(r.verdict) << ","
         << csv_field(r.mismatch) << context << csv_telemetry_delta_values(d, &r.telemetry) << "\n";
  // A cell / benchmark on one side only: its key in the first column, the verdict says which.
  for (const auto* side : {&d.only_a, &d.only_b})
    for (const auto& k : *side)
      out_ << csv_field(k) << ",,,,,-,-,-,-,-,-,-,0,"
           << (side == &d.only_a ? "only in A" : "only in B") << "," << context
           << csv_telemetry_delta_values(d, nullptr) << "\n";
  return {};
}

}  // namespace topolab::report
