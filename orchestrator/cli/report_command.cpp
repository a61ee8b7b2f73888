// `topolab report STORE [STORE_B] [--compare STORE_B] [--experiment NAME]
//  [--compare-experiment NAME] [--format table|csv|json|html|markdown] [-o FILE]`
// One store: its report. Two stores (or one store and --compare-experiment): the comparison of
// B against A (report/compare.hpp).
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common/file_identity.hpp"
#include "common/file_io.hpp"
#include "common/output_file.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/results/report/reporter.hpp"
#include "orchestrator/results/store/result_store.hpp"

namespace topolab::cli {
namespace {

class ReportCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* cmd = app.add_subcommand("report",
                                   "Report an experiment's results from a store, or "
                                   "compare two (A.db B.db)");
    cmd->add_option("store", stores_,
                    "SQLite results store written by `topolab run`; a second store compares "
                    "it (B) against the first (A)")
        ->required()
        ->expected(1, 2);
    cmd->add_option("--compare", compare_, "Store B to compare against the first store (A)");
    cmd->add_option("--format", format_, report::report_format_choices())
        ->check(CLI::IsMember(report::report_formats()));
    cmd->add_option("-o,--output", output_, "Write to FILE instead of stdout");
    cmd->add_option("--experiment", experiment_,
                    "Experiment name (when the store holds several; also B's unless "
                    "--compare-experiment)");
    cmd->add_option("--compare-experiment", compare_experiment_,
                    "Experiment of B to compare (B is the first store when no second is given)");
    cmd->add_option("--alpha", alpha_text_,
                    "Significance level of every verdict's rank test (default 0.05)");
    cmd->add_flag("--no-correction", no_correction_,
                  "Decide each verdict from its own p (default: Holm over the report's rows)");
    cmd->add_flag("--json", json_, "Same as --format json");
    return cmd;
  }

  int run() override {
    if (json_) format_ = "json";
    if (auto alpha = parse_alpha(); !alpha) return fail("report", alpha.error());
    if (!compare_.empty()) {
      if (stores_.size() > 1)
        return fail("report", make_error(ErrorKind::input,
                                         "give store B once: as a second store or as --compare"));
      stores_.push_back(compare_);
    }
    if (stores_.size() == 1 && !compare_experiment_.empty()) stores_.push_back(stores_.front());
    std::vector<std::filesystem::path> inputs;
    for (const auto& s : stores_)
      for (const char* suffix : {"", "-wal", "-journal"}) inputs.emplace_back(s + suffix);
    if (auto same = check_output_is_not_input(output_, inputs); !same)
      return fail("report", same.error());
    std::ostringstream text;
    const int rc = stores_.size() == 1 ? report_one(text) : report_compare(text);
    if (rc != 0) return rc;
    if (output_.empty()) {
      std::cout << text.str() << std::flush;
      return to_int(ExitCode::ok);
    }
    auto written = write_file_atomic(output_, text.str(), 0644, ExistingFile::kKeepModeAndOwner);
    if (!written) return fail("report", written.error());
    return to_int(ExitCode::ok);
  }

 private:
  int report_one(std::ostream& text) {
    auto store = store::ResultStore::open_read_only(stores_.front());
    if (!store) return fail("report", store.error());
    auto data = report::load_report(**store, experiment_, options());
    if (!data) return fail("report", data.error());
    if (auto unused = refuse_unused_alpha(*data); !unused) return fail("report", unused.error());
    auto reporter = report::make_reporter(format_, text);
    if (!reporter) return fail("report", reporter.error());
    (*reporter)->report(*data);
    warn_left_out(*data, "");
    return to_int(ExitCode::ok);
  }

  int report_compare(std::ostream& text) {
    auto a = load(stores_[0], experiment_);
    if (!a) return fail("report", a.error());
    auto b = load(stores_[1], compare_experiment_.empty() ? experiment_ : compare_experiment_);
    if (!b) return fail("report", b.error());
    // Issue 32: a store compared with itself through a symlink gave a table of zero
    // differences; same_file compares what the names open, not their text.
    if (same_file(stores_[0], stores_[1]) && a->experiment == b->experiment)
      return fail(
          "report",
          make_error(
              ErrorKind::input,
              "A and B are the same experiment '" + a->experiment + "' of " + stores_[0] +
                  (stores_[0] == stores_[1] ? "" : " (" + stores_[1] + " is the same file)") +
                  ": name another with --compare-experiment"));
    auto data =
        report::compare_reports(*a, *b, label(stores_[0], *a), label(stores_[1], *b), options());
    auto reporter = report::make_reporter(format_, text);
    if (!reporter) return fail("report", reporter.error());
    // A format without a comparison refuses it (input), having written nothing.
    if (auto compared = (*reporter)->compare(data); !compared)
      return fail("report", compared.error().context("--format '" + format_ + "'"));
    warn_left_out(*a, "A: ");
    warn_left_out(*b, "B: ");
    return to_int(ExitCode::ok);
  }

  // from_chars: the whole text is a number strictly between 0 and 1 ("nan", "1e999", "0.05x"
  // refused; CLI11's range check lets NaN through).
  Result<void> parse_alpha() {
    if (alpha_text_.empty()) return {};
    const char* end = alpha_text_.data() + alpha_text_.size();
    auto [p, ec] = std::from_chars(alpha_text_.data(), end, alpha_);
    if (ec == std::errc() && p == end && alpha_ > 0 && alpha_ < 1) return {};
    return make_error(ErrorKind::input, "--alpha '" + alpha_text_ +
                                            "': expected a number between 0 and 1, e.g. 0.05");
  }

  // One store decides verdicts only against its experiment's baseline: an --alpha with no
  // difference to decide was ignored silently (issue 32).
  Result<void> refuse_unused_alpha(const report::ReportData& data) const {
    if (alpha_text_.empty()) return {};
    for (const auto& r : data.rows)
      if (r.difference) return {};
    return make_error(ErrorKind::input,
                      "--alpha " + alpha_text_ + ": experiment '" + data.experiment +
                          "' has no differences to decide (no baseline cell in this store); "
                          "--alpha applies to a comparison (report A.db B.db) or to an "
                          "experiment with a baseline");
  }

  report::VerdictOptions options() const { return {alpha_, !no_correction_}; }

  static Result<report::ReportData> load(const std::string& path, const std::string& name) {
    auto store = store::ResultStore::open_read_only(path);
    if (!store) return store.error();
    return report::load_report(**store, name);
  }

  static std::string label(const std::string& path, const report::ReportData& d) {
    return path + " (experiment " + d.experiment + ")";
  }

  // Rows a report leaves out are said on stderr too, so a pipeline notices (exit stays 0).
  static void warn_left_out(const report::ReportData& data, const std::string& side) {
    for (const auto& w : data.warnings) print_error("report", side + "warning: " + w);
    if (!data.invalid_runs.empty()) {
      const auto& first = data.invalid_runs.front();
      print_error("report", side + "warning: " + std::to_string(data.invalid_runs.size()) +
                                " stored run(s) failed validation and are left out (first: run " +
                                std::to_string(first.run_id) + ": " + first.reason + ")");
    }
  }

  std::vector<std::string> stores_;
  std::string compare_, format_ = "table", output_, experiment_, compare_experiment_, alpha_text_;
  double alpha_ = 0.05;
  bool json_ = false, no_correction_ = false;
};

}  // namespace

std::unique_ptr<Command> make_report_command() { return std::make_unique<ReportCommand>(); }

}  // namespace topolab::cli
