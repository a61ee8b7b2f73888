#!/usr/bin/env bash
# Regenerates the golden files (issue 33) and prints what changed, for review before a commit.
# The golden tests (tests/support/golden.hpp) write their output under TOPOLAB_UPDATE_GOLDEN=1 and
# still fail where it differs from the committed file, so their failures here are the list of
# changed goldens; the diff below is what to review. Refused in CI (CI set): CI only compares.
# Usage: bash scripts/update-goldens.sh [BUILD_DIR]   (default build; builds the two programs)
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -n "${CI:-}" ]]; then
  echo "update-goldens.sh: CI is set: CI compares with the committed goldens, never rewrites them" >&2
  exit 1
fi
BUILD=${1:-build}
# The programs whose tests compare with goldens: tests/orchestrator/{report,domain}.
PROGRAMS=(orchestrator_results_report_tests orchestrator_planning_domain_tests)
GOLDEN_DIRS=(tests/orchestrator/results/report/data tests/orchestrator/planning/domain/data)
[[ -f "$BUILD/build.ninja" ]] || cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$BUILD" -j"${JOBS:-2}" "${PROGRAMS[@]}"
for p in "${PROGRAMS[@]}"; do
  echo "update-goldens.sh: $p (a failure names a golden that changed)"
  TOPOLAB_UPDATE_GOLDEN=1 "$BUILD/tests/$p" --gtest_brief=1 || true
done
echo
if git diff --quiet -- "${GOLDEN_DIRS[@]}" && [[ -z "$(git ls-files -o --exclude-standard -- "${GOLDEN_DIRS[@]}")" ]]; then
  echo "update-goldens.sh: no golden file changed"
  exit 0
fi
git --no-pager diff --stat -- "${GOLDEN_DIRS[@]}"
git ls-files -o --exclude-standard -- "${GOLDEN_DIRS[@]}" | sed 's/^/new golden: /'
git --no-pager diff -- "${GOLDEN_DIRS[@]}"
echo "update-goldens.sh: review the diff above, then commit the golden files with the change"
