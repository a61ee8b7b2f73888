#pragma once
// Progress of an experiment on stderr: a redrawn bar on a terminal (cells done/total, current
// cell, elapsed, ETA), one plain log line per event otherwise. With several hosts (issue 16)
// each host is a lane: on a terminal one state line per host under the bar; otherwise every
// log line starts with its host. Thread-safe: one worker thread per host reports through its
// own Lane, and every event takes the one mutex.
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

namespace topolab::experiment {

class Progress {
 public:
  // out: usually stderr; tty: whether to draw a bar (isatty) or log lines; quiet: nothing.
  Progress(std::FILE* out, bool tty, bool quiet = false);
  static Progress for_stderr(bool quiet);
  Progress(Progress&& other) noexcept;

  // One lane per host, named by the host (before begin); fewer than two: no host prefixes.
  void set_lanes(const std::vector<std::string>& hosts);

  void begin(int cells_total, int cells_done, int runs_total);
  void message(const std::string& text);
  void end();

  // The events of one host's worker.
  class Lane {
   public:
    Lane(Progress& p, int index) : p_(&p), i_(index) {}
    void config_start(const std::string& label) { p_->config_start(i_, label); }
    void boot_done(const std::string& label, double ms, bool mismatch) {
      p_->boot_done(i_, label, ms, mismatch);
    }
    void run_start(const std::string& cell, const std::string& benchmark, int repetition) {
      p_->run_start(i_, cell, benchmark, repetition);
    }
    void run_done(const std::string& cell, const std::string& benchmark, int repetition,
                  double value, const std::string& unit, double ms) {
      p_->run_done(i_, cell, benchmark, repetition, value, unit, ms);
    }
    void run_failed(const std::string& cell, const std::string& benchmark, int repetition,
                    const std::string& error) {
      p_->run_failed(i_, cell, benchmark, repetition, error);
    }
    void cell_done(const std::string& cell, const std::string& status) {
      p_->cell_done(i_, cell, status);
    }
    void message(const std::string& text) { p_->lane_message(i_, text); }
    // The host's state line on a terminal ("done", "unreachable: ..."), logged otherwise.
    void state(const std::string& text) { p_->lane_state(i_, text); }

   private:
    Progress* p_;
    int i_;
  };
  Lane lane(int index) { return Lane(*this, index); }

  // Single-host forms (lane 0), as before issue 16.
  void config_start(const std::string& label) { config_start(0, label); }
  void boot_done(const std::string& label, double ms, bool mismatch) {
    boot_done(0, label, ms, mismatch);
  }
  void run_start(const std::string& cell, const std::string& benchmark, int repetition) {
    run_start(0, cell, benchmark, repetition);
  }
  void run_done(const std::string& cell, const std::string& benchmark, int repetition, double value,
                const std::string& unit, double ms) {
    run_done(0, cell, benchmark, repetition, value, unit, ms);
  }
  void run_failed(const std::string& cell, const std::string& benchmark, int repetition,
                  const std::string& error) {
    run_failed(0, cell, benchmark, repetition, error);
  }
  void cell_done(const std::string& cell, const std::string& status) { cell_done(0, cell, status); }

  // "1:05", "1:02:03"
  static std::string format_duration(double seconds);

 private:
  void config_start(int lane, const std::string& label);
  void boot_done(int lane, const std::string& label, double ms, bool mismatch);
  void run_start(int lane, const std::string& cell, const std::string& benchmark, int repetition);
  void run_done(int lane, const std::string& cell, const std::string& benchmark, int repetition,
                double value, const std::string& unit, double ms);
  void run_failed(int lane, const std::string& cell, const std::string& benchmark, int repetition,
                  const std::string& error);
  void cell_done(int lane, const std::string& cell, const std::string& status);
  void lane_message(int lane, const std::string& text);
  void lane_state(int lane, const std::string& text);

  // Callers hold mu_.
  void draw();
  void erase();
  void log(int lane, const std::string& line);
  double elapsed_s() const;
  std::string& current(int lane);
  bool multi() const { return lanes_.size() > 1; }

  std::mutex mu_;
  std::FILE* out_;
  bool tty_, quiet_;
  std::chrono::steady_clock::time_point start_;
  int cells_total_ = 0, cells_done_ = 0, runs_total_ = 0, runs_done_ = 0;
  std::vector<std::string> lanes_;    // host per lane (empty: one unnamed lane)
  std::vector<std::string> current_;  // what each lane is doing
  int drawn_lines_ = 0;               // lines of the bar area on the terminal
};

}  // namespace topolab::experiment
