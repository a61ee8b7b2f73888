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

bash scripts/setup.sh

stage() { echo; echo "=== $* ($(date +%T))"; }

stage "release build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build -j"$JOBS"

stage "unit tests"
(cd build && ctest -L unit -j"$JOBS" --output-on-failure)

if ((QUICK)); then exit 0; fi

# The own-disk tests' Debian disk (issue 14): built here, in its own stage, so its first build
# (debootstrap, ~8 min) is timed apart and outside ctest's per-test timeout; cached afterwards.
stage "own-guest test disk (debootstrap; cached in /var/cache/topolab-test)"
bash scripts/build-test-disk.sh build/guest-agent/topolab-agent guest-agent/topolab-agent.service

stage "integration tests (real libvirt + QEMU guests)"
(cd build && ctest -L integration --output-on-failure)

stage "package (.deb built, unpacked away from the source and build trees, run there)"
(cd build && ctest -L package --output-on-failure)

stage "ASan+UBSan build"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTOPOLAB_SANITIZE=ON >/dev/null
ninja -C build-asan -j"$JOBS"
# The sanitized agent is dynamic and cannot be a guest's /init: images take the release one.
export TOPOLAB_AGENT_BINARY="$ROOT/build/guest-agent/topolab-agent"
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
stage "unit tests under ASan+UBSan"
(cd build-asan && ctest -L unit -j"$JOBS" --output-on-failure)
# The sanitized orchestrator through real experiments and faults (QEMU killed, agent garbage
# and hang); the other real-guest cases ran in the release stage.
stage "integration subset under ASan+UBSan (real guests)"
(cd build-asan && ctest -L integration --output-on-failure \
  -R 'ExperimentRun.TwoBoots|Faults.QemuKilled|Faults.AgentGarbage')
unset TOPOLAB_AGENT_BINARY ASAN_OPTIONS UBSAN_OPTIONS

stage "ThreadSanitizer build (threaded code only) + its unit tests"
JOBS="$JOBS" bash scripts/tsan.sh

if [[ -x scripts/fuzz.sh ]]; then
  stage "fuzz targets (bounded)"
  bash scripts/fuzz.sh --seconds "${FUZZ_SECONDS:-10}"
fi

stage "all tests passed"
