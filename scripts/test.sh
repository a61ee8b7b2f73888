#!/usr/bin/env bash
# The full test suite, as CI runs it: setup, release build + all tests (unit and real-guest
# integration), then an ASan+UBSan build of the unit tests, a ThreadSanitizer build of the
# threaded code and its tests (scripts/tsan.sh), and the bounded fuzz runs.
# The .deb is built and tried unpacked (ctest -L package) after the integration tests.
# Usage: bash scripts/test.sh [--quick]   (--quick: release build and unit tests only)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
JOBS=${JOBS:-$(nproc)}
QUICK=0
[[ "${1:-}" == "--quick" ]] && QUICK=1

# CI honesty checks (issue 33): the golden guard, skip accounting, the boot-retry count.
source scripts/ci-accounting.sh
refuse_golden_update

bash scripts/setup.sh --test

stage() { echo; echo "=== $* ($(date +%T))"; }

# Boot retries (issue 33): GuestSession appends one line per retried boot here; after the
# integration stage scripts/count-retries.py fails it when more boots needed a real (not planted)
# retry than the measured TCG hang rate explains.
export TOPOLAB_BOOT_RETRY_LOG="$ROOT/build/boot-retries.jsonl"

# A full disk fails builds and tests far from the cause (an assembler's "No space left", a test's
# temporary file): say it first. Measured (6 Dec 2026, a clean clone, peak of `df` every 30 s):
# the suite wrote 9.8 GiB (release tree 3.7, ASan 5.4, TSan 0.3, run folders) beside an
# own-guest test disk cache that already existed (3 GiB more on a new machine). The test
# programs share one precompiled header; one each made it 8 GiB more per tree.
free_gib=$(($(df --output=avail -k "$ROOT" | tail -1) / 1048576))
if ((free_gib < 16)); then
  echo "test.sh: warning: only $free_gib GiB free on $(df --output=target "$ROOT" | tail -1); the" \
    "full suite needs about 13 GiB (16 to be safe)" >&2
fi

# The own-guest test disk is built in the background, in its own process groups (setsid: an early
# exit of this script stops all of it; build-test-disk.sh's trap unmounts and removes its work
# folder): its root (debootstrap, ~8 min on a fresh machine, mostly downloading and unpacking
# packages) from here on, beside the release build; the disk itself (the root plus the new agent)
# once the agent is built, beside the unit tests. The disk stage below waits for both.
ROOT_LOG="$ROOT/build/test-disk-root.log"
DISK_LOG="$ROOT/build/test-disk.log"
root_pid=""
disk_pid=""
stop_background() {
  local p
  # The group, and the pid itself in case setsid has not run yet (an early failure).
  for p in $root_pid $disk_pid $asan_pid; do
    kill -TERM -- -"$p" 2>/dev/null || true
    kill -TERM "$p" 2>/dev/null || true
  done
  wait
}
# $1: pid, $2: its log, $3: what it built
wait_background() {
  local rc=0
  wait "$1" || rc=$?
  cat "$2"
  ((rc == 0)) || { echo "test.sh: building $3 failed (exit $rc)" >&2; exit 1; }
}
if ((!QUICK)); then
  mkdir -p build
  trap stop_background EXIT
  setsid bash scripts/build-test-disk.sh --root-only >"$ROOT_LOG" 2>&1 &
  root_pid=$!
fi

