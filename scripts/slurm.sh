#!/usr/bin/env bash
# A single-node Slurm cluster of its own for the tests (issue 30): munged, slurmctld and slurmd
# from Debian's packages (slurm-wlm, munge), with their own configuration, key, state, spool,
# logs and pid files under one folder, on ports of their own. It never touches a system Slurm.
#
#   slurm.sh start   start munged, slurmctld, slurmd; wait until the node takes jobs
#   slurm.sh stop    cancel this cluster's jobs, stop exactly the daemons `start` started (by
#                    the pids it recorded), leave nothing running
#   slurm.sh env     print `export SLURM_CONF=...` (sbatch, squeue, scontrol use this cluster)
#
# Settings (environment): TOPOLAB_SLURM_DIR (default /tmp/topolab-slurm),
# TOPOLAB_SLURM_PORT (slurmctld, default 16817; slurmd takes the next port),
# TOPOLAB_SLURM_CLUSTER (default topolab-test).
set -euo pipefail

DIR=${TOPOLAB_SLURM_DIR:-/tmp/topolab-slurm}
PORT=${TOPOLAB_SLURM_PORT:-16817}
CLUSTER=${TOPOLAB_SLURM_CLUSTER:-topolab-test}
CONF=$DIR/slurm.conf
MUNGE=$DIR/munge
export SLURM_CONF=$CONF

die() {
  echo "slurm.sh: $*" >&2
  exit 1
}

alive() { [[ -f "$DIR/$1.pid" ]] && kill -0 "$(cat "$DIR/$1.pid")" 2>/dev/null; }

# Munge as user munge (it refuses root), its key, socket, pid and log in $MUNGE.
start_munge() {
  mkdir -p "$MUNGE"
  [[ -f "$MUNGE/munge.key" ]] || dd if=/dev/urandom of="$MUNGE/munge.key" bs=1024 count=1 status=none
  chown -R munge:munge "$MUNGE"
  chmod 0755 "$MUNGE"
  chmod 0400 "$MUNGE/munge.key"
  # setpriv execs munged itself: $! is munged's pid.
  setsid setpriv --reuid=munge --regid=munge --init-groups munged -F --key-file="$MUNGE/munge.key" \
    --socket="$MUNGE/munge.socket" --pid-file="$MUNGE/munged.pid" --log-file="$MUNGE/munged.log" \
    --seed-file="$MUNGE/munge.seed" </dev/null >>"$DIR/munged.out" 2>&1 &
  echo $! >"$DIR/munged.pid"
  for _ in $(seq 1 50); do
    [[ -S "$MUNGE/munge.socket" ]] && return 0
    sleep 0.1
  done
  die "munged did not create $MUNGE/munge.socket within 5 s (log: $MUNGE/munged.log)"
}

write_conf() {
  local host node name
  host=$(hostname -s)
  # The node as slurmd sees it (CPUs, sockets, cores, memory): a mismatch would drain it.
  node=$(slurmd -C | head -1)
  [[ "$node" == NodeName=* ]] || die "slurmd -C printed no node line"
  name=${node%% *}
  name=${name#NodeName=}
  mkdir -p "$DIR/state" "$DIR/spool" "$DIR/log"
  cat >"$CONF" <<CONF
ClusterName=$CLUSTER
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$MUNGE/munge.socket
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.daemon.pid
SlurmdPidFile=$DIR/slurmd.daemon.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MailProg=/bin/true
# Finished jobs stay visible to scontrol for 10 min (the tests read their states).
MinJobAge=600
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=topolab Nodes=$name Default=YES MaxTime=INFINITE State=UP
CONF
}

# Foreground daemons under setsid: $! is the daemon, recorded as what `stop` stops.
start_daemon() {
  local name=$1
  shift
  setsid "$@" </dev/null >>"$DIR/log/$name.out" 2>&1 &
  echo $! >"$DIR/$name.pid"
}

wait_idle() {
  for _ in $(seq 1 150); do
    local state
    state=$(sinfo -h -o %T 2>/dev/null | head -1 || true)
    [[ "$state" == idle* || "$state" == mixed* || "$state" == allocated* ]] && return 0
    sleep 0.2
  done
  die "the node did not become idle within 30 s (state '$(sinfo -h -o %T 2>&1 | head -1)'; logs: $DIR/log)"
}

start() {
  command -v slurmctld >/dev/null && command -v munged >/dev/null ||
    die "slurm-wlm and munge are not installed (scripts/setup.sh installs them)"
  if alive slurmctld || alive slurmd || alive munged; then
    echo "slurm.sh: already running (pids in $DIR)"
    return 0
  fi
  mkdir -p "$DIR"
  chmod 0755 "$DIR"
  start_munge
  write_conf
  start_daemon slurmctld slurmctld -D -i -f "$CONF"
  start_daemon slurmd slurmd -D -f "$CONF"
  wait_idle
  echo "slurm.sh: started cluster $CLUSTER (slurmctld :$PORT, slurmd :$((PORT + 1))); $(env_line)"
}

stop_pid() {
  local name=$1 pid
  [[ -f "$DIR/$name.pid" ]] || return 0
  pid=$(cat "$DIR/$name.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  fi
  rm -f "$DIR/$name.pid"
}

stop() {
  # Jobs first: their slurmstepd processes would outlive slurmd.
  if alive slurmctld; then
    scancel --full --quiet --user=root 2>/dev/null || true
    for _ in $(seq 1 150); do
      [[ -z "$(squeue -h -o %i 2>/dev/null)" ]] && break
      sleep 0.2
    done
  fi
  stop_pid slurmd
  stop_pid slurmctld
  stop_pid munged
  echo "slurm.sh: stopped"
}

env_line() { echo "export SLURM_CONF=$CONF"; }

case "${1:-}" in
start) start ;;
stop) stop ;;
env) env_line ;;
*) die "usage: slurm.sh start|stop|env" ;;
esac
