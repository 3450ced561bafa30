#!/bin/bash
# Run any gridcensus engine job as a Slurm job array, then merge the shards and report.
#
#   scripts/slurm-job.sh [submit] [OPTIONS] -- JOB ARGS     submit the missing shards + a merge job
#   scripts/slurm-job.sh status   [OPTIONS] -- JOB ARGS     which shards are done/running/failed/missing
#
#   e.g. scripts/slurm-job.sh --shards 64 -- latin census --orders 8
#        scripts/slurm-job.sh --shards 16 --throttle 4 -- calcudoku agree --orders 4-7 --boards 100000
#        scripts/slurm-job.sh status --shards 64 -- latin census --orders 8
#
# OPTIONS (each also settable by the environment variable in brackets):
#   --shards N      shards = array tasks (default 64) [SHARDS]
#   --throttle K    at most K tasks of an array run at once (default 0 = no limit) [THROTTLE]
#   --cpus C        CPUs per task, passed to the job as --threads (default: the CPU count of the
#                   smallest node in the partition, or 1 if Slurm does not say) [CPUS_PER_TASK]
#   --partition P   partition (default: the cluster's default partition) [PARTITION]
#   --results DIR   results directory on a filesystem every node sees (default results) [RESULTS]
#   --bin PATH      the gridcensus binary, same path on every node
#                   (default target/release/gridcensus) [BIN]
#   SBATCH_ARGS     extra sbatch options for every job (account, time limit, ...), environment only.
#
# The job's own digest (`gridcensus plan --paths`) names its journals and partial files, so
# different jobs can share one results directory. Every task runs one shard with --resume when
# its journal exists, and is submitted with --requeue: a preempted or requeued task continues
# from its journal. Arrays larger than the site's MaxArraySize are split into several arrays. A
# merge job, dependent on every array finishing successfully (afterok; arrays of an earlier
# submission that are still queued: afterany, then the merge checks every partial), merges the partial files
# into exactly the bytes an unsharded run writes and runs `gridcensus report --results DIR`
# (present result families only). Submitting again runs only the shards without a partial file
# that are not queued or running, and replaces a merge job still waiting.
# Logs: DIR/.cluster/<kind>-<digest>-of-<N>/logs/shard-<I>.log (one per shard) and merge.log.
set -euo pipefail

die() { echo "slurm-job: $*" >&2; exit 2; }

mode=submit
case "${1:-}" in
submit | status) mode=$1; shift ;;
task | merge) mode=$1; shift ;; # internal: run inside Slurm
esac

# --- inside Slurm: everything comes from the state directory -----------------------------------
load_state() { # STATE
    STATE=$1
    [[ -f $STATE/job.env ]] || die "no job state in $STATE"
    # shellcheck disable=SC1091
    source "$STATE/job.env"
    mapfile -d '' JOB <"$STATE/job.args"
}

if [[ $mode == task ]]; then
    load_state "$1"
    : "${SLURM_ARRAY_TASK_ID:?task mode runs inside a Slurm array task}"
    I=$((${GC_OFFSET:-0} + SLURM_ARRAY_TASK_ID))
    exec >>"$STATE/logs/shard-$I.log" 2>&1
    echo "== shard $I/$N: job ${SLURM_ARRAY_JOB_ID:-?}_${SLURM_ARRAY_TASK_ID} on $(hostname) at $(date -u +%FT%TZ), ${SLURM_CPUS_PER_TASK:-1} CPUs (restart ${SLURM_RESTART_COUNT:-0})"
    read -r _ _ partial journal < <(grep "^shard $I " "$STATE/paths")
    if [[ -s $partial ]]; then
        echo "partial file already there: nothing to do"
        exit 0
    fi
    resume=()
    if [[ -e $journal ]]; then
        resume=(--resume)
        echo "resuming from its journal ($(($(wc -l <"$journal") - 1)) units recorded)"
    fi
    rc=0
    "$BIN" "${JOB[@]}" --results "$RESULTS" --shard "$I/$N" "${resume[@]}" --no-progress \
        --threads "${SLURM_CPUS_PER_TASK:-1}" || rc=$?
    echo "== shard $I/$N exit $rc at $(date -u +%FT%TZ)"
    exit $rc