# The ASan+UBSan build, then the TSan one, run in the background from the unit tests on, under
# SCHED_IDLE: they take only the CPU time the tests and guests leave (the integration stage
# mostly waits on boots, bounds and shutdowns), so they neither slow nor load the TCG guests, and
# the stages below find most of them built. (Building them after the integration stage made the
# suite longer than CI's 90 minutes.) The ASan stage waits for the ASan build, the TSan one for
# the rest.
ASAN_LOG="$ROOT/build/asan-build.log"
ASAN_DONE="$ROOT/build/asan-build.done"
rm -f "$ASAN_DONE"
asan_pid=""
build_asan() {
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTOPOLAB_SANITIZE=ON >/dev/null
  # What the two ASan stages below run: every unit test program (with topolab, the agents and the
  # libraries they depend on) and the two real-guest programs of the subset; not the other
  # integration programs nor the benchmarks, which no ASan stage runs (about a tenth of the build).
  ASAN_IT=(tests/integration_experiment_tests tests/integration_faults_tests)
  mapfile -t asan_targets < <(ninja -C build-asan -t targets all |
    sed -n 's#^\(tests/[a-z0-9_]*_tests\): .*#\1#p' | grep -v '^tests/integration_')
  ((${#asan_targets[@]} > 10)) || { echo "test.sh: no unit test programs in build-asan" >&2; exit 1; }
  ninja -C build-asan -j"$JOBS" "${asan_targets[@]}" "${ASAN_IT[@]}"
  touch "$ASAN_DONE"  # the ASan stages may start; the TSan build goes on beside them
  # Then the TSan build, the same way (its stage below only runs it).
  JOBS="$JOBS" bash scripts/tsan.sh --build-only
}

stage "release build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build -j"$JOBS"

if ((!QUICK)); then
  # Waits for the root job's lock (build-test-disk.sh takes one builder at a time).
  setsid bash scripts/build-test-disk.sh build/guest-agent/topolab-agent \
    guest-agent/topolab-agent.service >"$DISK_LOG" 2>&1 &
  disk_pid=$!
fi

if ((!QUICK)); then
  # SCHED_IDLE where the kernel allows it, else the lowest nice level.
  idle=(chrt --idle 0)
  "${idle[@]}" true 2>/dev/null || idle=(nice -n 19)
  setsid "${idle[@]}" bash -c "$(declare -f build_asan); JOBS=$JOBS; ASAN_DONE='$ASAN_DONE'; set -euo pipefail; build_asan" \
    >"$ASAN_LOG" 2>&1 &
  asan_pid=$!
fi

stage "unit tests"
accounted_ctest unit build release -L unit -j"$JOBS" --output-on-failure

if ((QUICK)); then exit 0; fi

# The own-disk tests' Debian disk (issue 14): built in the background (above) and waited for
# here, outside ctest's per-test timeout; cached afterwards. This stage's time is what the
# background build did not hide.
stage "own-guest test disk (debootstrap in the background since setup; cached in /var/cache/topolab-test)"
wait_background "$root_pid" "$ROOT_LOG" "the test disk's root"
wait_background "$disk_pid" "$DISK_LOG" "the test disk"
root_pid=""
disk_pid=""

stage "integration tests (real libvirt + QEMU guests)"
rm -f "$TOPOLAB_BOOT_RETRY_LOG"
accounted_ctest integration build release -L integration --output-on-failure
python3 scripts/count-retries.py "$TOPOLAB_BOOT_RETRY_LOG"

stage "package (.deb built, unpacked away from the source and build trees, run there)"
accounted_ctest package build release -L package --output-on-failure

stage "ASan+UBSan build (in the background since the unit tests)"
while [[ ! -e "$ASAN_DONE" ]]; do
  if ! kill -0 "$asan_pid" 2>/dev/null; then
    wait_background "$asan_pid" "$ASAN_LOG" "the ASan+UBSan programs"
    echo "test.sh: the background builds ended before the ASan+UBSan build was done" >&2
    exit 1
  fi
  sleep 5
done
# The sanitized agent is dynamic and cannot be a guest's /init: images take the release one.
export TOPOLAB_AGENT_BINARY="$ROOT/build/guest-agent/topolab-agent"
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
stage "unit tests under ASan+UBSan"
accounted_ctest asan-unit build-asan sanitized -L unit -j"$JOBS" --output-on-failure --no-tests=error
# The sanitized orchestrator through real experiments and faults (QEMU killed, agent garbage
# and hang); the other real-guest cases ran in the release stage.
stage "integration subset under ASan+UBSan (real guests)"
# All three must exist: a renamed test fails this stage instead of silently dropping out of it.
ASAN_SUBSET='ExperimentRun.TwoBoots|Faults.QemuKilled|Faults.AgentGarbage'
n=$(cd build-asan && ctest -N -L integration -R "$ASAN_SUBSET" | grep -c ' Test *#' || true)
((n == 3)) || { echo "test.sh: the ASan integration subset selects $n tests, not 3" >&2; exit 1; }
accounted_ctest asan-integration build-asan sanitized -L integration --output-on-failure \
  -R "$ASAN_SUBSET"
unset TOPOLAB_AGENT_BINARY ASAN_OPTIONS UBSAN_OPTIONS

stage "ThreadSanitizer unit tests (threaded code only; built in the background after the ASan build)"
wait_background "$asan_pid" "$ASAN_LOG" "the TSan programs"
asan_pid=""
JOBS="$JOBS" bash scripts/tsan.sh --no-build

# Always (it was skipped silently when scripts/fuzz.sh lost its x bit).
stage "fuzz targets (bounded)"
bash scripts/fuzz.sh --seconds "${FUZZ_SECONDS:-10}"

stage "all tests passed"
