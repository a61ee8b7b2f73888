#!/usr/bin/env python3
# A hostile guest agent for the runner tests (issue 12, class 1): speaks the agent protocol on
# `--unix PATH` like topolab-agent, but answers `run` with a result whose "unit" is a number
# when params.threads == 1, and with a control-character unit otherwise. Only the standard
# library; exits when the host goes away or asks it to shut down.
# Telemetry (issue 26), by params.threads: 3 a negative CPU time, 4 a count of the wrong type,
# 5 a huge CPU time (1e300 s), 6 10^6 sampling ticks (the bound is 10^5), 7 the host's own
# host_telemetry (a guest must not send it), 8 a valid telemetry object (stored), 9 a 10^5-item
# list where reasons are strings (a 10^6-item one would pass 1 MiB: the line bound drops it).
# Guest settings (issue 25): it lies about os.sched_autogroup (always reads back 1) and refuses
# os.timer_migration = 1 with its own message; os.timer_migration = 0 is echoed.
import json
import os
import socket
import sys

HELLO = {"type": "hello", "protocol": 2, "agent_version": "hostile\x1b[31m", "uptime_ms": 1,
         "kernel": "Linux hostile", "cpu_model": "none", "topology": None,
         "topology_error": "not reading sysfs",
         "settings": {"os.sched_autogroup": {"value": 1}, "os.timer_migration": {"value": 0}}}


def configured(settings):
    out = {}
    for name, value in settings.items():
        if name == "os.sched_autogroup":
            out[name] = {"value": 1}
        elif name == "os.timer_migration" and value == 1:
            out[name] = {"error": "EPERM: timer_migration is locked on this hostile guest"}
        else:
            out[name] = {"value": value}
    return out


HOSTILE_TELEMETRY = {
    3: {"telemetry": {"cpu_user_s": -1.5, "samples": 3, "migrations": 0}},
    4: {"telemetry": {"cpu_user_s": 0.5, "samples": 3, "migrations": "many"}},
    5: {"telemetry": {"cpu_user_s": 1e300, "samples": 3, "migrations": 0}},
    6: {"telemetry": {"cpu_user_s": 0.5, "samples": 10**6, "migrations": 0}},
    7: {"host_telemetry": {"vcpus": [{"vcpu": 0, "changes": 0}]}},
    8: {"telemetry": {"cpu_user_s": 0.5, "cpu_sys_s": 0.01, "samples": 3, "migrations": 1}},
    9: {"telemetry": {"cpu_user_s": 0.5, "samples": 3, "omitted": {"x": [0] * 10**5}}},
}


def result(params):
    threads = params.get("threads")
    if threads in HOSTILE_TELEMETRY:
        unit = "s"
    else:
        unit = 5 if threads == 1 else "s\x1b]0;pwned\x07"
    out = {"benchmark": "sqrt", "params": params, "metric": "time", "unit": unit,
           "lower_is_better": True, "samples": [1.0], "summary": {"n": 1, "min": 1.0,
           "median": 1.0, "mean": 1.0, "max": 1.0, "cv": 0.0}, "environment": {},
           "details": {}}
    out.update(HOSTILE_TELEMETRY.get(threads, {}))
    return out


def send(conn, obj):
    conn.sendall((json.dumps(obj) + "\n").encode())


def serve(conn):
    send(conn, HELLO)
    buf = b""
    while True:
        data = conn.recv(65536)
        if not data:
            return
        buf += data
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            line = line.split(b"\xff")[-1]
            if not line.strip():
                continue
            msg = json.loads(line)
            kind, mid = msg.get("type"), msg.get("id")
            if kind == "sync":
                send(conn, {"type": "sync", "id": mid})
                send(conn, HELLO)
            elif kind == "run":
                send(conn, {"type": "result", "id": mid, "result": result(msg.get("params", {}))})
            elif kind == "configure":
                send(conn, {"type": "configured", "id": mid,
                            "settings": configured(msg.get("settings", {}))})
            elif kind == "ping":
                send(conn, {"type": "pong", "id": mid})
            elif kind == "shutdown":
                send(conn, {"type": "ack", "id": mid, "request": "shutdown"})
                return


def main():
    path = sys.argv[sys.argv.index("--unix") + 1]
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.path.exists(path):
        os.unlink(path)
    srv.bind(path)
    srv.listen(1)
    conn, _ = srv.accept()
    serve(conn)


if __name__ == "__main__":
    main()
