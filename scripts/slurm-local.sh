#!/usr/bin/env bash
# A real one-node Slurm cluster on localhost, for tests and CI that submit jobs with sbatch/srun.
#   scripts/slurm-local.sh install   apt-get install slurm-wlm, munge, libpmix-dev (only what is missing)
#   scripts/slurm-local.sh start     start munged, slurmctld and slurmd; print the export line clients need
#   scripts/slurm-local.sh stop      cancel jobs, stop the daemons this script started (by pid file)
#   scripts/slurm-local.sh status    say whether the cluster is up (exit 0) or not (exit 1)
#   scripts/slurm-local.sh env       print the export line (for eval), whether or not the cluster is up
# Everything lives in one state directory, $HYBRIDPERF_SLURM_DIR (default /tmp/hybridperf-slurm):
# slurm.conf, a private munge key and socket, daemon logs (log/), pid files (run/), Slurm's state.
# Nothing under /etc is read or written, so clients must get SLURM_CONF=<dir>/slurm.conf (printed by
# start). See docs/slurm-local.md.
#
# Choices, and why:
# - Daemons are started by hand as root (SlurmUser=root): the machines here and CI have no systemd as
#   init, and the Debian packages' services are not started when installed in a container.
# - munged runs as root with its own key, socket, pid and log in <dir>/munge, named in slurm.conf by
#   AuthInfo=socket=...; it never touches a system munged or /etc/munge.
# - No cgroups: the machine is a container (gVisor) whose cgroup files cannot be trusted to control
#   anything, so ProctrackType=proctrack/linuxproc (tracks a step's processes through /proc parentage)
#   and TaskPlugin=task/affinity (binds tasks with sched_setaffinity, which works here); no cgroup.conf.
# - SelectType=select/cons_tres with CR_Core: cores are the consumable resource, so --cpus-per-task is
#   honoured and a 2-cpu task gets both cores; memory is not tracked, so jobs need no --mem.
# - MpiDefault=pmix: Debian's Open MPI 4.1 talks PMIx only (its PMI components are ext3x, isolated and
#   flux; there is no PMI-1/PMI-2 client), so under `srun --mpi=pmi2` or `--mpi=none` every task fails
#   in MPI_Init, while `--mpi=pmix` gives one N-rank job. Slurm's pmix plugin dlopens the unversioned
#   libpmix.so, from libpmix-dev.
# - EnforcePartLimits=ALL: a request that can never fit (2 nodes, 4 CPUs on 2 cores) is rejected at
#   submission instead of pending forever. batch_sched_delay=0: a waiting batch job starts within ~1 s
#   of CPUs freeing (default 3 s).
# - Accounting: no slurmdbd. JobCompType=jobcomp/filetxt records finished jobs, which `sacct -c`
#   (--completion) reads; plain `sacct` fails ("accounting storage is disabled"). Running and recently
#   finished jobs are visible with squeue and `scontrol show job` (kept MinJobAge=3600 s).
# - The node is `hostname -s` at 127.0.0.1 with CPUs=$(nproc) and the topology `slurmd -C` reports
#   when the two agree; RealMemory is 90% of MemTotal (a value above the real one would drain the node).
# - Each start of a stopped cluster begins from fresh job state (job ids restart at 1).
set -euo pipefail
PATH="$PATH:/usr/sbin:/sbin"   # slurmctld, slurmd and munged live in /usr/sbin

DIR="${HYBRIDPERF_SLURM_DIR:-/tmp/hybridperf-slurm}"
CONF="$DIR/slurm.conf"
MUNGE_DIR="$DIR/munge"
SOCKET="$MUNGE_DIR/munge.socket.2"
START_TIMEOUT="${HYBRIDPERF_SLURM_TIMEOUT:-30}"   # seconds to wait for the node to become idle
PORT="${HYBRIDPERF_SLURM_PORT:-6817}"              # slurmctld's port; slurmd listens on the next one

die() { echo "slurm-local: $*" >&2; exit 1; }
say() { echo "slurm-local: $*" >&2; }
export_line() { echo "export SLURM_CONF=$CONF"; }

as_root() {   # run a command as root, through sudo if needed
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else die "need root for: $*"; fi
}

# ---------------------------------------------------------------------------------------------- install
# slurm-wlm = slurmctld + slurmd + slurm-client (sbatch, srun, squeue, sacct...); libpmix-dev provides
# the unversioned libpmix.so that Slurm's mpi/pmix plugin dlopens (libopenmpi-dev also pulls it in)
PACKAGES=(slurm-wlm munge libpmix-dev)

installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }

install_packages() {
  local missing=() pkg
  for pkg in "${PACKAGES[@]}"; do installed "$pkg" || missing+=("$pkg"); done
  if [ "${#missing[@]}" -eq 0 ]; then say "already installed: ${PACKAGES[*]}"; return; fi
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq || die "apt-get update failed"
  as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
}

require_installed() {
  local cmd
  for cmd in munged slurmctld slurmd sinfo sbatch; do
    command -v "$cmd" >/dev/null 2>&1 || die "$cmd not found: run '$0 install' first"
  done
}

