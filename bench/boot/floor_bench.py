#!/usr/bin/env python3
"""Boot benchmark against the floor (issue 17): topolab boot vs the bare QEMU command line.

For one layout it first runs `topolab boot` once to get the exact QEMU command line libvirt
generated (from libvirt's domain log /var/log/libvirt/qemu/<domain>.log), rewrites what only
libvirt can provide (passed file descriptors, its monitor, its master key, -S, -no-shutdown)
into a stand-alone command with the agent channel on a socket of its own and the console in a
file, then boots, interleaved (order alternating per round):
  floor:   that QEMU command directly; this script connects to the agent socket, waits for the
           agent's hello, sends shutdown, waits for QEMU to exit (the guest powers off);
  topolab: `topolab boot LAYOUT ... --json`, timed from outside (5 ms polling of its run folder:
           hello.json appears right after the hello, agent.log shows the shutdown request).
The floor QEMU runs in a cpu cgroup beside libvirt's (/machine/topolab-floor-PID): libvirt puts every
QEMU in its own, and on a loaded host group scheduling gives it another CPU share than a QEMU
in the root cgroup (the floor was up to 1.2x slower than topolab that way here).
Each side reports hello (exec -> hello), shutdown (shutdown request -> process exit) and total
(exec -> exit), as medians over the rounds, and topolab / floor for each.

Usage (root, libvirt's qemu:///system running):
  bench/boot/floor_bench.py --topolab build/orchestrator/topolab --rounds 5 \
      ryzen-1700x --policy unpinned --expose dies
Arguments after the layout go to `topolab boot` unchanged. --json FILE writes every round.
--baseline BIN adds a third side, another topolab binary (e.g. main's, before a change), so a
change is measured side by side in the same rounds. Besides hello/shutdown/total it reports the
guest's uptime at hello (from the agent's hello) and hello minus that ("pre_kernel": QEMU and
libvirt start, firmware, kernel loading), which tells start overhead from a slower guest.
"""
import argparse
import glob
import json
import os
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

RUNS_ROOT = "/var/lib/topolab/runs"
QEMU_LOG_DIR = "/var/log/libvirt/qemu"
HELLO_TIMEOUT_S = 180.0
POLL_S = 0.005


def now():
    return time.monotonic()


