#!/usr/bin/env python3
"""Per-cell cost between two cells of `topolab run` (issue 17): what a cell's teardown costs and
what of it could overlap with the next cell's preparation.

Runs, interleaved (order alternating per round), `topolab run` of a small experiment with the
built-in guest: LAYOUT with --cells configurations (a `cmdline.topolab.cellgap` factor, so every
configuration is the same guest) x 1 short benchmark x 1 repetition. Each side's boots are read
from its store (boots.versions.run_id) and their run folders' topolab.log, and between two
consecutive cells it reports (medians over every cell pair of every round, in ms):
  destroy   virDomainDestroy of the finished cell (libvirt: SIGTERM, a 200 ms sleep, the check)
  teardown  agent shutdown request -> "shutdown of" logged (ack, destroy, undefine)
  between   the finished cell's "shutdown of" -> the next cell's first log line (runner: store
            writes, overlay deletion, the next start's own preparation before the session)
  prep      next cell's first log line -> its virDomainCreate call (connection, stale cleanup,
            image, accelerator, XML, define)
  gap       agent shutdown request -> next virDomainCreate call (all of the above)
  overlap   min(teardown, between + prep): what running the teardown beside the next cell's
            preparation could save at most, the next QEMU still started only after the last one
            is gone (an own disk's teardown is mostly its guest powering itself off)
and the run's wall time per cell. --baseline BIN adds another topolab binary as a second side;
--disk IMG boots an own disk instead (its cells differ by guest.memory_mib, 16 MiB apart).

Usage (root, libvirt's qemu:///system running):
  bench/boot/cell_gap.py --topolab build/orchestrator/topolab --rounds 5 --cells 4 \
      templates/topologies/flat-8.toml --set guest.cores_per_group=2 --set placement.policy=unpinned
"""
import argparse
import datetime
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

RUNS_ROOT = "/var/lib/topolab/runs"
LINE = re.compile(r"^(\S+Z) \w+ \[\d+\] (.*)$")


def stamp(text):
    """ms since the epoch of a log line's UTC timestamp (2026-12-01T01:03:36.009Z)."""
    t = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")
    return t.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000.0


def read_log(run_id):
    """[(ms, message)] of one boot's topolab.log."""
    out = []
    with open(os.path.join(RUNS_ROOT, run_id, "topolab.log"), encoding="utf-8",
              errors="replace") as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if m:
                out.append((stamp(m.group(1)), m.group(2)))
    return out


def first(log, pattern):
    rx = re.compile(pattern)
    for ms, msg in log:
        m = rx.search(msg)
        if m:
            return ms, m
    return None, None


def boot_marks(run_id):
    """The steps of one boot, in ms since the epoch (None where a line is missing)."""
    log = read_log(run_id)
    marks = {"begin": log[0][0] if log else None}
    ms, m = first(log, r"libvirt virDomainCreate\(.*\): (\d+) ms")
    marks["create"] = ms - float(m.group(1)) if ms is not None else None
    marks["shutdown_request"], _ = first(log, r"agent > shutdown")
    ms, m = first(log, r"libvirt virDomainDestroy\(.*\): (\d+) ms")
    marks["destroy_ms"] = float(m.group(1)) if m else None
    marks["shutdown_end"], _ = first(log, r"shutdown of \S+: \d+ ms")
    return marks


def experiment_files(workdir, layout, cells, sets, disk):
    layout_path = os.path.abspath(layout)
    exp = os.path.join(workdir, "cellgap.toml")
    with open(exp, "w", encoding="utf-8") as f:
        f.write('name = "cellgap"\nlayout = "%s"\nrepetitions = 1\nseed = 1\n' % layout_path)
        if disk:
            # The disk's boot loader owns the kernel command line: memory levels 16 MiB apart
            # make the configurations instead.
            f.write('[guest]\ndisk = %s\nos = "linux"\n' % json.dumps(os.path.abspath(disk)))
            levels = ", ".join(str(512 + 16 * i) for i in range(cells))
            f.write('[factors]\n"guest.memory_mib" = [%s]\n' % levels)
        else:
            levels = ", ".join('"%d"' % i for i in range(1, cells + 1))
            f.write('[factors]\n"cmdline.topolab.cellgap" = [%s]\n' % levels)
        for key, value in sets:
            level = value if re.fullmatch(r"-?\d+|true|false", value) else json.dumps(value)
            f.write('"%s" = [%s]\n' % (key, level))
        f.write('[[benchmark]]\nname = "sqrt"\nparams = { threads = 1, n = 100000, repeats = 1 }\n')
    return exp


