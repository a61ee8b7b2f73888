#include "orchestrator/run/experiment/slurm_script.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>

namespace topolab::experiment {
namespace {

namespace fs = std::filesystem;

// Single-quoted for bash: no expansion; a ' becomes '\''.
std::string sh(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

Result<void> check_path(const char* option, const fs::path& p) {
  const std::string s = p.string();
  if (s.empty() || !p.is_absolute())
    return make_error(ErrorKind::input,
                      std::string(option) + " '" + s + "': expected an absolute path");
  if (s.size() > 1024)
    return make_error(ErrorKind::input, std::string(option) + ": path longer than 1024 bytes");
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f)
      return make_error(ErrorKind::input, std::string(option) +
                                              ": path holds a control character (it is written "
                                              "into a shell script)");
  return {};
}

std::string sbatch_options(const SlurmJob& j) {
  std::string out;
  if (!j.partition.empty()) out += " --partition=" + sh(j.partition);
  if (!j.time.empty()) out += " --time=" + sh(j.time);
  return out;
}

}  // namespace

Result<void> check_slurm_job(const SlurmJob& j) {
  TL_TRY(check_path("--topolab", j.topolab));
  TL_TRY(check_path("experiment", j.experiment));
  TL_TRY(check_path("--store-dir", j.store_dir));
  // Slurm's own names: letters, digits, '-', '_', '.'.
  static const std::regex partition("[A-Za-z0-9_.-]{1,64}");
  if (!j.partition.empty() && !std::regex_match(j.partition, partition))
    return make_error(ErrorKind::input, "--partition '" + j.partition +
                                            "': expected a Slurm partition name (letters, "
                                            "digits, '-', '_', '.'; at most 64)");
  static const std::regex time("([0-9]{1,3}-)?[0-9]{1,3}:[0-5][0-9]:[0-5][0-9]");
  if (!j.time.empty() && !std::regex_match(j.time, time))
    return make_error(ErrorKind::input,
                      "--time '" + j.time + "': expected HH:MM:SS or D-HH:MM:SS (e.g. 02:00:00)");
  static const std::regex name("[A-Za-z0-9_.-]{1,128}");
  if (!std::regex_match(j.name, name))
    return make_error(ErrorKind::input, "experiment name '" + j.name +
                                            "': a Slurm job name needs letters, digits, '-', "
                                            "'_', '.'");
  return {};
}

Result<void> prepare_store_dir(const fs::path& dir) {
  struct stat st {};
  const std::string d = dir.string();
  if (::lstat(d.c_str(), &st) != 0) {
    if (errno != ENOENT || ::mkdir(d.c_str(), 0755) != 0)
      return make_error(ErrorKind::input,
                        "--store-dir " + d + ": cannot create it: " + std::strerror(errno));
  } else if (S_ISLNK(st.st_mode)) {
    return make_error(ErrorKind::input,
                      "--store-dir " + d +
                          " is a symlink: give the directory itself (tasks on other nodes "
                          "would resolve the link on their own)");
  } else if (!S_ISDIR(st.st_mode)) {
    return make_error(ErrorKind::input, "--store-dir " + d + " is not a directory");
  }
  // access(W_OK) answers yes to root even on a read-only mount: a real file is the test.
  const std::string probe = d + "/.topolab-write-probe-" + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    return make_error(ErrorKind::input,
                      "--store-dir " + d + " is not writable: " + std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}

std::string slurm_submit_script(const SlurmJob& j) {
  const std::string n = std::to_string(j.shards), dir = sh(j.store_dir.string());
  const std::string bin = sh(j.topolab.string()), exp = sh(j.experiment.string());
  const std::string name = sh("topolab-" + j.name);
  std::string s =
      "#!/bin/bash\n"
      "# Written by `topolab slurm` for experiment " +
      j.name + ": " + n +
      " shards as a Slurm job array, then a merge job.\n"
      "# Run it again to resubmit: each task resumes its shard store; the merge is rebuilt.\n"
      "set -euo pipefail\n"
      "array_id=$(sbatch --parsable --job-name=" +
      name + " --array=1-" + n + " --exclusive --nodes=1 --ntasks=1" + sbatch_options(j) +
      " --output=" + dir +
      "/shard-%a.out <<'TOPOLAB_TASK'\n"
      "#!/bin/bash\n"
      "exec " +
      bin + " run " + exp + " --shard \"${SLURM_ARRAY_TASK_ID}/" + n + "\" --store " + dir +
      "/shard-\"${SLURM_ARRAY_TASK_ID}\".db -q\n"
      "TOPOLAB_TASK\n"
      ")\n"
      "array_id=${array_id%%;*}\n"
      "merge_id=$(sbatch --parsable --job-name=" +
      sh("topolab-" + j.name + "-merge") +
      " --dependency=afterany:\"${array_id}\" --nodes=1 --ntasks=1" + sbatch_options(j) +
      " --output=" + dir +
      "/merge.out <<'TOPOLAB_MERGE'\n"
      "#!/bin/bash\n"
      "set -euo pipefail\n"
      "# The shard stores that exist (a task that never started wrote none).\n"
      "stores=()\n"
      "for k in $(seq 1 " +
      n +
      "); do\n"
      "  if [ -f " +
      dir + "/shard-\"$k\".db ]; then stores+=(" + dir +
      "/shard-\"$k\".db); fi\n"
      "done\n"
      "rm -f " +
      dir + "/merged-next.db\n" + bin + " merge " + dir +
      "/merged-next.db \"${stores[@]}\"\n"
      "mv -f " +
      dir + "/merged-next.db " + dir + "/merged.db\n" + bin + " report " + dir +
      "/merged.db --format html -o " + dir +
      "/report.html\n"
      "TOPOLAB_MERGE\n"
      ")\n"
      "merge_id=${merge_id%%;*}\n"
      "echo \"array job ${array_id}\"\n"
      "echo \"merge job ${merge_id}\"\n";
  return s;
}

}  // namespace topolab::experiment