# ------------------------------------------------------------------------------------------ processes
# pid_of NAME: the pid in run/NAME.pid if that process is alive and is NAME (not a reused pid), else fail
pid_of() {
  local name="$1" file pid
  file="$DIR/run/$name.pid"
  [ -s "$file" ] || return 1
  pid="$(tr -dc '0-9' <"$file")"
  [ -n "$pid" ] && [ -r "/proc/$pid/comm" ] || return 1
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ] || return 1
  echo "$pid"
}

# any_alive PID...: true if one of them still runs (a zombie left for init to reap does not count)
any_alive() {
  local pid
  for pid in "$@"; do
    [ -r "/proc/$pid/stat" ] && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ] && return 0
  done
  return 1
}

# any_exists PID...: true if one of them is still in the process table, zombies included
any_exists() {
  local pid
  for pid in "$@"; do [ -e "/proc/$pid" ] && return 0; done
  return 1
}

# stop_daemons NAME...: SIGTERM to all at once (each takes 1-2 s to exit), wait up to 10 s, then SIGKILL
stop_daemons() {
  local name pid pids=()
  for name in "$@"; do
    if pid="$(pid_of "$name")"; then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done
  for _ in $(seq 100); do
    any_alive "${pids[@]}" || break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do
    if any_alive "$pid"; then
      say "$(cat "/proc/$pid/comm" 2>/dev/null) ($pid) did not stop after 10 s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  # exited daemons stay zombies until init reaps them (about 1.5 s here); wait so that pgrep is clean
  for _ in $(seq 50); do
    any_exists "${pids[@]}" || break
    sleep 0.1
  done
  for name in "$@"; do rm -f "$DIR/run/$name.pid"; done
}

daemons_alive() { pid_of munged >/dev/null && pid_of slurmctld >/dev/null && pid_of slurmd >/dev/null; }

node_state() {   # idle, mix, alloc, down*, ... or nothing if slurmctld does not answer
  SLURM_CONF="$CONF" timeout 10 sinfo -h -N -o '%t' 2>/dev/null | head -n1 || true
}

is_up() { [ -f "$CONF" ] && daemons_alive && [ -n "$(node_state)" ]; }

# ------------------------------------------------------------------------------------------- config
write_munge_key() {
  # munged insists: key readable by its owner only, socket directory searchable by all
  mkdir -p "$MUNGE_DIR"
  chmod 755 "$DIR" "$MUNGE_DIR"
  if [ ! -s "$MUNGE_DIR/munge.key" ]; then
    head -c 1024 /dev/urandom >"$MUNGE_DIR/munge.key.tmp"
    chmod 400 "$MUNGE_DIR/munge.key.tmp"
    mv "$MUNGE_DIR/munge.key.tmp" "$MUNGE_DIR/munge.key"
  fi
}

node_line() {
  # NodeName=<host> NodeAddr=127.0.0.1 CPUs=<nproc> [Boards Sockets Cores Threads] RealMemory=<90%>
  local host cpus mem_kib real_mem hw topo=""
  host="$(hostname -s)"
  cpus="$(nproc)"
  mem_kib="$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)"
  real_mem=$(( mem_kib * 9 / 10 / 1024 ))
  hw="$(slurmd -C 2>/dev/null | head -n1 || true)"
  if [[ "$hw" =~ CPUs=([0-9]+)\ (Boards=.*ThreadsPerCore=[0-9]+) ]] && [ "${BASH_REMATCH[1]}" = "$cpus" ]; then
    topo=" ${BASH_REMATCH[2]}"
  fi
  echo "NodeName=$host NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus$topo RealMemory=$real_mem State=UNKNOWN"
}

