#!/usr/bin/env bash
# Starts and stops a private one-node Slurm cluster (munged, slurmctld, slurmd)
# for the sweep tests. Everything lives in a folder the caller made: key,
# socket, slurm.conf, state, spool, logs, PIDs. It shares nothing with a system
# Slurm or MUNGE (own ports, own munge socket, own state), so it neither needs
# nor disturbs daemons that the Debian packages may have started.
#
#   slurm_cluster.sh start DIR [PID]  start; then `source DIR/env` sets SLURM_CONF
#   slurm_cluster.sh stop DIR         cancel our jobs, stop our daemons; DIR stays
#
# start exits 77 (the ctest skip code) with one message on stderr when the
# cluster cannot come up; it has then stopped whatever it started.
# Callers should stop the cluster however they end:
#   trap 'slurm_cluster.sh stop "$dir"' EXIT
# and if they are killed outright (SIGKILL, ctest timeout), a watcher that
# start leaves behind notices that process PID is gone and stops the cluster.
# PID defaults to the caller of start, so call start directly from the test
# script: inside $(...) or a pipe the caller is a subshell that ends at once.
# Needs root: slurmd runs jobs as their submitter, and SlurmUser is root.
set -euo pipefail

usage() { echo "usage: $0 start DIR [PID] | stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || { [ $# -eq 3 ] && [ "$1" = start ]; } || usage
action=$1
owner=${3:-$PPID}
dir=$(cd "$2" && pwd)   # absolute: slurm.conf and munged want absolute paths
self=$(readlink -f "$0")
export SLURM_CONF=$dir/slurm.conf

# Stops the processes listed in DIR/pids, newest first, and only those.
stop() {
  [ -f "$dir/pids" ] || return 0
  # slurmd leaves running jobs alone when it stops (its slurmstepds live on),
  # so cancel our jobs first, if the cluster came up (DIR/env) and answers.
  if [ -f "$dir/env" ] && scancel --quiet --partition=debug 2>/dev/null; then
    for _ in $(seq 20); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.5
    done
  fi
  local pids
  pids=$(tac "$dir/pids" | grep -vx "$$" || true)   # the watcher runs us as itself
  for p in $pids; do kill -TERM "$p" 2>/dev/null || true; done
  for _ in $(seq 100); do                           # up to 10 s
    local alive=""
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ -z "$alive" ] && break
    sleep 0.1
  done
  for p in $pids; do kill -KILL "$p" 2>/dev/null || true; done
  rm -f "$dir/pids"
}

# Gives up: one message, the tail of the log concerned, everything stopped.
fail() {
  { echo "slurm_cluster.sh: $1"
    [ -n "${2:-}" ] && [ -f "$2" ] && tail -n 15 "$2" | sed 's/^/  | /'
  } >&2
  stop
  exit 77
}

# Starts a daemon in the foreground of a background job, so that $! is the
# daemon itself; records it in DIR/pids and in $pid. Its output goes to a
# file (an inherited pipe, as from ctest or $(...), would stay open and keep
# the caller waiting); it holds all the daemon logs, fatal start-up errors too.
spawn() {
  local log=$1; shift
  "$@" </dev/null >>"$log" 2>&1 &
  pid=$!
  echo "$pid" >>"$dir/pids"
}

