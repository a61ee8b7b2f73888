#include "orchestrator/libvirt/virt/boot_watchdog.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <fstream>
#include <sstream>

#include "common/file_io.hpp"

namespace topolab::virt {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

}  // namespace

milliseconds derived_watchdog_bound(int vcpus, bool kvm) {
  const long long n = std::max(1, vcpus);
  return kvm ? milliseconds(10000 + 250 * n) : milliseconds(30000 + 1500 * n);
}

milliseconds own_disk_watchdog_bound(int vcpus, bool kvm) {
  const long long n = std::max(1, vcpus);
  return kvm ? milliseconds(120000 + 2000 * n) : milliseconds(300000 + 15000 * n);
}

// "[" spaces digits "." six digits "]": the printk time prefix ("%5lu.%06lu", "[    0.021212]").
bool shows_kernel_start(std::string_view text) {
  if (text.find("Linux version ") != std::string_view::npos) return true;
  auto digits = [&](std::size_t& i) {
    const auto from = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > from;
  };
  for (auto at = text.find('['); at != std::string_view::npos; at = text.find('[', at + 1)) {
    auto i = at + 1;
    while (i < text.size() && text[i] == ' ') ++i;
    if (!digits(i) || i >= text.size() || text[i] != '.') continue;
    const auto fraction = ++i;
    if (digits(i) && i - fraction == 6 && i < text.size() && text[i] == ']') return true;
  }
  return false;
}

// "<host> login: ": agetty's prompt (on the serial console when the kernel's console is there).
bool shows_login_prompt(std::string_view text) {
  return text.find(" login: ") != std::string_view::npos;
}

// The kernel's own words (kernel/watchdog.c, kernel/rcu/tree_stall.h, kernel/workqueue.c,
// kernel/hung_task.c); each shorter than the scan's carried 32 bytes.
bool shows_stall_report(std::string_view text) {
  for (std::string_view marker : {"BUG: soft lockup", "hard LOCKUP", "rcu: INFO: ",
                                  "BUG: workqueue lockup", "blocked for more than"}) {
    if (text.find(marker) != std::string_view::npos) return true;
  }
  return false;
}

std::string verbose_cmdline(const std::string& cmdline) {
  std::istringstream in(cmdline);
  std::string word, out;
  while (in >> word) {
    if (word != "quiet") out += (out.empty() ? "" : " ") + word;
  }
  return out;
}

// Guest bytes: only printable ASCII reaches error messages and stored JSON (a cut or invalid
// UTF-8 sequence would make the JSON writer throw); lines cut at 200 characters.
std::string printable_line(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  }
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return line;
}

namespace {

// The first console line that `holds` (its text from where it starts to hold), printable and cut.
template <class Holds>
std::string first_console_line(const std::filesystem::path& log, Holds holds) {
  auto text = read_file(log, kMaxConsoleBytes);
  if (!text) return "";
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) {
    if (auto at = holds(line); at != std::string::npos) return printable_line(line.substr(at));
  }
  return "";
}

}  // namespace

std::string console_panic_line(const std::filesystem::path& log) {
  return first_console_line(
      log, [](const std::string& line) { return line.find("Kernel panic - not syncing"); });
}

// From the line's start past the printk timestamp: "watchdog: BUG: soft lockup - CPU#0 ...".
std::string console_stall_line(const std::filesystem::path& log) {
  return first_console_line(log, [](const std::string& line) -> std::size_t {
    if (!shows_stall_report(line)) return std::string::npos;
    const auto stamp = line.rfind("] ", 40);
    return line.rfind('[', 0) == 0 && stamp != std::string::npos ? stamp + 2 : 0;
  });
}

std::string console_tail(const std::filesystem::path& log, std::size_t lines) {
  auto text = read_file(log, kMaxConsoleBytes);
  if (!text || text->empty()) return "(console log empty)";
  std::deque<std::string> tail;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    tail.push_back(printable_line(line));
    if (tail.size() > lines) tail.pop_front();
  }
  std::string out;
  for (const auto& l : tail) out += (out.empty() ? "" : " / ") + l;
  return out;
}

BootWatchdog::BootWatchdog(std::filesystem::path console, milliseconds bound,
                           std::function<void()> on_hang, Mode mode, Arming arming)
    : console_(std::move(console)), bound_(bound), on_hang_(std::move(on_hang)) {
  if (arming == Arming::kAtStart) armed_ms_ = 0;
  markers_ = arming == Arming::kAtKernelStart;
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (mode == Mode::kInotify && stop_fd_ >= 0) open_inotify();
  thread_ = std::thread([this] { watch(); });
}

