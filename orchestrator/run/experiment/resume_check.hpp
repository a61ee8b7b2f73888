#pragma once
// Experiment identity on resume. The store matches runs by cell, benchmark index and
// repetition; before any of them is reused, every stored result of the experiment must have been
// measured with what the file now defines: the same cell (factor levels), the same resolved
// layout, the same benchmark name and parameters. Anything else is refused with what changed:
// reporting old numbers under a new definition would be silently wrong science.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "orchestrator/run/experiment/experiment.hpp"
#include "orchestrator/run/experiment/matrix.hpp"

namespace topolab::experiment {

// layouts: configuration key -> Backend::layout_identity. store_name names the store file in
// the refusal ("experiment 'x' in STORE was run with ...; the file now says ...").
Result<void> check_resume(const Experiment&, const std::vector<Cell>&,
                          const std::map<std::string, nlohmann::json>& layouts,
                          const std::vector<store::StoredRunIdentity>& stored,
                          const std::string& store_name);

// "sqrt{n=1000, repeats=1}": a benchmark as the refusal names it.
std::string benchmark_text(const std::string& name, const nlohmann::json& params);

}  // namespace topolab::experiment
