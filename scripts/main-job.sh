#!/usr/bin/env bash
# The main job: install what is needed, build, run example (a) (exposure flat/sockets/dies x
# pinned/unpinned on the sqrt benchmark) on the built-in guest with 10 repetitions, and print the
# report table. Works on a fresh Debian 12 machine as root (TCG where KVM is unusable).
# 10 repetitions: the report gives a verdict only from statistics::kMinRunsPerSide (5) runs per
# side, and 4 differences Holm-corrected need more than 5 to detect anything but a huge change.
# Repetitions run inside one boot per configuration (6 boots either way), so they are cheap.
# Usage: bash scripts/main-job.sh [--store FILE] [--repetitions N]
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
STORE=${STORE:-/var/lib/topolab/main-job.db}
REPS=10
while (($#)); do
  case "$1" in
    --store) STORE=$2; shift 2 ;;
    --repetitions) REPS=$2; shift 2 ;;
    *) echo "usage: bash scripts/main-job.sh [--store FILE] [--repetitions N]" >&2; exit 2 ;;
  esac
done

bash scripts/setup.sh
echo "=== release build ($(date +%T))"
# Release, not the test suite's RelWithDebInfo: without -g the two programs cost 196 CPU-seconds
# instead of 279 (bench/build/build-cost.sh, issue 31), the largest part of a fresh machine's
# main job; `bash scripts/test.sh` configures the tree back to RelWithDebInfo (ccache keeps both).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build -j"$JOBS" topolab topolab-agent
mkdir -p "$(dirname "$STORE")"
echo "=== topolab run examples/exposure-sqrt.toml --repetitions $REPS --store $STORE ($(date +%T))"
start=$(date +%s)
rc=0
./build/orchestrator/topolab run examples/exposure-sqrt.toml --repetitions "$REPS" \
  --store "$STORE" || rc=$?
echo "=== run finished in $(( $(date +%s) - start )) s (exit $rc)"
echo "=== topolab report $STORE"
./build/orchestrator/topolab report "$STORE"
./build/orchestrator/topolab report "$STORE" --format html -o "${STORE%.db}.html"
echo "HTML report: ${STORE%.db}.html"
exit "$rc"