def qemu_command_from_log(log_path):
    """The last QEMU command line in a libvirt domain log, as argv (env assignments dropped)."""
    with open(log_path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    start = max(i for i, l in enumerate(lines) if l.startswith("LC_ALL="))
    parts = []
    for line in lines[start:]:
        cont = line.endswith("\\")
        parts.append(line[:-1] if cont else line)
        if not cont:
            break
    argv = shlex.split(" ".join(parts))
    while argv and "=" in argv[0] and not argv[0].startswith("/"):
        argv.pop(0)  # LC_ALL=C PATH=... HOME=...
    return argv


def standalone(argv, workdir):
    """libvirt's argv rewritten to run without libvirt (see the module docstring)."""
    out, i = [], 0
    sock = os.path.join(workdir, "agent.sock")
    console = os.path.join(workdir, "console.log")
    while i < len(argv):
        a = argv[i]
        v = argv[i + 1] if i + 1 < len(argv) else ""
        if a in ("-S", "-no-shutdown"):
            i += 1
            continue
        if a in ("-add-fd", "-mon") or (a == "-object" and "masterKey0" in v):
            i += 2
            continue
        if a == "-chardev" and "id=charmonitor" in v:
            i += 2
            continue
        if a == "-chardev" and "id=charserial0" in v:
            out += [a, "file,id=charserial0,path=" + console]
            i += 2
            continue
        if a == "-chardev" and v.startswith("socket,id=charchannel0"):
            out += [a, "socket,id=charchannel0,path=" + sock + ",server=on,wait=off"]
            i += 2
            continue
        if a == "-name":
            out += [a, "guest=topolab-floor,debug-threads=on"]
            i += 2
            continue
        out.append(a)
        i += 1
    return out, sock


# libvirt starts each QEMU in a cpu cgroup of its own under /machine (cgroup v1 here), which the
# kernel's group scheduling weighs as one entity against every other task: on a shared, loaded
# host a QEMU started from this shell (root cgroup) gets a different CPU share than the same
# QEMU under libvirt. The floor QEMU is therefore put in a sibling cgroup under /machine.
CPU_MACHINE = "/sys/fs/cgroup/cpu/machine"


def floor_cgroup():
    path = os.path.join(CPU_MACHINE, "topolab-floor-%d" % os.getpid())
    try:
        os.makedirs(path, exist_ok=True)
        return path
    except OSError:
        return None


def enter_cgroup(path):
    if path:
        with open(os.path.join(path, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))


def hello_uptime_ms(buf):
    """The guest's uptime_ms from the agent's hello line in `buf` (None when unreadable)."""
    for line in buf.split(b"\n"):
        if b'"type":"hello"' in line:
            try:
                return int(json.loads(line.decode("utf-8", "replace"))["uptime_ms"])
            except (ValueError, KeyError, TypeError):
                return None
    return None


def run_floor(argv_template, log_dir, cgroup):
    workdir = tempfile.mkdtemp(prefix="topolab-floor-")
    argv, sock_path = standalone(argv_template, workdir)
    t0 = now()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=lambda: enter_cgroup(cgroup))
    res = {"side": "floor"}
    try:
        sock = None
        while sock is None:
            if now() - t0 > HELLO_TIMEOUT_S or proc.poll() is not None:
                raise RuntimeError("no agent socket")
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(sock_path)
                sock = s
            except OSError:
                s.close()
                time.sleep(POLL_S)
        sock.settimeout(1.0)
        buf = b""
        while b'"type":"hello"' not in buf:
            if now() - t0 > HELLO_TIMEOUT_S:
                raise RuntimeError("hung: no hello within %.0f s" % HELLO_TIMEOUT_S)
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                raise RuntimeError("agent closed the channel before hello")
            buf += chunk
        t_hello = now()
        uptime = hello_uptime_ms(buf)
        if uptime is not None:
            res["uptime_at_hello"] = uptime / 1000.0
        t_sd = now()
        sock.sendall(b'{"type":"shutdown","id":1}\n')
        rc = proc.wait(timeout=60)
        t_end = now()
        res.update(ok=rc == 0, hello=t_hello - t0, shutdown=t_end - t_sd, total=t_end - t0)
    except Exception as e:  # a hang or a broken boot: recorded, the round goes on
        proc.kill()
        proc.wait()
        res.update(ok=False, error=str(e))
        kept = os.path.join(log_dir, "floor-failed-%d-console.log" % int(time.time()))
        shutil.copy(os.path.join(workdir, "console.log"), kept)
        res["console"] = kept
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return res


