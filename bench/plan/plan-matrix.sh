#!/usr/bin/env bash
# The outputs of `topolab plan --json` and `topolab xml --json` over the preset x exposure x
# accelerator x policy matrix, on every capabilities fixture (tests/host/data/caps-*.xml) and
# every real sysfs capture (/work/shared/fixtures or FIXTURES), one file per run with its exit
# code and stderr. Two binaries' folders compared with `diff -r` show whether a refactoring
# changed what topolab plans or writes (issue 28: the planning stage moved, outputs must not):
#   bash bench/plan/plan-matrix.sh OLD/topolab /tmp/before && \
#   bash bench/plan/plan-matrix.sh build/orchestrator/topolab /tmp/after && diff -r /tmp/before /tmp/after
#   bash bench/plan/plan-matrix.sh TOPOLAB OUT_DIR [TEMPLATES_DIR]
# CAPTURES="name ..." limits the sysfs captures (archive names without .tar.bz2; default all);
# RESUME=1 skips runs whose file is complete; JOBS runs at a time (default 4).
set -euo pipefail
# shellcheck disable=SC2086 # $base: the options of one run, split on purpose
topolab=$(realpath "$1")
out=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
export TOPOLAB_TEMPLATES_DIR=${3:-$src/templates}
fixtures=${FIXTURES:-/work/shared/fixtures}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Host sources: --caps FILE for each capabilities fixture, --sysfs ROOT for each capture.
sources=()
for f in "$src"/tests/host/data/caps-*.xml; do sources+=("caps:$f"); done
for a in "$fixtures"/hwloc/*.tar.bz2 "$fixtures"/util-linux-epyc7451/*.tar.gz; do
  [ -e "$a" ] || continue
  name=$(basename "$(basename "$a" .tar.bz2)" .tar.gz)
  if [ -n "${CAPTURES:-}" ] && [[ " $CAPTURES " != *" $name "* ]]; then continue; fi
  mkdir -p "$work/$name"
  tar xf "$a" -C "$work/$name"
  top=$(find "$work/$name" -mindepth 1 -maxdepth 1 -type d | head -n 1)
  [ -d "$top/fsroot" ] && top=$top/fsroot
  sources+=("sysfs:$top")
done

# One run: stdout, then the exit code and stderr, in OUT/NAME. Runs are independent: JOBS at a
# time (default 4; each run is a few ms of CPU and mostly waits on a loaded machine).
jobs=$work/jobs
: >"$jobs"
job() {  # NAME ARGS...: one line of the job list (skipped when resuming and it is complete)
  if [ "${RESUME:-}" = 1 ] && grep -q '^--- exit' "$out/$1" 2>/dev/null; then return; fi
  echo "$*" >>"$jobs"
}
count=0
for s in "${sources[@]}"; do
  kind=${s%%:*}
  path=${s#*:}
  host=$(basename "$path" .xml)
  [ "$host" = fsroot ] && host=$(basename "$(dirname "$path")")
  for preset in "$TOPOLAB_TEMPLATES_DIR"/topologies/*.toml; do
    p=$(basename "$preset" .toml)
    for expose in flat sockets dies numa; do
      for policy in l3-aligned compact scatter unpinned; do
        base="--$kind $path --expose $expose --policy $policy"
        job "$host.$p.$expose.$policy.plan" plan "$p" $base --json
        for accel in kvm tcg; do
          job "$host.$p.$expose.$policy.$accel.xml" xml "$p" $base --accel "$accel" --json
        done
        count=$((count + 3))
      done
    done
  done
done
# Paths here have no spaces (fixtures, the source tree): a job line splits on blanks.
# shellcheck disable=SC2016
xargs -P "${JOBS:-4}" -L 1 sh -c 'f=$1; shift; rc=0; "$0" "$@" >"'"$out"'/$f" 2>"'"$out"'/$f.err" || rc=$?
  { echo "--- exit $rc"; cat "'"$out"'/$f.err"; } >>"'"$out"'/$f"; rm -f "'"$out"'/$f.err"' \
  "$topolab" <"$jobs"
# The captures unpack into a new temporary folder each time: its name in messages is not output.
find "$out" -type f -exec sed -i "s|$work|\$WORK|g" {} +
echo "$count runs in $out"
