#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang, ASan+UBSan) and runs each for a bounded time.
# Usage: bash scripts/fuzz.sh [--seconds N] [--only NAME] [--build-dir DIR] [--no-build]
#   --seconds N   run each target N seconds (default 20)
#   --only NAME   run only fuzz_NAME (repeatable), e.g. guest_data (guest line -> store -> report)
# Prints executions and findings per target; exits non-zero when any target found a crash,
# leak, timeout or out-of-memory. New corpus entries go to a temp dir (the repo corpus stays
# hand-made); findings are kept in $FUZZ_OUT (default build-fuzz/findings/<target>/).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SECONDS_PER_TARGET=20
BUILD_DIR=build-fuzz
BUILD=1
ONLY=()
while (($#)); do
  case "$1" in
    --seconds) SECONDS_PER_TARGET="$2"; shift 2 ;;
    --only) ONLY+=("$2"); shift 2 ;;
    --build-dir) BUILD_DIR="$2"; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ "$SECONDS_PER_TARGET" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: --seconds wants a number" >&2; exit 2; }
JOBS=${JOBS:-2}

if ((BUILD)); then
  command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (scripts/setup.sh)" >&2; exit 2; }
  echo "fuzz.sh: building fuzz targets in $BUILD_DIR ($(date +%T))"
  CC=clang CXX=clang++ cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTOPOLAB_FUZZ=ON -DTOPOLAB_BUILD_TESTS=OFF >/dev/null
  ninja -C "$BUILD_DIR" -j"$JOBS" fuzz_targets
fi

OUT=${FUZZ_OUT:-$ROOT/$BUILD_DIR/findings}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/topolab-fuzz.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

targets=()
for exe in "$BUILD_DIR"/fuzz/fuzz_*; do
  [[ -x "$exe" && -f "$exe" ]] || continue
  name=$(basename "$exe"); name=${name#fuzz_}
  if ((${#ONLY[@]})); then
    keep=0; for o in "${ONLY[@]}"; do [[ "$o" == "$name" ]] && keep=1; done
    ((keep)) || continue
  fi
  targets+=("$name")
done
((${#targets[@]})) || { echo "fuzz.sh: no fuzz targets built in $BUILD_DIR/fuzz" >&2; exit 2; }
# Every fuzz/<name>_fuzz.cpp must have run (issue 33): a target that failed to build, or was
# renamed in the build but not here, fails the stage instead of silently dropping out of it.
expected=()
for src in "$ROOT"/fuzz/*_fuzz.cpp; do
  name=$(basename "$src" _fuzz.cpp)
  if ((${#ONLY[@]})); then
    keep=0; for o in "${ONLY[@]}"; do [[ "$o" == "$name" ]] && keep=1; done
    ((keep)) || continue
  fi
  expected+=("$name")
done
for o in "${ONLY[@]}"; do
  [[ -f "$ROOT/fuzz/${o}_fuzz.cpp" ]] || { echo "fuzz.sh: --only $o: no fuzz/${o}_fuzz.cpp" >&2; exit 2; }
done
missing=()
for name in "${expected[@]}"; do
  [[ " ${targets[*]} " == *" $name "* ]] || missing+=("fuzz_$name")
done
if ((${#missing[@]})); then
  echo "fuzz.sh: not built in $BUILD_DIR/fuzz: ${missing[*]} (every fuzz/*_fuzz.cpp must run)" >&2
  exit 2
fi

failed=0
total_execs=0
printf '%-14s %10s %8s %6s %9s  %s\n' target execs exec/s cov corpus findings
for name in "${targets[@]}"; do
  exe="$BUILD_DIR/fuzz/fuzz_$name"
  seeds="$ROOT/fuzz/corpus/$name"
  work="$WORK/$name"; mkdir -p "$work" "$OUT/$name"
  # Inputs up to 128 KiB: the nesting that crashed toml++ was ~80 KB (issue 12), and CPU list
  # text is capped at 64 KiB (inputs past it must be refused). Capabilities documents get
  # 256 KiB: enough to name 1000s of full sibling lists (the expansion budget).
  case "$name" in
    capabilities) max_len=262144 ;;
    *) max_len=131072 ;;
  esac
  args=(-max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 -timeout=10
        -rss_limit_mb=2048 -max_len="$max_len" -artifact_prefix="$OUT/$name/")
  [[ -f "$ROOT/fuzz/dict/$name.dict" ]] && args+=(-dict="$ROOT/fuzz/dict/$name.dict")
  corpora=("$work"); [[ -d "$seeds" ]] && corpora+=("$seeds")
  log="$OUT/$name.log"
  rm -f "$OUT/$name"/crash-* "$OUT/$name"/leak-* "$OUT/$name"/timeout-* "$OUT/$name"/oom-*
  export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  rc=0
  # Inputs that once failed (fuzz/regressions/<target>/) are replayed first, once each.
  if compgen -G "$ROOT/fuzz/regressions/$name/*" >/dev/null; then
    "$exe" -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$OUT/$name/" "$ROOT/fuzz/regressions/$name"/* >"$log" 2>&1 || rc=$?
  fi
  if ((rc == 0)); then
    "$exe" "${args[@]}" "${corpora[@]}" >"$log" 2>&1 || rc=$?
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}' || true)
  corpus=$(ls "$work" | wc -l)
  findings=$(find "$OUT/$name" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' \
               -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  [[ -n "$execs" ]] && total_execs=$((total_execs + execs))
  status="0"
  # A target that exits at once (rc 0, no libFuzzer statistics) did not fuzz: a failure too.
  if ((rc == 0)) && [[ -z "$execs" || "$execs" == 0 ]]; then
    failed=1
    status="ran no executions (see $log)"
  elif ((rc != 0)); then
    failed=1
    status="$findings (rc=$rc, see $log)"
    grep -m3 -E 'ERROR: |SUMMARY: |runtime error' "$log" | sed 's/^/    /' >&2 || true
  fi
  printf '%-14s %10s %8s %6s %9s  %s\n' "$name" "${execs:-?}" "${rate:-?}" "${cov:-?}" \
    "$corpus" "$status"
done
echo "fuzz.sh: ${#targets[@]} targets, $total_execs executions in total, ${SECONDS_PER_TARGET}s each"
if ((failed)); then
  echo "fuzz.sh: FINDINGS (artifacts in $OUT)" >&2
  exit 1
fi
