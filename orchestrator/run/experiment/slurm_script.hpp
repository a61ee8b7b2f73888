#pragma once
// `topolab slurm` (issue 30): the submit script of an experiment as a Slurm job array. topolab
// builds no scheduler: the script only calls sbatch, once for an array of N tasks (each
// `--exclusive` on one node, pinning needs the whole node) running one shard into its own
// store, once for a merge job (`--dependency=afterany`, so failed tasks still get merged)
// writing DIR/merged.db and DIR/report.html. Running the script again resubmits: each task
// resumes its shard's store and the merge is rebuilt from the shard stores.
#include <filesystem>
#include <string>

#include "common/result.hpp"

namespace topolab::experiment {

struct SlurmJob {
  std::string name;                  // the experiment's name (job names)
  std::filesystem::path topolab;     // absolute path of the binary the jobs call
  std::filesystem::path experiment;  // absolute path of the experiment file
  std::filesystem::path store_dir;   // absolute; shard-K.db, merged.db, report.html, *.out
  int shards = 1;
  std::string partition;  // "" : the cluster's default
  std::string time;       // "" : the partition's default; else [D-]HH:MM:SS
};

// Refuses, naming the option: a partition or time limit outside Slurm's syntax, a path with
// control characters (it is written into a shell script), a relative path.
Result<void> check_slurm_job(const SlurmJob&);
// The store directory: created when missing (its parent must exist); refused when it is a
// symlink (the jobs on other nodes would resolve it themselves), not a directory, or when a
// file cannot be created in it.
Result<void> prepare_store_dir(const std::filesystem::path& dir);
// The bash script (check_slurm_job first).
std::string slurm_submit_script(const SlurmJob&);

}  // namespace topolab::experiment
