#!/usr/bin/env bash
# Fidelity check: topolab-agent's c2c-latency and mem-latency side by side with the plain C
# references in this folder, interleaved round by round (the machine is shared: load drifts).
# Prints per case, for each side, the lowest per-run minimum (the least disturbed figure on a
# loaded machine) and the median over rounds of the per-run medians, with agent/reference
# ratios. Target: ratios within 0.90..1.10.
#   usage: bench/fidelity/run.sh [BUILD_DIR] [ROUNDS]     (CPU_A/CPU_B env: default 0 and 1)
set -euo pipefail
build=${1:-build}
rounds=${2:-5}
cpu_a=${CPU_A:-0}
cpu_b=${CPU_B:-1}
agent=$build/guest-agent/topolab-agent
c2c=$build/bench/fidelity/fidelity_c2c
chase=$build/bench/fidelity/fidelity_chase
for f in "$agent" "$c2c" "$chase"; do
  [[ -x $f ]] || { echo "missing $f: ninja -C $build topolab-agent fidelity_c2c fidelity_chase" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "run.sh needs python3 to read the agent's JSON" >&2; exit 2; }

iterations=2000 repeats=7 loads=500000 chase_repeats=3
sizes=(16 256 4096 65536)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

agent_pair() {  # JSON on stdin -> "min median" of the only pair
  python3 -c 'import json,sys; p=json.load(sys.stdin)["details"]["pairs"][0]; print(p["min_ns"], p["median_ns"])'
}
agent_size() {  # JSON on stdin -> "min median" of the only size
  python3 -c 'import json,sys; p=json.load(sys.stdin)["details"]["sizes"][0]; print(p["min_ns"], p["median_ns"])'
}
ref() { sed -n 's/.*min_ns=\([0-9.]*\) median_ns=\([0-9.]*\).*/\1 \2/p'; }

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)  rounds=$rounds cpus=$cpu_a,$cpu_b"
for ((r = 0; r < rounds; r++)); do
  for mode in cas rw; do
    "$c2c" "$cpu_a" "$cpu_b" $iterations $repeats $mode | ref >>"$tmp/c2c-$mode.ref"
    "$agent" run c2c-latency --json --param cpus="$cpu_a,$cpu_b" --param mode=$mode \
      --param iterations=$iterations --param repeats=$repeats | agent_pair \
      >>"$tmp/c2c-$mode.agent"
  done
  for kib in "${sizes[@]}"; do
    "$chase" "$kib" $loads $chase_repeats "$cpu_a" | ref >>"$tmp/chase-$kib.ref"
    "$agent" run mem-latency --json --param sizes_kib="[$kib]" --param loads=$loads \
      --param repeats=$chase_repeats --param cpu="$cpu_a" | agent_size \
      >>"$tmp/chase-$kib.agent"
  done
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$tmp" c2c-cas c2c-rw "${sizes[@]/#/chase-}" <<'PY'
import statistics, sys
tmp, cases = sys.argv[1], sys.argv[2:]
def read(path):
    rows = [tuple(map(float, line.split())) for line in open(path) if line.strip()]
    return min(r[0] for r in rows), statistics.median(r[1] for r in rows)

print(f"{'case':<16}{'ref min':>10}{'agent min':>10}{'ratio':>7}"
      f"{'ref med':>10}{'agent med':>10}{'ratio':>7}  verdict (min)")
worst = 0.0
for case in cases:
    rmin, rmed = read(f"{tmp}/{case}.ref")
    amin, amed = read(f"{tmp}/{case}.agent")
    ratio = amin / rmin
    worst = max(worst, abs(ratio - 1))
    label = case.replace("chase-", "chase ") + (" KiB" if case.startswith("chase") else " ns")
    print(f"{label:<16}{rmin:>10.2f}{amin:>10.2f}{ratio:>7.3f}{rmed:>10.2f}{amed:>10.2f}"
          f"{amed / rmed:>7.3f}  {'ok' if abs(ratio - 1) <= 0.10 else 'OUTSIDE +-10%'}")
print(f"worst deviation of the minima: {worst * 100:.1f}%")
PY