BootWatchdog::~BootWatchdog() {
  stop();
  if (inotify_fd_ >= 0) ::close(inotify_fd_);
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

void BootWatchdog::stop() {
  stopping_ = true;
  if (stop_fd_ >= 0) {
    const std::uint64_t one = 1;
    (void)!::write(stop_fd_, &one, sizeof(one));
  }
  if (thread_.joinable()) thread_.join();
}

// The folder, not the file: the console may be created after the watch began, and inotify
// reports writes to it by name. Any failure leaves inotify_fd_ at -1: the watch then polls.
void BootWatchdog::open_inotify() {
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return;
  const auto dir = console_.has_parent_path() ? console_.parent_path() : std::filesystem::path(".");
  if (::inotify_add_watch(fd, dir.c_str(), IN_MODIFY | IN_CREATE | IN_MOVED_TO) < 0) {
    ::close(fd);
    return;
  }
  inotify_fd_ = fd;
}

// Reads the pending events (a fixed buffer, at most kMaxReads reads per wake-up, so a flood of
// events from other files in the folder cannot keep the thread here); true when one names the
// console file, or when the queue overflowed or could not be read (then only a stat can tell).
bool BootWatchdog::drain_inotify() {
  constexpr int kMaxReads = 16;
  alignas(inotify_event) char buf[4096];
  const std::string name = console_.filename().string();
  bool ours = false;
  for (int i = 0; i < kMaxReads; ++i) {
    const ssize_t n = ::read(inotify_fd_, buf, sizeof(buf));
    if (n <= 0) return ours || (n < 0 && errno != EAGAIN && errno != EINTR);
    for (ssize_t at = 0; at + static_cast<ssize_t>(sizeof(inotify_event)) <= n;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(buf + at);
      if ((ev->mask & IN_Q_OVERFLOW) != 0) ours = true;
      if (ev->len > 0 && name == ev->name) ours = true;  // ev->name is NUL-padded
      at += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
    }
  }
  return true;  // more left than one wake-up reads: look at the file
}

// Reads the console from scanned_ up to `size` (64 KiB at a time) for the markers (seen_kernel_,
// seen_login_, seen_stall_; sticky); a console that shrank (replaced) is read again from its
// beginning, one larger than kMaxConsoleBytes counts as started.
void BootWatchdog::scan_console(std::uintmax_t size) {
  if (size < scanned_) scanned_ = 0, carry_.clear();
  if (size > kMaxConsoleBytes) {
    seen_kernel_ = true;
    return;
  }
  std::ifstream in(console_, std::ios::binary);
  if (!in || !in.seekg(static_cast<std::streamoff>(scanned_))) return;
  std::string chunk(64u << 10, '\0');
  while (scanned_ < size && !seen_login_) {
    const auto want = std::min<std::uintmax_t>(chunk.size(), size - scanned_);
    in.read(chunk.data(), static_cast<std::streamsize>(want));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) return;
    scanned_ += got;
    carry_ += chunk.substr(0, got);
    seen_kernel_ = seen_kernel_ || shows_kernel_start(carry_);
    seen_login_ = seen_kernel_ && shows_login_prompt(carry_);
    seen_stall_ = seen_stall_ || shows_stall_report(carry_);
    constexpr std::size_t kKeep = 32;  // longer than any marker
    if (carry_.size() > kKeep) carry_.erase(0, carry_.size() - kKeep);
  }
}

// Sleeps in poll() until an inotify event, stop() or the end of the bound; polling mode wakes
// every 100 ms instead (far below any bound). The file size is the progress measure either way.
void BootWatchdog::watch() {
  const auto start = Clock::now();
  auto last_growth = start;  // progress: where the bound runs from
  auto last_byte = start;    // the console's last growth, progress or not
  std::uintmax_t size = file_size_or_zero(console_);
  auto ms = [](Clock::duration d) -> long long {
    return std::chrono::duration_cast<milliseconds>(d).count();
  };
  if (size > 0) first_output_ms_ = 0;  // written before the watch began
  // Own disks: armed at the kernel's first line; a login prompt ends the watch unfired.
  // Any boot: a stall report is noted (its bytes and all after it are no progress).
  auto markers = [&](std::uintmax_t bytes, long long at_ms) {
    if (bytes == 0) return false;
    scan_console(bytes);
    if (stall_ms_ < 0 && seen_stall_) stall_ms_ = at_ms;
    if (!markers_) return false;
    if (armed_ms_ < 0 && seen_kernel_) armed_ms_ = at_ms;
    if (seen_login_) stood_down_ms_ = at_ms;
    return seen_login_;
  };
  if (markers(size, 0)) return;
  for (;;) {
    const bool armed = armed_ms_ >= 0;
    const auto now = Clock::now();
    // Not armed: no deadline (only growth, or stop(), can change anything).
    auto wait = armed ? std::max<long long>(0, ms(last_growth + bound_ - now) + 1) : 1LL << 30;
    if (inotify_fd_ < 0) wait = std::min<long long>(wait, 100);
    pollfd fds[2] = {{stop_fd_, POLLIN, 0}, {inotify_fd_, POLLIN, 0}};
    const int nfds = inotify_fd_ >= 0 ? 2 : 1;
    if (stop_fd_ >= 0) {
      (void)::poll(fds, nfds, static_cast<int>(std::min<long long>(wait, 1 << 30)));
    } else {
      std::this_thread::sleep_for(milliseconds(std::min<long long>(wait, 100)));
    }
    ++wakeups_;
    const auto woke = Clock::now();
    if (armed) max_silence_ms_ = std::max(max_silence_ms_, ms(woke - last_byte));
    if (stopping_) return;
    if (nfds == 2 && (fds[1].revents & POLLIN) != 0 && !drain_inotify() &&
        (!armed || woke - last_growth < bound_)) {
      continue;  // another file in the folder changed
    }
    const auto now_size = file_size_or_zero(console_);
    if (now_size != size) {
      if (first_output_ms_ < 0) first_output_ms_ = ms(woke - start);
      const bool stalled_before = seen_stall_;
      if (markers(now_size, ms(woke - start))) return;
      size = now_size;
      // An armed watch's silence starts at the kernel's first line; after a stall report the
      // bound runs from the report, whatever the stuck kernel prints next.
      if (!stalled_before) last_growth = woke;
      last_byte = woke;
      continue;
    }
    if (!armed || woke - last_growth < bound_) continue;
    fired_after_ = milliseconds(ms(woke - start));
    console_bytes_ = size;
    fired_ = true;
    on_hang_();
    return;
  }
}

}  // namespace topolab::virt
