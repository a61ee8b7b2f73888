#include "guest-agent/bench/steal.hpp"

#include <charconv>

#include "guest-agent/os.hpp"

namespace topolab::bench {

Result<std::uint64_t> parse_steal_ticks(std::string_view text) {
  std::string_view line;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view l = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (l.substr(0, 4) == "cpu ") {
      line = l.substr(4);
      break;
    }
  }
  if (line.empty()) return make_error(ErrorKind::input, "/proc/stat: no aggregate 'cpu ' line");
  // user nice system idle iowait irq softirq steal ...
  std::uint64_t value = 0;
  for (int field = 0; field < 8; ++field) {
    auto start = line.find_first_not_of(' ');
    if (start == std::string_view::npos) {
      return make_error(ErrorKind::input,
                        "/proc/stat: 'cpu ' line has fewer than 8 values (no steal column)");
    }
    line = line.substr(start);
    auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), value);
    if (ec != std::errc())
      return make_error(ErrorKind::input, "/proc/stat: bad number in 'cpu ' line");
    line = line.substr(static_cast<std::size_t>(ptr - line.data()));
  }
  return value;
}

std::optional<std::uint64_t> read_steal_ticks() {
  auto text = agent::os::read_proc_stat();
  if (!text) return std::nullopt;
  auto steal = parse_steal_ticks(*text);
  if (!steal) return std::nullopt;
  return *steal;
}

}  // namespace topolab::bench
