#!/usr/bin/env python3
"""Cost of the scheduler telemetry's sampling (issue 26): the same sqrt run with and without
the sampler thread, interleaved (the order alternates per round, so drift in the machine's load
falls on both sides), through `topolab-agent run sqrt --json [--no-sampling]`. CPU times, the
context-switch counts and the kernel's migration count are read on both sides (two getrusage
calls and one perf counter); only the sampler is switched off.

Prints per side the median wall time (the benchmark's own median sample) and the overhead
median(with) / median(without) - 1 in %, with the rounds' spread (min..max of the paired
ratios), so a noisy machine shows as a wide range instead of a confident figure; then the
process's CPU seconds per side (user + system: they include the sampler thread's own work and
are less disturbed by other load than wall time).

Usage:
  bench/telemetry/overhead.py --agent build/guest-agent/topolab-agent --rounds 10 \
      --threads 2 --n 20000000
"""
import argparse
import json
import math
import statistics
import subprocess
import sys


def run_once(agent, threads, n, sampling):
    argv = [agent, "run", "sqrt", "--param", f"threads={threads}", "--param", f"n={n}",
            "--param", "repeats=1", "--json"]
    if not sampling:
        argv.append("--no-sampling")
    out = subprocess.run(argv, check=True, capture_output=True, text=True, timeout=600).stdout
    result = json.loads(out)
    t = result["telemetry"]
    return result["summary"]["median"], t.get("samples", 0), t["cpu_user_s"] + t["cpu_sys_s"]


def median_interval(values, confidence=0.95):
    """Distribution-free interval for the median of paired values (order statistics: the
    number of values below the median is Binomial(n, 1/2)); None when n is too small."""
    xs = sorted(values)
    n = len(xs)
    for k in range(n // 2, 0, -1):
        # P(X(k) <= median <= X(n+1-k)) = 1 - 2 * P(Binomial(n, 1/2) <= k-1)
        tail = sum(math.comb(n, i) for i in range(k)) / 2 ** n
        if 1 - 2 * tail >= confidence:
            return xs[k - 1], xs[n - k], 1 - 2 * tail
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent", required=True)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--n", type=int, default=20000000)
    args = ap.parse_args()
    with_s, without_s, ratios, ticks, cpu_with, cpu_without = [], [], [], [], [], []
    for r in range(args.rounds):
        order = [True, False] if r % 2 == 0 else [False, True]
        got = {}
        for sampling in order:
            got[sampling] = run_once(args.agent, args.threads, args.n, sampling)
        with_s.append(got[True][0])
        without_s.append(got[False][0])
        ticks.append(got[True][1])
        cpu_with.append(got[True][2])
        cpu_without.append(got[False][2])
        ratios.append(got[True][0] / got[False][0] - 1)
    mw, mo = statistics.median(with_s), statistics.median(without_s)
    print(f"rounds {args.rounds}, sqrt n={args.n} threads={args.threads}")
    print(f"with sampling    median {mw:.3f} s ({statistics.median(ticks):.0f} ticks)")
    print(f"without sampling median {mo:.3f} s")
    print(f"overhead {100 * (mw / mo - 1):+.1f} % (paired rounds {100 * min(ratios):+.1f} .. "
          f"{100 * max(ratios):+.1f} %)")
    # The paired rounds' own median and its interval: what the data says about the overhead,
    # not only a point (the 1 % target is shown only if the whole interval is below it).
    iv = median_interval(ratios)
    if iv:
        print(f"paired overhead median {100 * statistics.median(ratios):+.1f} %, "
              f"{100 * iv[2]:.1f} % interval {100 * iv[0]:+.1f} .. {100 * iv[1]:+.1f} % "
              f"(order statistics of {len(ratios)} rounds)")
    else:
        print(f"paired overhead: {len(ratios)} rounds are too few for a 95 % interval")
    cw, co = statistics.median(cpu_with), statistics.median(cpu_without)
    print(f"process CPU seconds: with {cw:.3f}, without {co:.3f} ({100 * (cw / co - 1):+.1f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