fi

if [[ $mode == merge ]]; then
    load_state "$1"
    exec >>"$STATE/logs/merge.log" 2>&1
    rm -f "$STATE/merge.ok" "$STATE/merge.failed"
    echo "== merge of $N shards at $(date -u +%FT%TZ)"
    files=()
    while read -r _ i partial _; do
        [[ -s $partial ]] || { echo "shard $i has no partial file $partial"; echo missing >"$STATE/merge.failed"; exit 1; }
        files+=("$partial")
    done <"$STATE/paths"
    rc=0
    "$BIN" merge --results "$RESULTS" "${files[@]}" || rc=$?
    if ((rc == 0)); then "$BIN" report --results "$RESULTS" || rc=$?; fi
    echo "== merge exit $rc at $(date -u +%FT%TZ)"
    if ((rc == 0)); then date -u +%FT%TZ >"$STATE/merge.ok"; else echo "$rc" >"$STATE/merge.failed"; fi
    exit $rc
fi

# --- on the login node: submit or status -------------------------------------------------------
SHARDS=${SHARDS:-64}
THROTTLE=${THROTTLE:-0}
CPUS=${CPUS_PER_TASK:-}
PARTITION=${PARTITION:-}
RESULTS=${RESULTS:-results}
BIN=${BIN:-target/release/gridcensus}
while (($#)); do
    case "$1" in
    --shards) SHARDS=${2:?--shards needs N}; shift 2 ;;
    --throttle) THROTTLE=${2:?--throttle needs K}; shift 2 ;;
    --cpus) CPUS=${2:?--cpus needs C}; shift 2 ;;
    --partition) PARTITION=${2:?--partition needs a name}; shift 2 ;;
    --results) RESULTS=${2:?--results needs DIR}; shift 2 ;;
    --bin) BIN=${2:?--bin needs a path}; shift 2 ;;
    --) shift; break ;;
    -h | --help) sed -n '2,32p' "$0"; exit 0 ;;
    *) die "unknown option '$1' (the job's own arguments go after --)" ;;
    esac