# True when nothing listens on TCP port $1 of this host.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
  if [ -e "$dir/pids" ]; then echo "$0: $dir already holds a cluster" >&2; exit 2; fi
  kill -0 "$owner" 2>/dev/null || { echo "$0: no process $owner to watch" >&2; exit 2; }
  case $dir in *[[:space:]]*) echo "$0: slurm.conf paths cannot hold spaces: $dir" >&2; exit 2 ;; esac
  [ "$(id -u)" -eq 0 ] || fail "needs root (slurmd runs jobs as their submitter)"
  local b
  for b in munged slurmctld slurmd sinfo sbatch squeue scancel; do
    command -v "$b" >/dev/null || fail "$b not found (run scripts/setup)"
  done
  : >"$dir/pids"

  # munged refuses a socket folder that others cannot search (mktemp -d makes
  # 0700). --force turns its remaining ownership and permission checks into
  # warnings, e.g. when DIR lies below a group-writable CI workspace.
  chmod 0755 "$dir"
  mkdir -p "$dir/state" "$dir/spool" "$dir/log"
  (umask 0277 && head -c 1024 /dev/urandom >"$dir/munge.key")
  # --origin: the credentials' origin, so that the host name need not resolve.
  spawn "$dir/log/munged.stderr" munged --foreground --force --origin=127.0.0.1 \
    --socket="$dir/munge.socket" --key-file="$dir/munge.key" \
    --pid-file="$dir/munged.pid" --seed-file="$dir/munged.seed"
  for _ in $(seq 50); do   # up to 5 s
    [ -S "$dir/munge.socket" ] && break
    kill -0 "$pid" 2>/dev/null || break   # munged gave up
    sleep 0.1
  done
  [ -S "$dir/munge.socket" ] || fail "munged did not start" "$dir/log/munged.stderr"

  # The node: what this machine has, a little less memory than it reports so
  # that slurmd's own count never falls below it (the node would drain).
  # NodeAddr and the address after SlurmctldHost spare us name resolution.
  local node cpus mem ctld_port slurmd_port
  node=$(uname -n); node=${node%%.*}   # what `hostname -s` prints
  cpus=$(nproc)
  mem=$(awk '/^MemTotal:/ { print int($2 / 1024 * 0.95) }' /proc/meminfo)
  for _ in $(seq 20); do   # two free ports, random so parallel tests rarely clash
    ctld_port=$((20000 + RANDOM % 5000 * 2)); slurmd_port=$((ctld_port + 1))
    port_free "$ctld_port" && port_free "$slurmd_port" && break
  done
  cat >"$SLURM_CONF" <<EOF
ClusterName=rnicsim
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
# With -D the daemons log to stderr as well; slurmstepd logs only here.
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# No cgroups: a container without systemd may not offer them.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
# CPUs and memory are what jobs consume; a job that names no memory gets its
# CPUs' share, so that one-CPU jobs run side by side and not one per node.
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
DefMemPerCPU=$((mem / cpus))
# Start jobs at once, not up to 3 s later: six 1 s jobs on 2 CPUs take 6 s, not 9.
SchedulerParameters=batch_sched_delay=0
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

  local ctld_pid slurmd_pid
  spawn "$dir/log/slurmctld.stderr" slurmctld -D -f "$SLURM_CONF"; ctld_pid=$pid
  spawn "$dir/log/slurmd.stderr" slurmd -D -f "$SLURM_CONF"; slurmd_pid=$pid
  # The watcher: stops the cluster once its owner has gone.
  (exec </dev/null >/dev/null 2>&1
   while kill -0 "$owner" 2>/dev/null; do sleep 2; done
   exec "$self" stop "$dir") &
  echo $! >>"$dir/pids"

  # Ready when the node reports idle; fail early if a daemon died. A client
  # waits about 9 s for a controller that does not answer, hence the clock.
  local state=""
  SECONDS=0
  while [ $SECONDS -lt 30 ]; do
    state=$(sinfo -h -n "$node" -o '%T %E' 2>/dev/null || true)   # state, reason
    [ "${state%% *}" = idle ] && break
    kill -0 "$ctld_pid" 2>/dev/null || fail "slurmctld died" "$dir/log/slurmctld.stderr"
    kill -0 "$slurmd_pid" 2>/dev/null || fail "slurmd died" "$dir/log/slurmd.stderr"
    sleep 0.5
  done
  [ "${state%% *}" = idle ] ||
    fail "node $node not idle after 30 s (state '${state:-unknown}')" "$dir/log/slurmctld.stderr"
  echo "export SLURM_CONF=$SLURM_CONF" >"$dir/env"
}

case $action in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