def run_side(binary, exp, workdir, side, rnd):
    db = os.path.join(workdir, "%s-%d.db" % (side, rnd))
    t0 = time.monotonic()
    r = subprocess.run([binary, "run", exp, "--store", db, "--accel", "tcg", "--json",
                        "--quiet"], capture_output=True, text=True, check=False)
    wall = (time.monotonic() - t0) * 1000.0
    if r.returncode != 0:
        sys.exit("%s round %d: topolab run failed (%d): %s" % (side, rnd, r.returncode,
                                                                r.stderr[-2000:]))
    con = sqlite3.connect(db)
    rows = con.execute("SELECT versions FROM boots ORDER BY id").fetchall()
    con.close()
    os.unlink(db)
    run_ids = [json.loads(v)["run_id"] for (v,) in rows]
    marks = [boot_marks(rid) for rid in run_ids]
    pairs = []
    for a, b in zip(marks, marks[1:]):
        if None in (a["shutdown_request"], a["shutdown_end"], a["destroy_ms"], b["begin"],
                    b["create"]):
            continue
        between = b["begin"] - a["shutdown_end"]
        prep = b["create"] - b["begin"]
        pairs.append({"destroy": a["destroy_ms"],
                      "teardown": a["shutdown_end"] - a["shutdown_request"],
                      "between": between, "prep": prep,
                      "gap": b["create"] - a["shutdown_request"],
                      "overlap": min(a["shutdown_end"] - a["shutdown_request"], between + prep)})
    return {"wall_per_cell": wall / max(1, len(run_ids)), "pairs": pairs, "run_ids": run_ids}


def median_of(values):
    return statistics.median(values) if values else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--topolab", required=True)
    ap.add_argument("--baseline", help="another topolab binary, a second side")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cells", type=int, default=4)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a one-level layout factor, e.g. guest.cores_per_group=2")
    ap.add_argument("--disk", help="boot this disk image ([guest] disk, os linux) instead")
    ap.add_argument("--json", help="write every round here")
    ap.add_argument("layout")
    args = ap.parse_args()
    sets = [s.split("=", 1) for s in args.set]
    sides = [("topolab", args.topolab)] + ([("baseline", args.baseline)] if args.baseline else [])
    results = {name: [] for name, _ in sides}
    with tempfile.TemporaryDirectory(prefix="cellgap-") as workdir:
        exp = experiment_files(workdir, args.layout, args.cells, sets, args.disk)
        for rnd in range(args.rounds):
            order = sides if rnd % 2 == 0 else list(reversed(sides))
            for name, binary in order:
                res = run_side(binary, exp, workdir, name, rnd)
                results[name].append(res)
                p = res["pairs"]
                print("round %d %-8s wall/cell %6.0f ms  gap %s  overlap %s" % (
                    rnd + 1, name, res["wall_per_cell"],
                    [round(x["gap"]) for x in p], [round(x["overlap"]) for x in p]),
                    file=sys.stderr, flush=True)
    print("medians over %d rounds x %d cells (ms):" % (args.rounds, args.cells))
    keys = ["destroy", "teardown", "between", "prep", "gap", "overlap"]
    print("%-9s %9s " % ("side", "wall/cell") + " ".join("%9s" % k for k in keys))
    for name, _ in sides:
        pairs = [p for r in results[name] for p in r["pairs"]]
        row = [median_of([r["wall_per_cell"] for r in results[name]])]
        row += [median_of([p[k] for p in pairs]) for k in keys]
        print("%-9s " % name + " ".join("%9.0f" % v for v in row))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
