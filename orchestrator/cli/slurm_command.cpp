// `topolab slurm EXPERIMENT --shards N --store-dir DIR [--partition P] [--time HH:MM:SS]
//                [--topolab PATH] [-o submit.sh] [--json]` (issue 30): writes the submit script
// of a Slurm job array (experiment/slurm_script.hpp); `bash submit.sh` submits it.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/file_io.hpp"
#include "common/json_text.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/run/experiment/experiment.hpp"
#include "orchestrator/run/experiment/matrix.hpp"
#include "orchestrator/run/experiment/shard.hpp"
#include "orchestrator/run/experiment/slurm_script.hpp"

namespace topolab::cli {
namespace {

namespace fs = std::filesystem;

class SlurmCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* cmd = app.add_subcommand("slurm", "Write a Slurm job-array submit script");
    cmd->add_option("experiment", file_, "Experiment file (TOML)")->required();
    cmd->add_option("--shards", shards_text_, "Number of array tasks (shards)")
        ->required()
        ->type_name("N");
    cmd->add_option("--store-dir", store_dir_,
                    "Directory of the shard stores, merged.db, "
                    "report.html (shared by the nodes)")
        ->required();
    cmd->add_option("--partition", job_.partition, "Slurm partition (default: the cluster's)");
    cmd->add_option("--time", job_.time, "Time limit per task, [D-]HH:MM:SS");
    cmd->add_option("--topolab", topolab_, "topolab binary the jobs run (default: this one)");
    cmd->add_option("-o,--output", output_, "Write the script here (default: stdout)");
    cmd->add_flag("--json", json_, "Print what was written as JSON (with -o)");
    return cmd;
  }

  int run() override {
    // -o over the experiment file (or the binary the tasks run) would replace it with the script.
    if (auto same = check_output_is_not_input(output_, {file_, topolab_}); !same)
      return fail("slurm", same.error());
    auto shards = experiment::parse_shard_count(shards_text_);
    if (!shards) return fail("slurm", shards.error().context("--shards"));
    auto e = experiment::load_experiment_file(file_, {});
    if (!e) return fail("slurm", e.error());
    const auto configs = experiment::group_by_configuration(*e, experiment::expand_cells(*e));
    // The same refusal as `run --shard K/N` would give every task.
    auto part = experiment::shard_configurations(*e, configs, {1, *shards});
    if (!part) return fail("slurm", part.error());
    std::error_code ec;
    job_.name = e->name;
    job_.shards = *shards;
    job_.experiment = fs::absolute(file_, ec);
    job_.store_dir = fs::absolute(store_dir_, ec).lexically_normal();
    if (!job_.store_dir.has_filename()) job_.store_dir = job_.store_dir.parent_path();  // "dir/"
    job_.topolab =
        topolab_.empty() ? fs::read_symlink("/proc/self/exe", ec) : fs::absolute(topolab_, ec);
    if (auto ok = experiment::check_slurm_job(job_); !ok) return fail("slurm", ok.error());
    if (::access(job_.topolab.c_str(), X_OK) != 0)
      return fail("slurm", make_error(ErrorKind::input,
                                      "--topolab " + job_.topolab.string() + ": not executable"));
    if (auto ok = experiment::prepare_store_dir(job_.store_dir); !ok)
      return fail("slurm", ok.error());
    const std::string script = experiment::slurm_submit_script(job_);
    if (output_.empty()) {
      std::cout << script << std::flush;
      return to_int(ExitCode::ok);
    }
    if (auto ok = write_file_atomic(output_, script, 0755); !ok) return fail("slurm", ok.error());
    if (json_)
      std::cout << json_document({{"script", output_},
                                  {"experiment", e->name},
                                  {"shards", *shards},
                                  {"store_dir", job_.store_dir.string()},
                                  {"topolab", job_.topolab.string()}})
                << std::flush;
    else
      std::printf("wrote %s: %d shards of %s into %s; submit with: bash %s\n", output_.c_str(),
                  *shards, e->name.c_str(), job_.store_dir.c_str(), output_.c_str());
    return to_int(ExitCode::ok);
  }

 private:
  std::string file_, shards_text_, store_dir_, topolab_, output_;
  experiment::SlurmJob job_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_slurm_command() { return std::make_unique<SlurmCommand>(); }

}  // namespace topolab::cli
