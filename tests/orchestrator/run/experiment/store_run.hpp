#pragma once
// What the runner tests share (runner, resume, multi-host, hostile result): a temporary folder
// holding the experiment's store r.db, and a run of the real runner into it whose plain progress
// lines (no TTY) are kept.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "orchestrator/run/experiment/runner.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab::experiment {

// Two cells on the host (sqrt with 1 and 2 threads, baseline 1), two repetitions each: seconds.
inline std::string two_cell_design(const std::string& name, int repetitions = 2) {
  return "name = \"" + name + "\"\nrepetitions = " + std::to_string(repetitions) + "\n" +
         R"(backend = "host"
seed = 3
[factors]
"param.sqrt.threads" = [1, 2]
[[benchmark]]
name = "sqrt"
params = { n = 20000, repeats = 1 }
[baseline]
"param.sqrt.threads" = 1
)";
}

class StoreRunTest : public ::testing::Test {
 protected:
  Experiment parse(const std::string& text, const std::string& file = "runner.toml") {
    auto e = parse_experiment(text, file, dir_);
    if (!e) ADD_FAILURE() << e.error().message;
    return e ? *e : Experiment{};
  }

  // One host: the backend's own. `log`, when given, gets the progress lines.
  Result<RunSummary> run_with(const Experiment& e, Backend& backend, std::string* log = nullptr) {
    return run_into_store(log, [&](store::ResultStore& st, Progress& p) {
      return run_experiment(e, backend, st, p);
    });
  }
  Result<RunSummary> run_with(const Experiment& e, const std::vector<HostSlot>& hosts,
                              std::string* log = nullptr) {
    return run_into_store(
        log, [&](store::ResultStore& st, Progress& p) { return run_experiment(e, hosts, st, p); });
  }

  std::filesystem::path store_path() const { return dir_ / "r.db"; }

  testing::TempDir temp_{"topolab-runner-test"};
  const std::filesystem::path dir_ = temp_.path();

 private:
  template <typename Run>
  Result<RunSummary> run_into_store(std::string* log, Run&& run) {
    auto store = store::ResultStore::open(store_path());
    if (!store) return store.error();
    std::FILE* out = std::tmpfile();
    Progress progress(out, /*tty=*/false);
    auto s = run(**store, progress);
    std::rewind(out);
    char buf[8192];
    for (std::size_t n; log && (n = std::fread(buf, 1, sizeof buf, out)) > 0;) log->append(buf, n);
    std::fclose(out);
    return s;
  }
};

}  // namespace topolab::experiment
