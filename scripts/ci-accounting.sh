# CI honesty checks of scripts/test.sh (issue 33), sourced by it (and by tests/ci/, which
# exercise them): nothing here runs on its own.

# Golden files: the suite compares with the committed goldens and never rewrites them
# (tests/support/golden.hpp; scripts/update-goldens.sh regenerates). Called before anything is
# installed or built, so the refusal comes at once.
refuse_golden_update() {
  [[ -z "${TOPOLAB_UPDATE_GOLDEN+set}" ]] && return 0
  echo "test.sh: TOPOLAB_UPDATE_GOLDEN is set${CI:+ (CI=$CI)}: the test suite never rewrites" \
    "golden files; regenerate them with scripts/update-goldens.sh (prints the diff to review)" >&2
  exit 1
}

# Skip accounting: each ctest stage writes JUnit and scripts/check-skips.py prints its skips
# against tests/expected-skips.txt; with CI=true an unlisted skip, or a listed one whose
# condition does not hold here, fails the stage.
# $1: stage name, $2: build (or ctest) dir, $3: release|sanitized, then ctest's arguments.
# The JUnit file is DIR/junit-NAME.xml. Returns ctest's status, or 1 when only the skips failed.
accounted_ctest() {
  local name=$1 dir=$2 kind=$3 rc=0
  shift 3
  local junit flags=()
  junit="$(cd "$dir" && pwd)/junit-$name.xml"
  [[ "${CI:-}" == true ]] && flags+=(--strict)
  [[ "$kind" == sanitized ]] && flags+=(--sanitized)
  rm -f "$junit"
  (cd "$dir" && ctest "$@" --output-junit "$junit") || rc=$?
  python3 "$(dirname "${BASH_SOURCE[0]}")/check-skips.py" --stage "$name" --junit "$junit" \
    "${flags[@]}" || ((rc)) || rc=1
  return "$rc"
}