done
JOB=("$@")
((${#JOB[@]})) || die "no job given: scripts/slurm-job.sh [submit|status] [OPTIONS] -- JOB ARGS"
[[ $SHARDS =~ ^[1-9][0-9]*$ ]] || die "--shards must be a positive integer (got '$SHARDS')"
[[ $THROTTLE =~ ^[0-9]+$ ]] || die "--throttle must be a non-negative integer (got '$THROTTLE')"
for a in "${JOB[@]}"; do
    case "$a" in --results | --results=* | --shard | --shard=* | --threads | --threads=*)
        die "give $a to this script, not inside the job arguments" ;;
    esac
done
[[ -x $BIN ]] || die "no gridcensus binary at $BIN (cargo build --release, or --bin PATH)"
BIN=$(realpath "$BIN")
mkdir -p "$RESULTS"
RESULTS=$(realpath "$RESULTS")
command -v sbatch >/dev/null || die "sbatch not found: is this a Slurm login node?"

# The job's files, named by its digest (the binary is the one authority on names).
paths=$("$BIN" plan --paths "$SHARDS" -- "${JOB[@]}" --results "$RESULTS") ||
    die "the job arguments were refused (see the error above)"
read -r _ KIND DIGEST UNITS <<<"$(head -1 <<<"$paths")"
STATE=$RESULTS/.cluster/$KIND-$DIGEST-of-$SHARDS
NAME=gc-$KIND-${DIGEST:0:8}
if [[ $mode == submit ]]; then
    mkdir -p "$STATE/logs"
    tail -n +2 <<<"$paths" >"$STATE/paths"
    printf '%s\0' "${JOB[@]}" >"$STATE/job.args"
    printf 'BIN=%q\nRESULTS=%q\nN=%q\nKIND=%q\nDIGEST=%q\n' "$BIN" "$RESULTS" "$SHARDS" "$KIND" "$DIGEST" >"$STATE/job.env"
    touch "$STATE/arrays"
elif [[ ! -f $STATE/arrays ]]; then
    echo "job $KIND $DIGEST: never submitted with $SHARDS shards under $RESULTS"
    exit 1
fi
((SHARDS <= UNITS)) || echo "slurm-job: note: $SHARDS shards for $UNITS units: some shards are empty" >&2

# Shard -> queue state ("PENDING", "RUNNING", ...) of every queued task of this job's arrays.
declare -A QSTATE=()
queue_states() {
    local ids
    ids=$(awk '{print $1}' "$STATE/arrays" | paste -sd, -)
    [[ -n $ids ]] || return 0
    declare -A offset=()
    while read -r id off; do offset[$id]=$off; done <"$STATE/arrays"
    local line aid tid st
    while read -r aid tid st; do
        [[ -n ${offset[$aid]:-} ]] || continue
        if [[ $tid =~ ^[0-9]+$ ]]; then
            QSTATE[$((offset[$aid] + tid))]=$st
        else # a pending range such as [3-7%2] or 1,4
            tid=${tid#[}; tid=${tid%]}; tid=${tid%%\%*}
            local part a b
            IFS=, read -ra parts <<<"$tid"
            for part in "${parts[@]}"; do
                a=${part%-*}; b=${part#*-}
                for ((k = a; k <= b; k++)); do QSTATE[$((offset[$aid] + k))]=$st; done
            done
        fi
    done < <(squeue -h -r -j "$ids" -o '%F %K %T' 2>/dev/null || true)
}

shard_status() { # I partial journal -> done|running|pending|failed|missing (+ detail)
    local i=$1 partial=$2 journal=$3 q=${QSTATE[$1]:-}
    if [[ -s $partial ]]; then echo done; return; fi
    case "$q" in
    RUNNING | COMPLETING | CONFIGURING) echo running; return ;;
    PENDING | REQUEUED | REQUEUE_HOLD | REQUEUE_FED | SUSPENDED) echo pending; return ;;
    esac
    if [[ -e $journal || -e $STATE/logs/shard-$i.log ]]; then echo failed; else echo missing; fi
}

journal_units() { # journal -> finished units recorded in it
    [[ -e $1 ]] || { echo 0; return; }
    echo $(($(wc -l <"$1") > 0 ? $(wc -l <"$1") - 1 : 0))
}

compress() { # sorted integers -> "0-3,7,9-10"
    awk 'NR==1{a=b=$1;next} $1==b+1{b=$1;next} {printf "%s%s,", a, (a==b?"":"-"b); a=b=$1}
         END{if(NR) printf "%s%s", a, (a==b?"":"-"b)}'
}

queue_states
declare -A COUNT=([done]=0 [running]=0 [pending]=0 [failed]=0 [missing]=0)
declare -A LIST=()
while read -r _ i partial journal; do
    st=$(shard_status "$i" "$partial" "$journal")
    COUNT[$st]=$((COUNT[$st] + 1))
    LIST[$st]+="$i "
    if [[ $mode == status && $st == failed ]]; then
        echo "shard $i: failed or interrupted ($(journal_units "$journal") units journaled; log $STATE/logs/shard-$i.log)"
    fi
done <"$STATE/paths"

if [[ $mode == status ]]; then
    echo "job $KIND $DIGEST: $UNITS units in $SHARDS shards under $RESULTS"
    for st in done running pending failed missing; do
        printf '  %-8s %5d  %s\n' "$st" "${COUNT[$st]}" \
            "$(tr ' ' '\n' <<<"${LIST[$st]:-}" | grep . | sort -n | compress)"
    done
    if [[ -e $STATE/merge.ok ]]; then
        echo "  merged and reported at $(cat "$STATE/merge.ok") (log $STATE/logs/merge.log)"
    elif [[ -e $STATE/merge.failed ]]; then
        echo "  merge failed (log $STATE/logs/merge.log)"
    elif [[ -s $STATE/merge.job ]]; then
        echo "  merge job $(cat "$STATE/merge.job") waiting"
    fi
    ((COUNT[done] == SHARDS)) && exit 0 || exit 1
fi

# --- submit -------------------------------------------------------------------------------------
todo=$(tr ' ' '\n' <<<"${LIST[failed]:-} ${LIST[missing]:-}" | grep . | sort -n || true)
part_args=()
[[ -n $PARTITION ]] && part_args=(--partition "$PARTITION")
if [[ -z $CPUS ]]; then
    # The smallest node of the partition: a task of that many CPUs fits on every node.
    CPUS=$(sinfo -h "${part_args[@]}" -o '%c' 2>/dev/null | grep -o '^[0-9]*' | sort -n | head -1 || true)
    [[ $CPUS =~ ^[1-9][0-9]*$ ]] || CPUS=1
fi
[[ $CPUS =~ ^[1-9][0-9]*$ ]] || die "--cpus must be a positive integer (got '$CPUS')"
MAXARR=$(scontrol show config 2>/dev/null | sed -n 's/^MaxArraySize *= *\([0-9]*\).*/\1/p')
[[ $MAXARR =~ ^[1-9][0-9]*$ ]] || MAXARR=1001

# A waiting merge job of an earlier submission would merge too early or never: replace it.
if [[ -s $STATE/merge.job ]]; then
    scancel "$(cat "$STATE/merge.job")" 2>/dev/null || true
    rm -f "$STATE/merge.job"
fi
rm -f "$STATE/merge.ok" "$STATE/merge.failed"

deps=()
if [[ -n $todo ]]; then
    # Task IDs must stay below MaxArraySize: shard I goes to array floor(I/M) as task I mod M.
    declare -A GROUP=()
    for i in $todo; do GROUP[$((i / MAXARR))]+="$((i % MAXARR))"$'\n'; done
    for g in $(printf '%s\n' "${!GROUP[@]}" | sort -n); do
        spec=$(printf '%s' "${GROUP[$g]}" | grep . | sort -n | compress)
        ((THROTTLE > 0)) && spec+="%$THROTTLE"
        off=$((g * MAXARR))
        # shellcheck disable=SC2086
        id=$(sbatch --parsable ${SBATCH_ARGS:-} "${part_args[@]}" --job-name="$NAME" \
            --array="$spec" --cpus-per-task="$CPUS" --requeue --open-mode=append \
            --output="$STATE/logs/slurm-%A_%a.out" \
            --export=ALL,GC_OFFSET="$off" "$0" task "$STATE")
        id=${id%%;*}
        echo "$id $off" >>"$STATE/arrays"
        deps+=("$id")
        echo "submitted array $id: shards $off + [$spec], $CPUS CPUs per task"
    done
fi
# Arrays of an earlier submission still in the queue must end before the merge too; they may
# hold failed tasks (resubmitted above), so the merge waits for them to end (afterany) and then
# checks itself that every shard's partial file is there.
older=()
while read -r id _; do
    [[ " ${deps[*]:-} " == *" $id "* ]] && continue
    squeue -h -j "$id" -o %i 2>/dev/null | grep -q . && older+=("$id")
done <"$STATE/arrays"
dep=""
((${#deps[@]})) && dep="afterok:$(IFS=:; echo "${deps[*]}")"
((${#older[@]})) && dep+="${dep:+,}afterany:$(IFS=:; echo "${older[*]}")"
dep_args=()
[[ -n $dep ]] && dep_args=(--dependency="$dep")
# shellcheck disable=SC2086
mid=$(sbatch --parsable ${SBATCH_ARGS:-} "${part_args[@]}" --job-name="$NAME-merge" \
    "${dep_args[@]}" --cpus-per-task=1 --output="$STATE/logs/slurm-merge-%j.out" \
    "$0" merge "$STATE")
mid=${mid%%;*}
echo "$mid" >"$STATE/merge.job"
echo "submitted merge job $mid (${dep:-no dependency}); ${COUNT[done]} of $SHARDS shards already done"
echo "follow with: $0 status --shards $SHARDS --results $RESULTS -- ${JOB[*]}"