write_slurm_conf() {
  local host
  host="$(hostname -s)"
  mkdir -p "$DIR/log" "$DIR/run" "$DIR/state" "$DIR/spool"
  cat >"$CONF" <<EOF
# Written by scripts/slurm-local.sh: a one-node test cluster on localhost. Do not edit; see the script.
ClusterName=hybridperf
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCKET
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
# no systemd, no usable cgroups in the container
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
# cores are consumable, so --cpus-per-task is honoured; memory is not tracked
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# Debian's Open MPI speaks PMIx only
MpiDefault=pmix
# no slurmdbd: finished jobs go to a text file that 'sacct -c' reads
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/jobcomp.txt
# keep finished jobs visible to 'scontrol show job' / 'squeue -t all' for an hour
MinJobAge=3600
ReturnToService=2
# reject at submission what can never run here (more nodes than 1...), instead of pending forever
EnforcePartLimits=ALL
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
InactiveLimit=0
KillWait=5
Waittime=0
$(node_line)
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

# -------------------------------------------------------------------------------------------- start
start_munged() {
  pid_of munged >/dev/null && return 0
  rm -f "$SOCKET" "$SOCKET.lock"
  munged --key-file="$MUNGE_DIR/munge.key" --socket="$SOCKET" --pid-file="$DIR/run/munged.pid" \
    --log-file="$DIR/log/munged.log" --seed-file="$MUNGE_DIR/munged.seed" 2>>"$DIR/log/munged.log" \
    || die "munged failed to start: $(last_error "$DIR/log/munged.log")"
  wait_pid_file munged
  munge -S "$SOCKET" -n </dev/null | unmunge -S "$SOCKET" >/dev/null 2>&1 \
    || die "munged started but a credential round trip failed: see $DIR/log/munged.log"
}

last_error() {   # the last error line of a log, for a one-line failure message
  grep -hiE 'error|fatal' "$1" 2>/dev/null | tail -n1 | sed 's/^\[[^]]*\] //' | cut -c1-200 || true
}

start_slurm_daemons() {
  # fresh job state every time the cluster is started from stopped
  rm -rf "${DIR:?}/state" "${DIR:?}/spool" "$DIR/jobcomp.txt"
  mkdir -p "$DIR/state" "$DIR/spool"
  : >"$DIR/log/slurmctld.log"
  : >"$DIR/log/slurmd.log"
  slurmctld -f "$CONF" -c 2>>"$DIR/log/slurmctld.log" \
    || die "slurmctld failed to start: $(last_error "$DIR/log/slurmctld.log")"
  wait_pid_file slurmctld
  slurmd -f "$CONF" 2>>"$DIR/log/slurmd.log" \
    || die "slurmd failed to start: $(last_error "$DIR/log/slurmd.log")"
  wait_pid_file slurmd
}

# wait_pid_file NAME: the daemon returns before its forked child writes the pid file; wait for it
wait_pid_file() {
  for _ in $(seq 100); do
    pid_of "$1" >/dev/null && return 0
    sleep 0.1
  done
  die "$1 did not start within 10 s: $(last_error "$DIR/log/$1.log")"
}

wait_idle() {
  local deadline state=""
  deadline=$(( $(date +%s) + START_TIMEOUT ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    pid_of slurmctld >/dev/null || die "slurmctld exited: $(last_error "$DIR/log/slurmctld.log")"
    pid_of slurmd >/dev/null || die "slurmd exited: $(last_error "$DIR/log/slurmd.log")"
    state="$(node_state)"
    case "$state" in idle|mix|alloc) return 0 ;; esac   # a trailing * (not responding) is not ready
    sleep 0.3
  done
  die "node not idle after ${START_TIMEOUT}s (state '${state:-no answer}'): see $DIR/log/"
}

cleanup_failed_start() {
  local rc=$?
  [ "$rc" = 0 ] || stop_all quiet
  exit "$rc"
}

need_root() {   # the daemons run as root (SlurmUser=root); re-run through sudo when possible
  [ "$(id -u)" = 0 ] && return 0
  command -v sudo >/dev/null 2>&1 || die "$1 must run as root (no sudo found)"
  exec sudo -E HYBRIDPERF_SLURM_DIR="$DIR" "$0" "$@"
}

cmd_start() {
  require_installed
  if is_up; then export_line; return 0; fi
  # a partial cluster (one daemon died) is stopped and started afresh
  stop_all quiet
  # if anything below fails, leave no daemon behind
  trap cleanup_failed_start EXIT
  mkdir -p "$DIR"
  write_munge_key
  write_slurm_conf
  start_munged
  start_slurm_daemons
  wait_idle
  say "cluster up: node $(hostname -s), $(nproc) CPUs, partition debug (state dir $DIR)"
  export_line
}

# --------------------------------------------------------------------------------------------- stop
cancel_jobs() {
  local jobs
  pid_of slurmctld >/dev/null && [ -f "$CONF" ] || return 0
  jobs="$(SLURM_CONF="$CONF" squeue -h -o %i 2>/dev/null || true)"
  [ -n "$jobs" ] || return 0
  # shellcheck disable=SC2086  # one argument per job id
  SLURM_CONF="$CONF" scancel --quiet $jobs 2>/dev/null || true
  for _ in $(seq 50); do   # up to 10 s for the steps to end
    [ -z "$(SLURM_CONF="$CONF" squeue -h -o %i 2>/dev/null)" ] && break
    sleep 0.2
  done
}

stop_all() {
  local quiet="${1:-}" was_up=0 d
  for d in munged slurmctld slurmd; do pid_of "$d" >/dev/null && was_up=1; done
  cancel_jobs
  stop_daemons slurmd slurmctld munged
  if [ -z "$quiet" ]; then
    if [ "$was_up" = 1 ]; then say "stopped"; else say "not running (nothing to stop)"; fi
  fi
}

cmd_status() {
  if is_up; then
    echo "slurm-local: up (node $(hostname -s) $(node_state); state dir $DIR)"
    export_line
  else
    local d running=()
    for d in munged slurmctld slurmd; do pid_of "$d" >/dev/null && running+=("$d"); done
    echo "slurm-local: down${running[*]:+ (running: ${running[*]})}"
    return 1
  fi
}

case "${1:-}" in
  install) install_packages ;;
  start) need_root start; cmd_start ;;
  stop) need_root stop; stop_all ;;
  status) cmd_status ;;
  env) export_line ;;
  -h|--help|help) sed -n '2,11s/^# \{0,1\}//p' "$0" ;;
  *) echo "usage: $0 install|start|stop|status|env (see --help)" >&2; exit 2 ;;
esac
