// `topolab run EXPERIMENT [--store FILE] [--connect URI] [--accel auto|kvm|tcg]
//                         [--repetitions N] [--seed N] [--json] [-q]`
#include <charconv>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>

#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/watchdog_options.hpp"
#include "orchestrator/experiment/backend_factory.hpp"
#include "orchestrator/experiment/experiment.hpp"
#include "orchestrator/experiment/runner.hpp"
#include "orchestrator/logging/log.hpp"
#include "orchestrator/store/result_store.hpp"

namespace topolab::cli {
namespace {

class RunCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* cmd = app.add_subcommand("run", "Run an experiment file into a results store");
    cmd->add_option("experiment", file_, "Experiment file (TOML)")->required();
    cmd->add_option("--store", store_, "SQLite results store (default: <name>.db)");
    cmd->add_option("-c,--connect", options_.connect_uri, "libvirt URI (default qemu:///system)");
    cmd->add_option("--accel", options_.accel, "auto | kvm | tcg")
        ->check(CLI::IsMember({"auto", "kvm", "tcg"}));
    cmd->add_option("--repetitions", repetitions_, "Override the file's repetitions")
        ->check(CLI::Range(1, 1000));
    // Parsed here, not by CLI11: its integer conversion let 99999999999999999999 through
    // (redteam); -1 once meant "none".
    cmd->add_option("--seed", seed_text_, "Override the file's seed of the run order")
        ->check([](const std::string& v) {
          return parse_seed(v) ? std::string()
                               : "expected an integer 0.." +
                                     std::to_string(std::numeric_limits<long long>::max());
        });
    cmd->add_option("--agent", options_.agent_binary, "Agent binary for backend \"host\"");
    add_watchdog_options(cmd, options_.boot_retries, options_.boot_watchdog_ms);
    cmd->add_flag("--json", json_, "Print the run summary as JSON on stdout");
    return cmd;
  }

  int run() override {
    experiment::Overrides overrides;
    if (repetitions_ > 0) overrides.repetitions = repetitions_;
    if (auto seed = parse_seed(seed_text_)) overrides.seed = *seed;
    auto e = experiment::load_experiment_file(file_, overrides);
    if (!e) return fail("run", e.error());
    if (store_.empty()) store_ = e->name + ".db";
    auto store = store::ResultStore::open(store_);
    if (!store) return fail("run", store.error());
    auto backend = experiment::make_backend(e->backend, options_);
    if (!backend) return fail("run", backend.error());
    // Progress is information: -q (or --log-level warn and above) silences it.
    auto progress =
        experiment::Progress::for_stderr(logging::console_level() > logging::Level::info);
    auto summary = experiment::run_experiment(*e, **backend, **store, progress);
    if (!summary) return fail("run", summary.error());
    if (json_) {
      auto j = summary->to_json();
      j["experiment"] = e->name;
      j["store"] = store_;
      std::cout << j.dump(2) << std::endl;
    } else {
      std::printf(
          "%s: %d cells (%d done, %d failed, %d with topology mismatch), %d boots, "
          "%d runs executed, %d skipped, %d failed; store %s\n",
          e->name.c_str(), summary->cells, summary->cells_done, summary->cells_failed,
          summary->cells_mismatch, summary->boots, summary->runs_executed, summary->runs_skipped,
          summary->runs_failed, store_.c_str());
    }
    return to_int(summary->cells_failed > 0 ? ExitCode::mismatch : ExitCode::ok);
  }

 private:
  std::string file_, store_;
  experiment::BackendOptions options_;
  int repetitions_ = 0;
  std::string seed_text_;

  // 0..LLONG_MAX (what an experiment file's TOML integer can hold), all digits, no overflow.
  static std::optional<std::uint64_t> parse_seed(const std::string& v) {
    long long n = -1;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size() || n < 0) return std::nullopt;
    return static_cast<std::uint64_t>(n);
  }
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_run_command() { return std::make_unique<RunCommand>(); }

}  // namespace topolab::cli
