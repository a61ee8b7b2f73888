#include "orchestrator/run/experiment/progress.hpp"

#include <unistd.h>

#include <cmath>

#include "common/interrupt_gate.hpp"
#include "common/terminal_text.hpp"

namespace topolab::experiment {

Progress::Progress(std::FILE* out, bool tty, bool quiet)
    : out_(out), tty_(tty), quiet_(quiet), start_(std::chrono::steady_clock::now()) {}

// A mutex does not move: the moved-to object gets a fresh one (nothing holds it yet).
Progress::Progress(Progress&& o) noexcept
    : out_(o.out_),
      tty_(o.tty_),
      quiet_(o.quiet_),
      start_(o.start_),
      lanes_(std::move(o.lanes_)),
      current_(std::move(o.current_)) {}

Progress Progress::for_stderr(bool quiet) { return Progress(stderr, isatty(2) == 1, quiet); }

void Progress::set_lanes(const std::vector<std::string>& hosts) {
  std::lock_guard lock(mu_);
  lanes_ = hosts;
  current_.assign(std::max<std::size_t>(hosts.size(), 1), "");
}

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

std::string& Progress::current(int lane) {
  if (current_.empty()) current_.assign(1, "");
  const auto i = static_cast<std::size_t>(lane);
  return current_[i < current_.size() ? i : 0];
}

// Clears the bar area (the bar and, with several hosts, one line per host under it).
void Progress::erase() {
  if (!tty_ || drawn_lines_ == 0) return;
  std::fputs("\r\033[K", out_);
  for (int i = 1; i < drawn_lines_; ++i) std::fputs("\033[1A\033[K", out_);
  drawn_lines_ = 0;
}

void Progress::log(int lane, const std::string& line) {
  // After SIGINT/SIGTERM the watcher's report is the last word: "FAILED ... agent closed the
  // connection" would be the interrupt's own cleanup told as a failure.
  interrupt::hold_if_interrupted();
  if (quiet_) return;
  erase();
  // With several hosts every line names its host; one host keeps the lines as they were.
  const std::string host =
      multi() && static_cast<std::size_t>(lane) < lanes_.size() ? lanes_[lane] + ": " : "";
  // Cell labels, units and error texts come from guests and files: one sanitiser for the line.
  std::fprintf(out_, "[%s] %s\n", format_duration(elapsed_s()).c_str(),
               terminal_safe(host + line).c_str());
  if (tty_) draw();
  std::fflush(out_);
}

void Progress::draw() {
  interrupt::hold_if_interrupted();
  if (quiet_ || !tty_) return;
  erase();
  const int width = 24;
  double frac = runs_total_ ? static_cast<double>(runs_done_) / runs_total_ : 1.0;
  int filled = static_cast<int>(frac * width);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar += std::string(static_cast<std::size_t>(width - filled), '.');
  double el = elapsed_s();
  std::string eta =
      runs_done_ ? format_duration(el / runs_done_ * (runs_total_ - runs_done_)) : "?";
  auto cut = [](std::string s, std::size_t n) {
    s = terminal_safe(s);
    return s.size() > n ? s.substr(0, n - 3) + "..." : s;
  };
  std::string cur = multi() ? "" : cut(current(0), 40) + "  ";
  std::fprintf(out_, "\r\033[K[%s] cells %d/%d  runs %d/%d  %selapsed %s  ETA %s", bar.c_str(),
               cells_done_, cells_total_, runs_done_, runs_total_, cur.c_str(),
               format_duration(el).c_str(), eta.c_str());
  drawn_lines_ = 1;
  if (multi()) {
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
      const std::string& state = i < current_.size() ? current_[i] : "";
      std::fprintf(out_, "\n  %s: %s", cut(lanes_[i], 48).c_str(),
                   state.empty() ? "waiting" : cut(state, 60).c_str());
      ++drawn_lines_;
    }
  }
  std::fflush(out_);
}

void Progress::begin(int cells_total, int cells_done, int runs_total) {
  std::lock_guard lock(mu_);
  cells_total_ = cells_total;
  cells_done_ = cells_done;
  runs_total_ = runs_total;
  log(-1, "experiment: " + std::to_string(cells_total) + " cells (" + std::to_string(cells_done) +
              " already done), " + std::to_string(runs_total) + " benchmark runs to do" +
              (multi() ? " on " + std::to_string(lanes_.size()) + " hosts" : ""));
}

void Progress::config_start(int lane, const std::string& label) {
  std::lock_guard lock(mu_);
  current(lane) = "booting " + label;
  log(lane, "boot " + label);
}

void Progress::boot_done(int lane, const std::string& label, double ms, bool mismatch) {
  std::lock_guard lock(mu_);
  char buf[64];
  std::snprintf(buf, sizeof buf, " ready in %.1f s", ms / 1000);
  log(lane, "boot " + label + buf + (mismatch ? " (topology MISMATCH: measured, flagged)" : ""));
}

void Progress::run_start(int lane, const std::string& cell, const std::string& benchmark, int rep) {
  std::lock_guard lock(mu_);
  current(lane) = cell + " " + benchmark + " #" + std::to_string(rep);
  draw();
}

void Progress::run_done(int lane, const std::string& cell, const std::string& benchmark, int rep,
                        double value, const std::string& unit, double ms) {
  std::lock_guard lock(mu_);
  ++runs_done_;
  char buf[96];  // the unit is bounded (protocol::kMaxUnitBytes); snprintf truncates anyway
  std::snprintf(buf, sizeof buf, ": %.4g %s (%.1f s)", value, unit.c_str(), ms / 1000);
  if (tty_)
    draw();
  else
    log(lane, "[" + std::to_string(runs_done_) + "/" + std::to_string(runs_total_) + "] " + cell +
                  " " + benchmark + " #" + std::to_string(rep) + buf);
}

void Progress::run_failed(int lane, const std::string& cell, const std::string& benchmark, int rep,
                          const std::string& error) {
  std::lock_guard lock(mu_);
  ++runs_done_;
  log(lane, "FAILED " + cell + " " + benchmark + " #" + std::to_string(rep) + ": " + error);
}

void Progress::cell_done(int lane, const std::string& cell, const std::string& status) {
  std::lock_guard lock(mu_);
  ++cells_done_;
  log(lane, "cell " + cell + ": " + status + " (" + std::to_string(cells_done_) + "/" +
                std::to_string(cells_total_) + " cells)");
}

void Progress::message(const std::string& text) {
  std::lock_guard lock(mu_);
  log(-1, text);
}

void Progress::lane_message(int lane, const std::string& text) {
  std::lock_guard lock(mu_);
  log(lane, text);
}

void Progress::lane_state(int lane, const std::string& text) {
  std::lock_guard lock(mu_);
  current(lane) = text;
  if (multi()) log(lane, text);
}

void Progress::end() {
  std::lock_guard lock(mu_);
  if (quiet_) return;
  if (tty_ && drawn_lines_ > 0) {
    draw();
    std::fputs("\n", out_);
    drawn_lines_ = 0;
  }
  std::fflush(out_);
}

}  // namespace topolab::experiment
