#include "orchestrator/virt/boot_watchdog.hpp"

#include <algorithm>
#include <deque>
#include <sstream>

#include "common/file_io.hpp"

namespace topolab::virt {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::uintmax_t file_size_or_zero(const std::filesystem::path& p) {
  std::error_code ec;
  auto n = std::filesystem::file_size(p, ec);
  return ec ? 0 : n;
}

}  // namespace

milliseconds derived_watchdog_bound(int vcpus, bool kvm) {
  const long long n = std::max(1, vcpus);
  return kvm ? milliseconds(10000 + 250 * n) : milliseconds(30000 + 1500 * n);
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

std::string console_panic_line(const std::filesystem::path& log) {
  auto text = read_file(log, 16u << 20);
  if (!text) return "";
  const auto at = text->find("Kernel panic - not syncing");
  if (at == std::string::npos) return "";
  const auto end = text->find('\n', at);
  return printable_line(text->substr(at, end == std::string::npos ? end : end - at));
}

std::string console_tail(const std::filesystem::path& log, std::size_t lines) {
  auto text = read_file(log, 16u << 20);
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
                           std::function<void()> on_hang)
    : console_(std::move(console)), bound_(bound), on_hang_(std::move(on_hang)) {
  thread_ = std::thread([this] { watch(); });
}

BootWatchdog::~BootWatchdog() { stop(); }

void BootWatchdog::stop() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

// Polls the file size: the console is written by QEMU (or virtlogd), not by us, so there is no
// event to wait on; 100 ms polls are far below any bound.
void BootWatchdog::watch() {
  const auto start = Clock::now();
  auto last_growth = start;
  std::uintmax_t size = file_size_or_zero(console_);
  if (size > 0) first_output_ms_ = 0;  // written before the watch began
  auto ms = [](Clock::duration d) -> long long {
    return std::chrono::duration_cast<milliseconds>(d).count();
  };
  std::unique_lock<std::mutex> lock(m_);
  while (!stopping_) {
    cv_.wait_for(lock, milliseconds(100));
    const auto now = Clock::now();
    max_silence_ms_ = std::max(max_silence_ms_, ms(now - last_growth));
    if (stopping_) return;
    const auto now_size = file_size_or_zero(console_);
    if (now_size != size) {
      if (first_output_ms_ < 0) first_output_ms_ = ms(now - start);
      size = now_size;
      last_growth = now;
      continue;
    }
    if (now - last_growth < bound_) continue;
    fired_after_ = milliseconds(ms(now - start));
    console_bytes_ = size;
    fired_ = true;
    lock.unlock();
    on_hang_();
    return;
  }
}

}  // namespace topolab::virt
