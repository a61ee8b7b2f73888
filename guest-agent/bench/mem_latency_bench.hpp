#pragma once
#include <cstdint>
#include <vector>

namespace topolab::bench {

// Deterministic 64-bit generator (splitmix64).
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }  // bias is irrelevant here
};

// Sattolo's algorithm: a uniformly random permutation that is one single cycle through all n
// elements; successor of i is result[i].
std::vector<std::uint32_t> sattolo_cycle(std::uint32_t n, std::uint64_t seed);

}  // namespace topolab::bench
