#!/usr/bin/env bash
# ThreadSanitizer stage: builds only the threaded code and its tests (tests/tsan/CMakeLists.txt:
# one tsan_<folder>_tests per threaded test folder + topolab-agent-tsan) in build-tsan and runs
# each executable once (all its tests in one process).
# Usage: bash scripts/tsan.sh [--no-build | --build-only] [-- gtest args...]
# Exits non-zero on a build failure, a failed test or any TSan report (halt_on_error=1).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD_DIR=${TSAN_BUILD_DIR:-build-tsan}
JOBS=${JOBS:-2}
BUILD=1
RUN=1
GTEST_ARGS=()
while (($#)); do
  case "$1" in
    --no-build) BUILD=0; shift ;;
    --build-only) RUN=0; shift ;;
    --) shift; GTEST_ARGS=("$@"); break ;;
    -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
    *) echo "tsan.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

if ((BUILD)); then
  # -O1 -g1: TSan wants optimisation for speed and line tables for reports; full -g costs
  # about 20% more compile time and adds nothing to a race report.
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
    -DTOPOLAB_TSAN=ON >/dev/null
  ninja -C "$BUILD_DIR" -j"$JOBS" tsan_tests
fi
((RUN)) || exit 0
EXES=("$BUILD_DIR"/tests/tsan/tsan_*_tests)
[[ -x "${EXES[0]}" ]] || { echo "tsan.sh: no tsan_*_tests in $BUILD_DIR/tests/tsan" >&2; exit 2; }
EXE=${EXES[0]}  # the probe below

# halt_on_error: the first race fails the run (no flaky "passed with warnings").
# The agent children that HostBackend and the spawn benchmark exec inherit these options.
# libvirt allocates through glib's slice allocator, whose per-thread magazines TSan cannot see
# synchronised (glib is not instrumented): since libvirt's event loop runs on its own thread
# (virt/event_loop) that shows as a race inside g_slice_alloc0. always-malloc makes glib use
# malloc, which TSan intercepts, instead of hiding the report with a suppression.
export G_SLICE=always-malloc
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 history_size=4 \
suppressions=$ROOT/tests/tsan/tsan.supp ${TSAN_OPTIONS:-}"

# TSan (gcc 12's libtsan) puts its shadow memory at fixed addresses. Kernels with more mmap
# randomisation (vm.mmap_rnd_bits > 28, e.g. 32 on recent x86-64 defaults) place libraries
# inside those ranges and TSan dies at start-up with "FATAL: ThreadSanitizer: unexpected memory
# mapping". Probe once; if it happens, run without ASLR for this process tree only (setarch -R),
# and as a last resort, when root, lower vm.mmap_rnd_bits to 28 for the run and restore it.
PREFIX=()  # or: setarch <arch> -R
probe() { "${PREFIX[@]}" "$EXE" --gtest_list_tests >"$PROBE_LOG" 2>&1; }
mapping_error() { grep -q "unexpected memory mapping" "$PROBE_LOG"; }
PROBE_LOG=$(mktemp /tmp/topolab-tsan-probe.XXXXXX)
if ! probe && mapping_error && command -v setarch >/dev/null; then
  echo "tsan.sh: TSan cannot map its shadow with ASLR on" \
    "(vm.mmap_rnd_bits=$(sysctl -n vm.mmap_rnd_bits 2>/dev/null || echo ?)); using setarch -R"
  PREFIX=(setarch "$(uname -m)" -R)
fi
if ! probe && mapping_error && ((EUID == 0)); then
  old_bits=$(sysctl -n vm.mmap_rnd_bits)
  echo "tsan.sh: lowering vm.mmap_rnd_bits $old_bits -> 28 for the run"
  trap 'sysctl -qw vm.mmap_rnd_bits='"$old_bits" EXIT
  sysctl -qw vm.mmap_rnd_bits=28
  PREFIX=()
fi
if ! probe; then
  cat "$PROBE_LOG" >&2; rm -f "$PROBE_LOG"
  echo "tsan.sh: cannot start $EXE under TSan" >&2; exit 1
fi
rm -f "$PROBE_LOG"

start=$(date +%s)
failed=0
for exe in "${EXES[@]}"; do
  n=$(grep -c '^  ' <("${PREFIX[@]}" "$exe" --gtest_list_tests) || true)
  echo "tsan.sh: $(basename "$exe"): $n tests"
  # Bounded: a program that hangs (a death test's child waiting for a signal that never came)
  # fails its stage in 15 minutes, naming itself, instead of holding CI to its limit.
  timeout -k 10 900 "${PREFIX[@]}" "$exe" --gtest_brief=1 "${GTEST_ARGS[@]}" ||
    { echo "tsan.sh: $(basename "$exe") FAILED (exit $?; 124: over 900 s)" >&2; failed=1; }
done
((failed == 0)) || exit 1
echo "tsan.sh: threaded tests passed under TSan in $(($(date +%s) - start)) s"
