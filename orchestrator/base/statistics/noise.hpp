#pragma once
// Why a cell's numbers are noisy (issue 27): said beside the number in every format, so a
// reader weighs a verdict by how it was measured.
#include <optional>
#include <string>
#include <vector>

namespace topolab::statistics {

// Steal above this share of the runs' time makes a cell noisy (the hypervisor ran something
// else on its CPUs while the benchmark ran).
constexpr double kMaxStealShare = 0.02;

struct NoiseInput {
  double steal_seconds = 0;    // summed over the runs that reported a steal counter
  double run_seconds = 0;      // CPU-seconds those runs had (duration x CPUs they used)
  bool steal_known = false;    // at least one run reported steal before and after
  double cv = 0;               // of the repetition values
  double cv_threshold = 0.05;  // the experiment's [adaptive] cv_threshold or its default
  bool emulated = false;       // TCG: every instruction emulated, timings not the hardware's
};

// The reasons, in a fixed order: "steal 3.1% of run time", "cv 7.2% > 5.0%", "tcg". Empty: not
// noisy.
std::vector<std::string> noise_reasons(const NoiseInput& in);

// The reasons joined with "; " (the table's and CSV's one field); "" when not noisy.
std::string noise_text(const std::vector<std::string>& reasons);

}  // namespace topolab::statistics
