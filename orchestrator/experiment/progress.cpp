#include "orchestrator/experiment/progress.hpp"

#include <unistd.h>

#include <cmath>

#include "common/terminal_text.hpp"

namespace topolab::experiment {

Progress::Progress(std::FILE* out, bool tty, bool quiet)
    : out_(out), tty_(tty), quiet_(quiet), start_(std::chrono::steady_clock::now()) {}

Progress Progress::for_stderr(bool quiet) { return Progress(stderr, isatty(2) == 1, quiet); }

std::string Progress::format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  long t = std::lround(s);
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  return buf;
}

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::log(const std::string& line) {
  if (quiet_) return;
  if (tty_ && bar_drawn_) std::fputs("\r\033[K", out_);
  // Cell labels, units and error texts come from guests and files: one sanitiser for the line.
  std::fprintf(out_, "[%s] %s\n", format_duration(elapsed_s()).c_str(),
               terminal_safe(line).c_str());
  if (tty_) draw();
  std::fflush(out_);
}

void Progress::draw() {
  if (quiet_ || !tty_) return;
  const int width = 24;
  double frac = runs_total_ ? static_cast<double>(runs_done_) / runs_total_ : 1.0;
  int filled = static_cast<int>(frac * width);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar += std::string(static_cast<std::size_t>(width - filled), '.');
  double el = elapsed_s();
  std::string eta =
      runs_done_ ? format_duration(el / runs_done_ * (runs_total_ - runs_done_)) : "?";
  std::string cur = terminal_safe(current_);
  if (cur.size() > 40) cur = cur.substr(0, 37) + "...";
  std::fprintf(out_, "\r\033[K[%s] cells %d/%d  runs %d/%d  %s  elapsed %s  ETA %s", bar.c_str(),
               cells_done_, cells_total_, runs_done_, runs_total_, cur.c_str(),
               format_duration(el).c_str(), eta.c_str());
  std::fflush(out_);
  bar_drawn_ = true;
}

void Progress::begin(int cells_total, int cells_done, int runs_total) {
  cells_total_ = cells_total;
  cells_done_ = cells_done;
  runs_total_ = runs_total;
  log("experiment: " + std::to_string(cells_total) + " cells (" + std::to_string(cells_done) +
      " already done), " + std::to_string(runs_total) + " benchmark runs to do");
}

void Progress::config_start(const std::string& label) {
  current_ = "booting " + label;
  log("boot " + label);
}

void Progress::boot_done(const std::string& label, double ms, bool mismatch) {
  char buf[64];
  std::snprintf(buf, sizeof buf, " ready in %.1f s", ms / 1000);
  log("boot " + label + buf + (mismatch ? " (topology MISMATCH: measured, flagged)" : ""));
}

void Progress::run_start(const std::string& cell, const std::string& benchmark, int rep) {
  current_ = cell + " " + benchmark + " #" + std::to_string(rep);
  draw();
}

void Progress::run_done(const std::string& cell, const std::string& benchmark, int rep,
                        double value, const std::string& unit, double ms) {
  ++runs_done_;
  char buf[96];  // the unit is bounded (protocol::kMaxUnitBytes); snprintf truncates anyway
  std::snprintf(buf, sizeof buf, ": %.4g %s (%.1f s)", value, unit.c_str(), ms / 1000);
  if (tty_)
    draw();
  else
    log("[" + std::to_string(runs_done_) + "/" + std::to_string(runs_total_) + "] " + cell + " " +
        benchmark + " #" + std::to_string(rep) + buf);
}

void Progress::run_failed(const std::string& cell, const std::string& benchmark, int rep,
                          const std::string& error) {
  ++runs_done_;
  log("FAILED " + cell + " " + benchmark + " #" + std::to_string(rep) + ": " + error);
}

void Progress::cell_done(const std::string& cell, const std::string& status) {
  ++cells_done_;
  log("cell " + cell + ": " + status + " (" + std::to_string(cells_done_) + "/" +
      std::to_string(cells_total_) + " cells)");
}

void Progress::message(const std::string& text) { log(text); }

void Progress::end() {
  if (quiet_) return;
  if (tty_ && bar_drawn_) {
    draw();
    std::fputs("\n", out_);
  }
  std::fflush(out_);
}

}  // namespace topolab::experiment
