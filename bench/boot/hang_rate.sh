#!/usr/bin/env bash
# Hang-rate benchmark (issue 17): boots one layout N times under TCG with `topolab boot --json`
# and counts the boots whose first attempt hung (the boot watchdog destroyed it and booted it
# again: timings.boot_attempts > 1) and the boots that failed (cells lost). Every retried boot's
# hung console stays in its run folder as console.attempt-N.log, with every vCPU's registers at
# that moment as vcpus.attempt-N.log; the last console line of each and which vCPUs were not
# halted are printed, so where guests hang can be read off the summary.
#
# -x OPTIONS (repeatable) adds an arm: those boots append OPTIONS to the guest kernel command
# line (--set guest.kernel_cmdline_extra=OPTIONS). Arms take turns boot by boot (base, x1, x2,
# base, ...), so every arm runs under the same, shared-host load; hangs are counted per arm and
# each arm is compared with the base arm by Fisher's exact test (one-sided: fewer hangs).
#
# -m SYSTEM_MAP resolves every hung attempt's vCPUs against the guest kernel's System.map (its
# -dbg package's; bench/boot/resolve_vcpus.py): symbol+offset per RIP, code bytes, stack chain.
#
# Usage: bench/boot/hang_rate.sh [-n BOOTS] [-t TOPOLAB] [-o OUT.jsonl] [-x OPTIONS]...
#                                [-m SYSTEM_MAP] [LAYOUT [BOOT ARGS...]]
#   default: -n 50, build/orchestrator/topolab, ryzen-1700x --policy unpinned --expose dies
set -u
n=50
topolab=build/orchestrator/topolab
out=""
arms=("")
system_map=""
while getopts "n:t:o:x:m:" opt; do
  case "$opt" in
    n) n="$OPTARG" ;;
    t) topolab="$OPTARG" ;;
    o) out="$OPTARG" ;;
    x) [[ "$OPTARG" =~ ^[A-Za-z0-9_.,=:\ -]+$ ]] || { echo "-x: kernel options only" >&2; exit 1; }
       arms+=("$OPTARG") ;;
    m) [[ -f "$OPTARG" ]] || { echo "-m: $OPTARG is not a file" >&2; exit 1; }
       system_map="$OPTARG" ;;
    *) exit 1 ;;
  esac
done
shift $((OPTIND - 1))
[[ "$n" =~ ^[0-9]+$ ]] && ((n >= 1 && n <= 500)) || { echo "-n: 1..500" >&2; exit 1; }
if (($# == 0)); then set -- ryzen-1700x --policy unpinned --expose dies; fi
[[ -n "$out" ]] || out="$(mktemp /tmp/hang-rate-XXXXXX.jsonl)"
: >"$out"
tag="hang-$(date -u +%Y%m%dT%H%M%S)"
echo "hang_rate: $n boots of $*, ${#arms[@]} arm(s), $(cut -d' ' -f1-3 /proc/loadavg) load," \
  "rows in $out" >&2
start=$SECONDS
for ((i = 1; i <= n; i++)); do
  arm="${arms[$(((i - 1) % ${#arms[@]}))]}"
  extra=()
  [[ -n "$arm" ]] && extra=(--set "guest.kernel_cmdline_extra=$arm")
  t0=$SECONDS
  json="$("$topolab" boot "$@" "${extra[@]}" --accel tcg --run-id "$tag-$i" --json 2>/dev/null)"
  rc=$?
  attempts="$(jq -r '.timings.boot_attempts // "?"' <<<"$json" 2>/dev/null || echo "?")"
  [[ -n "$attempts" ]] || attempts="?"
  silence="$(jq -r '.timings.console_max_silence_ms // -1' <<<"$json" 2>/dev/null || echo -1)"
  jq -cn --arg run "$tag-$i" --arg arm "${arm:-base}" --argjson rc "$rc" \
    --arg attempts "$attempts" --arg s "$((SECONDS - t0))" --arg silence "${silence:--1}" \
    --arg load "$(cut -d' ' -f1 /proc/loadavg)" \
    '{run: $run, arm: $arm, rc: $rc, attempts: $attempts, seconds: ($s|tonumber),
      max_silence_ms: ($silence|tonumber? // -1), load: $load}' >>"$out"
  echo "boot $i/$n [${arm:-base}]: rc $rc, attempts $attempts, $((SECONDS - t0)) s" >&2
done
echo "$n boots, $((SECONDS - start)) s; load at end $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" <<'PY'
import json, math, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def count(arm):
    rs = [r for r in rows if r["arm"] == arm]
    hung = sum(int(r["attempts"]) - 1 for r in rs if r["attempts"].isdigit())
    return len(rs), sum(1 for r in rs if r["attempts"].isdigit() and int(r["attempts"]) > 1), \
        hung, sum(1 for r in rs if r["rc"] != 0)
def fisher_le(a, n1, b, n2):
    """P(X <= a) for X = hung boots of arm 1 given the total hung (hypergeometric)."""
    k, n = a + b, n1 + n2
    c = lambda x, y: math.comb(x, y) if 0 <= y <= x else 0
    return sum(c(n1, x) * c(n2, k - x) for x in range(0, a + 1)) / c(n, k)
base = count("base")
for arm in dict.fromkeys(r["arm"] for r in rows):
    n, boots_hung, attempts_hung, lost = count(arm)
    line = "arm %-24s boots %3d, boots with a hung attempt %2d, hung attempts %2d, " \
           "cells lost %d" % (arm, n, boots_hung, attempts_hung, lost)
    if arm != "base":
        line += "; p(fewer hangs than base by chance) = %.3f" % fisher_le(
            boots_hung, n, base[1], base[0])
    print(line)
PY
for f in /var/lib/topolab/runs/"$tag"-*/console.attempt-*.log; do
  [[ -e "$f" ]] || continue
  echo "  $f: $(tail -n 1 "$f" | tr -cd '[:print:]' | cut -c1-120)"
  regs="${f/console./vcpus.}"  # QEMU's registers of every vCPU when the watchdog fired
  [[ -e "$regs" ]] && echo "    $(head -n 1 "$regs" | tr -cd '[:print:]' | cut -c1-300)"
  if [[ -e "$regs" && -n "$system_map" ]]; then
    "$(dirname "$0")/resolve_vcpus.py" --system-map "$system_map" "$regs" | sed 's/^/    /'
  fi
done
