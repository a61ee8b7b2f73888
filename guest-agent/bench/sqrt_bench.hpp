#pragma once
// wPrime-like fixed work: square roots of 1..N by Newton's rule in double precision.
#include <cstdint>

namespace topolab::bench {

// Newton's rule x' = (x + k/x) / 2 from x0 = k, stopped when it no longer decreases.
double newton_sqrt(double k);

struct SqrtWork {
  std::uint64_t checksum = 0;  // sum of floor(sqrt(k)) over the range
  std::uint64_t failures = 0;  // results whose floor s misses s*s <= k < (s+1)^2
};
// k in [first, last].
SqrtWork sqrt_range(std::uint64_t first, std::uint64_t last);

// Closed form of sum_{k=1..n} floor(sqrt(k)), independent of the Newton code.
std::uint64_t isqrt_sum_reference(std::uint64_t n);

}  // namespace topolab::bench
