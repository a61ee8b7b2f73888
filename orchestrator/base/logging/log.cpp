#include "orchestrator/base/logging/log.hpp"

#include <spdlog/details/log_msg.h>
#include <spdlog/details/os.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "common/file_io.hpp"
#include "common/terminal_text.hpp"

namespace topolab::logging {
namespace {

spdlog::level::level_enum to_spdlog(Level l) {
  switch (l) {
    case Level::trace:
      return spdlog::level::trace;
    case Level::debug:
      return spdlog::level::debug;
    case Level::info:
      return spdlog::level::info;
    case Level::warn:
      return spdlog::level::warn;
    case Level::error:
      return spdlog::level::err;
    case Level::off:
      return spdlog::level::off;
  }
  return spdlog::level::info;
}

// Writes one whole line with write(2), retrying short writes; a failing log never fails a run.
void write_line(int fd, std::string_view line) {
  while (!line.empty()) {
    ssize_t n = ::write(fd, line.data(), line.size());
    if (n <= 0) return;
    line.remove_prefix(static_cast<std::size_t>(n));
  }
}

// stderr in the form the user has always seen: "topolab: MESSAGE" for information,
// "topolab: warning: MESSAGE" etc. above and below it. Guest and file text is made visible
// (terminal_safe) as in every other stderr line.
class StderrSink : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    std::string line = "topolab: ";
    switch (msg.level) {
      case spdlog::level::trace:
        line += "trace: ";
        break;
      case spdlog::level::debug:
        line += "debug: ";
        break;
      case spdlog::level::warn:
        line += "warning: ";
        break;
      case spdlog::level::err:
      case spdlog::level::critical:
        line += "error: ";
        break;
      default:
        break;
    }
    line += terminal_safe(bounded_text(std::string_view(msg.payload.data(), msg.payload.size())));
    line += '\n';
    write_line(STDERR_FILENO, line);
  }
  void flush_() override {}
};

// The open run logs, newest last. A line goes to the newest log its own thread opened: with
// several hosts each worker thread boots into its own run folder at the same time, and "the
// newest of all" mixed one host's libvirt calls into the other's topolab.log. A thread that
// opened none (a stream bridge, the signal watcher) writes to the newest of all. One sink for
// the life of the process, so no logger is ever changed while another thread logs.
class RunFileSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  RunFileSink() {
    set_formatter_(std::make_unique<spdlog::pattern_formatter>(
        "%Y-%m-%dT%H:%M:%S.%eZ %-5l [%t] %v", spdlog::pattern_time_type::utc, "\n"));
  }
  std::uint64_t push(OwnedFd fd) {
    std::lock_guard<std::mutex> lock(mutex_);
    files_.push_back({++last_id_, spdlog::details::os::thread_id(), std::move(fd)});
    return last_id_;
  }
  void remove(std::uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = files_.begin(); it != files_.end(); ++it) {
      if (it->id == id) {
        files_.erase(it);
        return;
      }
    }
  }
  bool any_open() {
    std::lock_guard<std::mutex> lock(mutex_);
    return !files_.empty();
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (files_.empty()) return;
    // Guest text (agent errors, console tails) is escaped here too: `cat topolab.log` is safe.
    std::string safe = terminal_safe(std::string_view(msg.payload.data(), msg.payload.size()));
    spdlog::details::log_msg copy = msg;
    copy.payload = safe;
    spdlog::memory_buf_t formatted;
    formatter_->format(copy, formatted);
    write_line(file_for(msg.thread_id), std::string_view(formatted.data(), formatted.size()));
  }
  void flush_() override {}

 private:
  struct File {
    std::uint64_t id;
    std::size_t thread;  // spdlog's id of the thread that opened it (log_msg::thread_id)
    OwnedFd fd;
  };
  int file_for(std::size_t thread) const {
    for (auto it = files_.rbegin(); it != files_.rend(); ++it) {
      if (it->thread == thread) return it->fd.get();
    }
    return files_.back().fd.get();
  }
  std::vector<File> files_;
  std::uint64_t last_id_ = 0;
};

struct State {
  std::shared_ptr<StderrSink> console = std::make_shared<StderrSink>();
  std::shared_ptr<RunFileSink> run_file = std::make_shared<RunFileSink>();
  std::shared_ptr<spdlog::logger> file_only;
  std::shared_ptr<spdlog::logger> logger;
  std::atomic<Level> level{Level::info};

  State() {
    console->set_level(spdlog::level::info);
    run_file->set_level(spdlog::level::debug);
    logger =
        std::make_shared<spdlog::logger>("topolab", spdlog::sinks_init_list{console, run_file});
    logger->set_level(spdlog::level::trace);
    logger->flush_on(spdlog::level::trace);  // both sinks write at once; nothing to flush
    file_only = std::make_shared<spdlog::logger>("topolab-run", run_file);
    file_only->set_level(spdlog::level::trace);
  }
};

// Built on first use, never destroyed: threads may still log while static objects go away.
State& state() {
  static State* s = new State();
  return *s;
}

}  // namespace

std::optional<Level> parse_level(std::string_view name) {
  if (name == "trace") return Level::trace;
  if (name == "debug") return Level::debug;
  if (name == "info") return Level::info;
  if (name == "warn" || name == "warning") return Level::warn;
  if (name == "error") return Level::error;
  if (name == "off") return Level::off;
  return std::nullopt;
}

void set_console_level(Level level) {
  state().level = level;
  state().console->set_level(to_spdlog(level));
}

Level console_level() { return state().level; }

bool enabled(Level level) {
  if (level == Level::off) return false;
  if (level >= state().level) return true;
  return level >= Level::debug && state().run_file->any_open();
}

void write(Level level, std::string_view message) {
  state().logger->log(to_spdlog(level), "{}", message);
}

void to_run_log(std::string_view message) {
  state().file_only->log(spdlog::level::info, "{}", message);
}

Result<RunLog> RunLog::open(const std::filesystem::path& run_dir) {
  // The log is private: only into a folder of our own (not a link, not another user's).
  TL_TRY_CTX(check_private_dir(run_dir), "run log");
  TL_ASSIGN_CTX(auto fd, open_private_append(run_dir / kFileName), "run log");
  return RunLog(state().run_file->push(std::move(fd)));
}

RunLog& RunLog::operator=(RunLog&& other) noexcept {
  if (this != &other) {
    if (id_ != 0) state().run_file->remove(id_);
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

RunLog::~RunLog() {
  if (id_ != 0) state().run_file->remove(id_);
}

}  // namespace topolab::logging
