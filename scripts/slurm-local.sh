#!/bin/bash
# A one-node Slurm cluster on this machine, for trying the cluster scripts against a real Slurm.
#
#   scripts/slurm-local.sh up       install slurm-wlm/munge if missing (needs root), write a minimal
#                                   config under $SLURM_LOCAL_DIR, start munged, slurmctld, slurmd
#   scripts/slurm-local.sh status   the daemons this script started, and `sinfo`
#   scripts/slurm-local.sh down     stop the daemons this script started (by their pid files)
#   scripts/slurm-local.sh env      print the `export SLURM_CONF=...` line clients need
#
# Everything lives under SLURM_LOCAL_DIR (default /tmp/gridcensus-slurm): config, a private munge
# key and socket, state, spool, logs and pid files. Only daemons started by this script (their pid
# files under that directory) are ever stopped. The node has this machine's real CPU count and
# memory (from `slurmd -C`). Environment: SLURM_LOCAL_DIR, SLURM_LOCAL_PORT (slurmctld port,
# default 6817; slurmd uses the next one), SLURM_LOCAL_MAX_ARRAY (MaxArraySize, default 1001).
# The daemons run as root (SlurmUser=root), so `up` and `down` need root.
set -euo pipefail

DIR=${SLURM_LOCAL_DIR:-/tmp/gridcensus-slurm}
PORT=${SLURM_LOCAL_PORT:-6817}
MAX_ARRAY=${SLURM_LOCAL_MAX_ARRAY:-1001}
CONF=$DIR/etc/slurm.conf
export SLURM_CONF=$CONF

die() { echo "slurm-local: $*" >&2; exit 2; }

pid_alive() { # pidfile
    [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

install_packages() {
    local missing=()
    command -v slurmctld >/dev/null || missing+=(slurm-wlm)
    command -v munged >/dev/null || missing+=(munge)
    command -v parallel >/dev/null || missing+=(parallel)
    ((${#missing[@]} == 0)) && return 0
    [[ $(id -u) == 0 ]] || die "packages missing (${missing[*]}) and not root: install them with apt-get install -y slurm-wlm munge parallel"
    echo "slurm-local: installing ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge parallel >/dev/null
}

write_config() {
    local host cpus mem
    host=$(hostname -s)
    # The node's real resources, as slurmd itself reports them.
    cpus=$(slurmd -C | sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' | head -1)
    mem=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' | head -1)
    [[ -n $cpus && -n $mem ]] || die "cannot read this node's CPUs and memory from 'slurmd -C'"
    mkdir -p "$DIR"/{etc,munge,state,spool,log,run}
    chmod 700 "$DIR/munge"
    cat >"$CONF" <<EOF
# One-node cluster written by scripts/slurm-local.sh.
ClusterName=gridcensus-local
SlurmctldHost=$host
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MaxArraySize=$MAX_ARRAY
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    # Slurm looks for these beside slurm.conf; empty ones keep it from reading /etc/slurm.
    : >"$DIR/etc/plugstack.conf"
}

wait_for() { # seconds description command...
    local secs=$1 what=$2
    shift 2
    for ((t = 0; t < secs * 5; t++)); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    die "$what did not come up within ${secs} s (logs in $DIR/log)"
}

up() {
    install_packages
    [[ $(id -u) == 0 ]] || die "the local cluster runs its daemons as root: run 'up' as root"
    write_config
    if ! pid_alive "$DIR/run/munged.pid"; then
        [[ -s $DIR/munge/munge.key ]] || dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
        chmod 400 "$DIR/munge/munge.key"
        munged --force --key-file="$DIR/munge/munge.key" --socket="$DIR/munge/munge.socket" \
            --pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" \
            --seed-file="$DIR/munge/munged.seed"
        wait_for 10 munged munge --socket="$DIR/munge/munge.socket" -n
    fi
    if ! pid_alive "$DIR/run/slurmctld.pid"; then
        slurmctld -f "$CONF" -i
        wait_for 30 slurmctld scontrol ping
    fi
    if ! pid_alive "$DIR/run/slurmd.pid"; then
        slurmd -f "$CONF"
    fi
    # The node is ready when sinfo lists it idle (or mixed/allocated by a leftover job).
    wait_for 60 "the node" bash -c "sinfo -h -N -o %T | grep -Eq '^(idle|mixed|allocated)'"
    echo "slurm-local: up ($(sinfo -h -N -o '%N %c CPUs %m MB %T'))" >&2
    echo "export SLURM_CONF=$CONF"
}

down() {
    local d
    for d in slurmd slurmctld munged; do
        local pf=$DIR/run/$d.pid
        if pid_alive "$pf"; then
            local pid
            pid=$(cat "$pf")
            kill "$pid"
            for ((t = 0; t < 50; t++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
            if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
            echo "slurm-local: stopped $d (pid $pid)" >&2
        fi
        rm -f "$pf"
    done
}

status() {
    local d rc=0
    for d in munged slurmctld slurmd; do
        if pid_alive "$DIR/run/$d.pid"; then
            echo "$d: running (pid $(cat "$DIR/run/$d.pid"))"
        else
            echo "$d: not running"
            rc=1
        fi
    done
    if ((rc == 0)); then sinfo; fi
    return $rc
}

case "${1:-}" in
up) up ;;
down) down ;;
status) status ;;
env) echo "export SLURM_CONF=$CONF" ;;
*)
    echo "usage: $0 up|down|status|env   (see the comment at the top of this script)" >&2
    exit 2
    ;;
esac
