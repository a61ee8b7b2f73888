#include "guest-agent/bench/cpu_pairs.hpp"

#include <algorithm>

namespace topolab::bench {

Result<CpuPairs> plan_cpu_pairs(const std::string& benchmark, const CpuList& cpus,
                                const std::string& pairs, std::size_t max_pairs) {
  const bool first_only = pairs == "first";
  const std::size_t n = cpus.size();
  const std::size_t planned = n < 2 ? 0 : first_only ? n - 1 : n * (n - 1) / 2;
  if (planned > max_pairs) {
    return make_error(ErrorKind::input, benchmark + ": " + std::to_string(planned) +
                                            " CPU pairs, more than " + std::to_string(max_pairs) +
                                            "; name fewer cpus or use pairs=first");
  }
  CpuPairs out;
  out.reserve(planned);
  const auto& ids = cpus.ids();
  const std::size_t rows = first_only ? std::min<std::size_t>(n, 1) : n;
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) out.emplace_back(ids[i], ids[j]);
  }
  return out;
}

}  // namespace topolab::bench
