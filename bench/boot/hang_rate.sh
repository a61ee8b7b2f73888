#!/usr/bin/env bash
# Hang-rate benchmark (issue 17): boots one layout N times under TCG with `topolab boot --json`
# and counts the boots whose first attempt hung (the boot watchdog destroyed it and booted it
# again: timings.boot_attempts > 1) and the boots that failed (cells lost). Every retried boot's
# hung console stays in its run folder as console.attempt-N.log; the last console line of each
# is printed, so where guests hang can be read off the summary.
#
# Usage: bench/boot/hang_rate.sh [-n BOOTS] [-t TOPOLAB] [-o OUT.jsonl] [LAYOUT [BOOT ARGS...]]
#   default: -n 50, build/orchestrator/topolab, ryzen-1700x --policy unpinned --expose dies
set -u
n=50
topolab=build/orchestrator/topolab
out=""
while getopts "n:t:o:" opt; do
  case "$opt" in
    n) n="$OPTARG" ;;
    t) topolab="$OPTARG" ;;
    o) out="$OPTARG" ;;
    *) exit 1 ;;
  esac
done
shift $((OPTIND - 1))
[[ "$n" =~ ^[0-9]+$ ]] && ((n >= 1 && n <= 500)) || { echo "-n: 1..500" >&2; exit 1; }
if (($# == 0)); then set -- ryzen-1700x --policy unpinned --expose dies; fi
[[ -n "$out" ]] || out="$(mktemp /tmp/hang-rate-XXXXXX.jsonl)"
: >"$out"
tag="hang-$(date -u +%Y%m%dT%H%M%S)"
echo "hang_rate: $n boots of $*, $(cut -d' ' -f1-3 /proc/loadavg) load, rows in $out" >&2
hung=0 lost=0 start=$SECONDS
for ((i = 1; i <= n; i++)); do
  t0=$SECONDS
  json="$("$topolab" boot "$@" --accel tcg --run-id "$tag-$i" --json 2>/dev/null)"
  rc=$?
  attempts="$(jq -r '.timings.boot_attempts // "?"' <<<"$json" 2>/dev/null || echo "?")"
  [[ -n "$attempts" ]] || attempts="?"
  if ((rc != 0)); then lost=$((lost + 1)); fi
  if [[ "$attempts" =~ ^[0-9]+$ ]] && ((attempts > 1)); then hung=$((hung + attempts - 1)); fi
  jq -cn --arg run "$tag-$i" --argjson rc "$rc" --arg attempts "$attempts" \
    --arg s "$((SECONDS - t0))" --arg load "$(cut -d' ' -f1 /proc/loadavg)" \
    '{run: $run, rc: $rc, attempts: $attempts, seconds: ($s|tonumber), load: $load}' >>"$out"
  echo "boot $i/$n: rc $rc, attempts $attempts, $((SECONDS - t0)) s" >&2
done
echo "hung attempts: $hung in $n boots; cells lost (boot failed): $lost; $((SECONDS - start)) s;" \
  "load at end $(cut -d' ' -f1-3 /proc/loadavg)"
for f in /var/lib/topolab/runs/"$tag"-*/console.attempt-*.log; do
  [[ -e "$f" ]] || continue
  echo "  $f: $(tail -n 1 "$f" | tr -cd '[:print:]' | cut -c1-120)"
done
