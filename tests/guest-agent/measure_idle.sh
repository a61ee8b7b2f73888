#!/usr/bin/env bash
# Idle footprint of topolab-agent serving over --unix: RSS and CPU time over a window, once
# with no host connected and once with a connected, silent host. Figures, not a test.
# Usage: bash tests/guest-agent/measure_idle.sh [AGENT] [SECONDS]
set -euo pipefail
AGENT=${1:-build/guest-agent/topolab-agent}
SECS=${2:-30}
DIR=$(mktemp -d /tmp/topolab-idle-XXXXXX)
PID=""; HOST=""
cleanup() { [[ -n "$HOST" ]] && kill "$HOST" 2>/dev/null; [[ -n "$PID" ]] && kill "$PID" 2>/dev/null; rm -rf "$DIR"; }
trap cleanup EXIT
TICK=$(getconf CLK_TCK)

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

measure() {  # label
  local t0 t1
  t0=$(cpu_ticks "$PID")
  sleep "$SECS"
  t1=$(cpu_ticks "$PID")
  echo "$1: RSS $(rss_kib "$PID") KiB, CPU $(( (t1 - t0) * 1000 / TICK )) ms over ${SECS} s"
}

echo "agent: $AGENT ($(stat -c %s "$AGENT") bytes; $(ldd "$AGENT" 2>&1 | head -1 | sed 's/^\s*//'))"
"$AGENT" serve --unix "$DIR/agent.sock" 2>/dev/null &
PID=$!
for _ in $(seq 50); do [[ -S "$DIR/agent.sock" ]] && break; sleep 0.1; done
measure "idle, no host connected"
# A connected host that says nothing (python3 only holds the socket open).
python3 -c 'import socket,sys,time; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); time.sleep(3600)' \
  "$DIR/agent.sock" &
HOST=$!
sleep 1
measure "idle, host connected"
