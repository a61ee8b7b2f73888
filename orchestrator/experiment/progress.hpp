#pragma once
// Progress of an experiment on stderr: a redrawn bar on a terminal (cells done/total, current
// cell, elapsed, ETA), one plain log line per event otherwise.
#include <chrono>
#include <cstdio>
#include <string>

namespace topolab::experiment {

class Progress {
 public:
  // out: usually stderr; tty: whether to draw a bar (isatty) or log lines; quiet: nothing.
  Progress(std::FILE* out, bool tty, bool quiet = false);
  static Progress for_stderr(bool quiet);

  void begin(int cells_total, int cells_done, int runs_total);
  void config_start(const std::string& label);
  void boot_done(const std::string& label, double ms, bool mismatch);
  void run_start(const std::string& cell, const std::string& benchmark, int repetition);
  void run_done(const std::string& cell, const std::string& benchmark, int repetition, double value,
                const std::string& unit, double ms);
  void run_failed(const std::string& cell, const std::string& benchmark, int repetition,
                  const std::string& error);
  void cell_done(const std::string& cell, const std::string& status);
  void message(const std::string& text);
  void end();

  // "1:05", "1:02:03"
  static std::string format_duration(double seconds);

 private:
  void draw();
  void log(const std::string& line);
  double elapsed_s() const;

  std::FILE* out_;
  bool tty_, quiet_;
  std::chrono::steady_clock::time_point start_;
  int cells_total_ = 0, cells_done_ = 0, runs_total_ = 0, runs_done_ = 0;
  std::string current_;
  bool bar_drawn_ = false;
};

}  // namespace topolab::experiment