def run_topolab(cmd_prefix, run_id, side="topolab"):
    run_dir = os.path.join(RUNS_ROOT, run_id)
    t0 = now()
    proc = subprocess.Popen(cmd_prefix + ["--run-id", run_id], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    t_hello = t_sd = None
    while proc.poll() is None:
        if t_hello is None and glob.glob(run_dir + "/**/hello.json", recursive=True):
            t_hello = now()
        if t_hello is not None and t_sd is None:
            for log in glob.glob(run_dir + "/**/agent.log", recursive=True):
                with open(log, "rb") as f:
                    if b'"type":"shutdown"' in f.read():
                        t_sd = now()
        time.sleep(POLL_S)
    t_end = now()
    out, err = proc.communicate()
    res = {"side": side, "run_id": run_id, "ok": proc.returncode == 0, "total": t_end - t0}
    if t_hello is not None:
        res["hello"] = t_hello - t0
    if t_sd is not None:
        res["shutdown"] = t_end - t_sd
    try:
        res["timings"] = json.loads(out)["timings"]
    except (ValueError, KeyError, TypeError):
        res["error"] = err.strip()[-500:]
    uptime = res.get("timings", {}).get("guest_uptime_at_hello_ms")
    if isinstance(uptime, int):
        res["uptime_at_hello"] = uptime / 1000.0
    return res


def median(rows, key):
    vals = [r[key] for r in rows if r.get("ok") and key in r]
    return statistics.median(vals) if vals else float("nan")


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def pre_kernel(rows):
    """hello minus the guest's uptime at hello: QEMU/libvirt start, firmware, kernel loading."""
    for r in rows:
        if "hello" in r and "uptime_at_hello" in r:
            r["pre_kernel"] = r["hello"] - r["uptime_at_hello"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topolab", default="build/orchestrator/topolab")
    ap.add_argument("--baseline", help="a second topolab binary (e.g. before a change), run as a "
                    "third side in the same interleaved rounds")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", help="write every round and the summary to this file")
    ap.add_argument("layout")
    ap.add_argument("boot_args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if not 1 <= a.rounds <= 100:
        ap.error("--rounds: 1..100")
    tag = time.strftime("%Y%m%dT%H%M%S")
    tail = [a.layout, "--accel", "tcg", "--json"] + a.boot_args
    cmds = {"topolab": [a.topolab, "boot"] + tail}
    if a.baseline:
        cmds["baseline"] = [a.baseline, "boot"] + tail

    prep = run_topolab(cmds["topolab"], "floorprep-" + tag)
    logs = glob.glob(os.path.join(QEMU_LOG_DIR, "topolab-*-floorprep-%s.log" % tag))
    if not prep["ok"] or not logs:
        sys.exit("floor_bench: the preparing topolab boot failed: %s" % prep.get("error", "?"))
    template = qemu_command_from_log(logs[0])
    log_dir = os.path.join(RUNS_ROOT, "floorprep-" + tag)
    cgroup = floor_cgroup()
    print("load average at start: %s; floor QEMU cgroup %s" % (loadavg(), cgroup or
          "(none: this shell's)"), file=sys.stderr)
    print("floor command: " + shlex.join(standalone(template, "DIR")[0]), file=sys.stderr)

    sides = ["floor"] + list(cmds)
    rows = []
    for r in range(a.rounds):
        # Each side goes first, middle and last equally often over the rounds.
        order = sides[r % len(sides):] + sides[:r % len(sides)]
        if r % 2:
            order.reverse()
        for side in order:
            if side == "floor":
                res = run_floor(template, log_dir, cgroup)
            else:
                res = run_topolab(cmds[side], "floor-%s-%s-%d" % (tag, side[0], r), side)
            res["round"] = r + 1
            res["load"] = loadavg()
            rows.append(res)
            print("round %d %-8s %s hello %.2f s (guest uptime %.2f s), shutdown %.2f s, "
                  "total %.2f s (load %s)%s" %
                  (r + 1, side, "ok  " if res["ok"] else "FAIL", res.get("hello", float("nan")),
                   res.get("uptime_at_hello", float("nan")), res.get("shutdown", float("nan")),
                   res.get("total", float("nan")), res["load"],
                   "" if res["ok"] else " " + res.get("error", "")), file=sys.stderr)
    pre_kernel(rows)

    by_side = {side: [x for x in rows if x["side"] == side] for side in sides}
    summary = {"layout": a.layout, "boot_args": a.boot_args, "rounds": a.rounds,
               "load_end": loadavg(),
               "failed": {side: sum(not x["ok"] for x in by_side[side]) for side in sides}}
    head = "%-16s %9s %9s %7s" % ("median s", "floor", "topolab", "ratio")
    if a.baseline:
        head += " %9s %7s" % ("baseline", "ratio")
    print(head)
    for key in ("hello", "uptime_at_hello", "pre_kernel", "shutdown", "total"):
        f = median(by_side["floor"], key)
        summary[key] = {}
        line = "%-16s %9.2f" % (key, f)
        for side in cmds:
            t = median(by_side[side], key)
            ratio = t / f if f else float("nan")
            summary[key].update({"floor": f, side: t, side + "_ratio": ratio})
            line += " %9.2f %7.2f" % (t, ratio)
        print(line)
    print("failed boots: %s; load average at end %s" %
          (", ".join("%s %d" % kv for kv in summary["failed"].items()), summary["load_end"]))
    if cgroup:
        try:
            os.rmdir(cgroup)
        except OSError:
            pass
    summary["floor_cgroup"] = cgroup
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"summary": summary, "rounds": rows}, f, indent=2)


if __name__ == "__main__":
    main()
