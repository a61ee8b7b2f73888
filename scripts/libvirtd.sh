#!/usr/bin/env bash
# Starts, restarts and restores the system libvirtd on machines where nothing else does
# (these CI and development machines have no systemd).
#
#   libvirtd.sh start          start libvirtd when qemu:///system is unreachable (else nothing)
#   libvirtd.sh listen [PORT]  restart it with a TCP listener on 127.0.0.1:PORT (default 16509),
#                              auth none: a second endpoint through libvirt's remote driver, for
#                              tests only. Prints "started" or "already" (already listening).
#   libvirtd.sh restore        restart it without the listener
#   libvirtd.sh restart        restart it as it runs now (with its listener if it has one), or
#                              start it if it is down: what `systemctl restart libvirtd` does
#   libvirtd.sh status         "listening PORT" or "local" or "down"
#
# Why tini: libvirtd daemonizes QEMU, so an exited QEMU is reparented to PID 1. On these
# machines PID 1 reaps orphans only about every 2 s, and libvirt's destroy waits for the QEMU
# PID to vanish: every cell paid ~2 s at shutdown. Under `tini -s` (a child subreaper that
# reaps at once) libvirtd's orphans are reaped as they exit. libvirtd runs in the foreground
# under tini (with -d it would leave tini and be reparented to PID 1 again).
# Running domains survive a restart of libvirtd (it reconnects to their QEMU monitors).
set -euo pipefail

STATE=/run/topolab-libvirtd
LOG=/var/log/topolab-libvirtd.log

reachable() { virsh -c qemu:///system version >/dev/null 2>&1; }

wait_reachable() {
  for _ in $(seq 1 100); do
    reachable && return 0
    sleep 0.1
  done
  echo "libvirtd.sh: libvirtd did not answer on qemu:///system within 10 s (log: $LOG)" >&2
  return 1
}

stop_daemon() {
  local pid
  pid=$(pgrep -x libvirtd || true)
  [[ -z "$pid" ]] && return 0
  kill -TERM $pid
  for _ in $(seq 1 100); do
    pgrep -x libvirtd >/dev/null || return 0
    sleep 0.1
  done
  echo "libvirtd.sh: libvirtd (pid $pid) did not exit within 10 s" >&2
  return 1
}

# $1: extra libvirtd arguments as one word list (empty or "--listen -f CONF")
start_daemon() {
  pgrep -x virtlogd >/dev/null || virtlogd -d
  local runner=()
  command -v tini >/dev/null && runner=(tini -s --)
  # setsid + nohup: the daemon outlives the shell that started it (and its session).
  # shellcheck disable=SC2086
  setsid nohup "${runner[@]}" libvirtd $1 >>"$LOG" 2>&1 </dev/null &
  wait_reachable
}

listen_conf() {
  local port=$1 conf="$STATE/libvirtd-listen.conf"
  mkdir -p "$STATE"
  {
    grep -vE '^\s*(listen_tcp|listen_tls|tcp_port|listen_addr|auth_tcp)\s*=' /etc/libvirt/libvirtd.conf || true
    echo 'listen_tls = 0'
    echo 'listen_tcp = 1'
    echo "tcp_port = \"$port\""
    echo 'listen_addr = "127.0.0.1"'
    echo 'auth_tcp = "none"'
  } >"$conf"
  echo "$conf"
}

status() {
  if ! reachable; then
    echo down
  elif [[ -f "$STATE/port" ]] && pgrep -f -- "libvirtd --listen" >/dev/null; then
    echo "listening $(cat "$STATE/port")"
  else
    echo local
  fi
}

case "${1:-}" in
  start)
    reachable || start_daemon ""
    ;;
  listen)
    port=${2:-16509}
    [[ "$port" =~ ^[0-9]{2,5}$ ]] || { echo "libvirtd.sh: bad port '$port'" >&2; exit 2; }
    if [[ "$(status)" == "listening $port" ]]; then
      echo already
      exit 0
    fi
    conf=$(listen_conf "$port")
    stop_daemon
    echo "$port" >"$STATE/port"
    start_daemon "--listen -f $conf"
    echo started
    ;;
  restore)
    stop_daemon
    rm -f "$STATE/port"
    start_daemon ""
    ;;
  restart)
    if [[ "$(status)" == listening* ]]; then
      conf=$(listen_conf "$(cat "$STATE/port")")
      stop_daemon
      start_daemon "--listen -f $conf"
    else
      stop_daemon
      rm -f "$STATE/port"
      start_daemon ""
    fi
    ;;
  status)
    status
    ;;
  *)
    echo "usage: libvirtd.sh start | listen [PORT] | restore | restart | status" >&2
    exit 2
    ;;
esac
