#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "common/result.hpp"

namespace topolab::bench {

// Steal ticks (USER_HZ) of the aggregate "cpu " line of /proc/stat text: the 8th value.
Result<std::uint64_t> parse_steal_ticks(std::string_view proc_stat);
// From the live /proc/stat; nullopt when unreadable (/proc not mounted, or Windows).
std::optional<std::uint64_t> read_steal_ticks();

}  // namespace topolab::bench
