#!/usr/bin/env bash
# A test of scripts/test.sh's skip accounting (issue 33): a CI run on a machine without wine
# (simulated: PATH holds links to every program but wine*) must fail and name the skipped Windows
# agent tests; outside CI the same run passes and only prints them; a listed skip whose condition
# holds passes in CI; a listed skip whose condition does not hold, and a listed test that ran,
# fail. Runs the real ctest definitions of the Windows tests (guest_agent_windows_tests, one
# process each, seconds: without wine they skip at once) in a private ctest tree, through
# scripts/ci-accounting.sh's accounted_ctest: the function test.sh calls per stage.
# Usage: skips_without_wine_test.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/topolab-skips.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$SRC/scripts/ci-accounting.sh"

# The discovered Windows tests and the bad-input harness's child test, as the build defined them.
for t in guest_agent_windows_tests badinput_tests; do
  f="$BUILD/tests/${t}[1]_tests.cmake"
  [[ -f "$f" ]] || fail "$f missing (build $t first)"
  cat "$f" >>"$TMP/CTestTestfile.cmake"
done
mapfile -t wine_tests < <(grep -rhoE 'TEST\(Windows[A-Za-z0-9]+, [A-Za-z0-9]+' \
  "$SRC"/tests/guest-agent/windows/*_wine_test.cpp | sed 's/TEST(//; s/, /./')
((${#wine_tests[@]} >= 10)) || fail "found ${#wine_tests[@]} wine tests in the sources, expected >= 10"

# PATH without wine: a folder of links to everything else on PATH.
mkdir "$TMP/bin"
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  for p in "$d"/*; do
    n=${p##*/}
    [[ "$n" == wine* || -e "$TMP/bin/$n" || ! -x "$p" ]] && continue
    ln -s "$p" "$TMP/bin/$n"
  done
done
PATH="$TMP/bin" command -v wine >/dev/null && fail "wine still on the reduced PATH"

windows='^Windows'
run() {  # $1: CI value, then accounted_ctest's stage name; output in $TMP/$2.out
  local ci=$1 name=$2 rc=0
  shift 2
  (export CI=$ci PATH="$TMP/bin"; accounted_ctest "$name" "$TMP" release "$@") \
    >"$TMP/$name.out" 2>&1 || rc=$?
  return "$rc"
}

# 1. CI without wine: fails, and names every skipped Windows test with wine as the reason.
run true nowine -R "$windows" && fail "CI=true without wine passed: $(cat "$TMP/nowine.out")"
for t in "${wine_tests[@]}"; do
  grep -q "check-skips: nowine: $t skipped" "$TMP/nowine.out" || fail "$t not named: $(cat "$TMP/nowine.out")"
done
grep -q "wine not in PATH" "$TMP/nowine.out" || fail "the reason (wine) not printed"
grep -qE "skips in stage 'nowine': [0-9]+ of" "$TMP/nowine.out" || fail "no skip count printed"
grep -q "unaccounted skip" "$TMP/nowine.out" || fail "no verdict line"

# 2. The same run outside CI passes (the skips are printed, not fatal).
run "" local -R "$windows" || fail "without CI the skips failed the run: $(cat "$TMP/local.out")"
grep -q "NOT LISTED" "$TMP/local.out" || fail "without CI the unlisted skips were not printed"

# 3. A listed skip whose condition holds (BadInputHarness.MisbehavesWhenAsked: always) passes CI.
run true listed -R '^BadInputHarness\.MisbehavesWhenAsked$' ||
  fail "a listed skip failed CI: $(cat "$TMP/listed.out")"
grep -q "expected: always" "$TMP/listed.out" || fail "listed skip not reported: $(cat "$TMP/listed.out")"

# 4. A listed skip whose condition does not hold, and a listed test that ran, fail CI.
printf '%s | sanitized-build | test\n' "${wine_tests[0]}" >"$TMP/list.txt"
printf 'WindowsAgentExe.* | always | test\n' >>"$TMP/list.txt"
rc=0
python3 "$SRC/scripts/check-skips.py" --stage list --junit "$TMP/junit-nowine.xml" \
  --list "$TMP/list.txt" --strict >"$TMP/list.out" 2>&1 || rc=$?
((rc == 1)) || fail "check-skips with a wrong list exited $rc: $(cat "$TMP/list.out")"
grep -q "${wine_tests[0]} skipped, but its condition 'sanitized-build'" "$TMP/list.out" ||
  fail "a listed skip whose condition does not hold was accepted: $(cat "$TMP/list.out")"
if grep -q "skipped WindowsAgentExe.ImportsOnlyWindowsSystemDlls" "$TMP/nowine.out"; then
  : # it skipped too (no objdump or no .exe): the 'ran' check has nothing to see
else
  grep -q "WindowsAgentExe.ImportsOnlyWindowsSystemDlls ran, but" "$TMP/list.out" ||
    fail "a listed test that ran was accepted: $(cat "$TMP/list.out")"
fi
echo "skips_without_wine: ${#wine_tests[@]} Windows tests named when wine is missing; list checks hold"
