#!/usr/bin/env bash
# What the release build of topolab + topolab-agent costs in CPU-seconds (issue 31), measured
# per translation unit by a compiler launcher (ccache off), and what the heavy third-party
# headers cost: each compiled alone with the project's flags, times the translation units that
# include it (from ninja's dependency log). Prints the total, the slowest units, the cost per
# folder and per header.
# Usage: [BUILD_TYPE=Release] bash bench/build/build-cost.sh [SOURCE_DIR] [-j N] [TARGETS...]
#   (default: this tree, -j 2, topolab topolab-agent). Writes only under a temporary folder.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
jobs=2
targets=()
while (($#)); do
  case "$1" in
    -j) jobs=$2; shift 2 ;;
    -*) echo "usage: build-cost.sh [SOURCE_DIR] [-j N] [TARGETS...]" >&2; exit 2 ;;
    *) if [[ -d "$1" && ${#targets[@]} -eq 0 && "$1" == */* ]]; then src=$(cd "$1" && pwd); else targets+=("$1"); fi; shift ;;
  esac
done
((${#targets[@]})) || targets=(topolab topolab-agent)
tmp=$(mktemp -d /tmp/topolab-build-cost-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export BUILD_COST_LOG=$tmp/cost.log
: >"$BUILD_COST_LOG"
export BUILD_COST_CXX=${CXX:-c++}
start=$(date +%s)
CCACHE_DISABLE=1 cmake -S "$src" -B "$tmp/b" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  -DCMAKE_CXX_COMPILER="$here/cxx-timed.sh" >"$tmp/cmake.log"
: >"$BUILD_COST_LOG" # the compiler checks of configuring are not the build
CCACHE_DISABLE=1 ninja -C "$tmp/b" -j"$jobs" "${targets[@]}" >"$tmp/ninja.log"
wall=$(($(date +%s) - start))
steps=$(wc -l <"$BUILD_COST_LOG")
total=$(awk '{s += $1 + $2} END {printf "%.0f", s}' "$BUILD_COST_LOG")
echo "build-cost: $src (${BUILD_TYPE:-RelWithDebInfo}), targets ${targets[*]}: $steps compile steps, $total CPU-seconds, $wall s wall at -j$jobs (load $(cut -d' ' -f1 /proc/loadavg))"
echo "--- slowest translation units (CPU s)"
awk '{printf "%7.1f %s\n", $1 + $2, $3}' "$BUILD_COST_LOG" | sort -rn | head -15
echo "--- per folder (CPU s)"
awk '{f = $3; sub(/\.dir\/.*/, "", f); sub(/.*CMakeFiles\//, "", f); s[f] += $1 + $2; n[f]++}
     END {for (f in s) printf "%7.1f %3d %s\n", s[f], n[f], f}' "$BUILD_COST_LOG" | sort -rn | head -25
echo "--- heavy headers: parsed alone (CPU s) x units including them = estimated share"
ninja -C "$tmp/b" -t deps >"$tmp/deps.txt"
for h in nlohmann/json.hpp CLI/CLI.hpp spdlog/spdlog.h fmt/format.h toml++/toml.h pugixml.hpp \
  sqlite3.h libvirt/libvirt.h gtest/gtest.h; do
  units=$(grep -c "/usr/include/$h\$" "$tmp/deps.txt" || true)
  ((units)) || continue
  echo "#include <$h>" >"$tmp/one.cpp"
  t0=$( (c++ -std=c++20 -O2 -g -fsyntax-only "$tmp/one.cpp" >/dev/null 2>&1; times) | tail -1)
  u=${t0%% *}; s=${t0##* }
  cost=$(awk -v u="$u" -v s="$s" 'BEGIN{split(u,a,"m"); split(s,b,"m"); printf "%.2f", a[1]*60+a[2]+b[1]*60+b[2]}')
  awk -v h="$h" -v c="$cost" -v n="$units" 'BEGIN{printf "%6.2f x %3d = %6.0f  %s\n", c, n, c*n, h}'
done
