#!/bin/bash
# Run any gridcensus engine job as shards under GNU parallel, then merge the shards and report.
#
#   scripts/parallel-job.sh [OPTIONS] -- JOB ARGS
#
#   e.g. scripts/parallel-job.sh --shards 16 -- latin census --orders 8          (local cores)
#        scripts/parallel-job.sh --shards 64 --sshloginfile hosts.txt -- latin census --orders 8
#
# OPTIONS (each also settable by the environment variable in brackets):
#   --shards N          shards (default 16) [SHARDS]
#   --jobs J            shards run at once per host (default: the host's cores / threads) [JOBS]
#   --threads T         threads per shard (default 1) [THREADS]
#   --results DIR       results directory (default results) [RESULTS]
#   --bin PATH          the gridcensus binary (default target/release/gridcensus) [BIN]
#   --sshloginfile F    run on the hosts listed in F (GNU parallel's format) instead of locally;
#   -S LOGINS           or on these hosts (comma-separated, GNU parallel's --sshlogin)
#   PARALLEL_ARGS       extra GNU parallel options, environment only.
#
# Local runs use the local cores. With remote hosts the binary is copied with --basefile and
# each shard's partial file comes back with --return (both only then: GNU parallel ignores them
# locally); RESULTS and BIN must then be relative paths (they are created under each host's
# login directory). The job log (DIR/.cluster/<kind>-<digest>-of-<N>/parallel.joblog) with
# --resume-failed makes a rerun skip finished shards and redo failed ones; a shard whose journal
# exists resumes from it. The job's digest names its journals and partials, so different jobs can
# share one results directory. After every shard succeeded the partials are merged into exactly
# the bytes an unsharded run writes, then `gridcensus report --results DIR` (present families).
set -euo pipefail

die() { echo "parallel-job: $*" >&2; exit 2; }

SHARDS=${SHARDS:-16}
JOBS=${JOBS:-}
THREADS=${THREADS:-1}
RESULTS=${RESULTS:-results}
BIN=${BIN:-target/release/gridcensus}
remote=()
while (($#)); do
    case "$1" in
    --shards) SHARDS=${2:?--shards needs N}; shift 2 ;;
    --jobs) JOBS=${2:?--jobs needs J}; shift 2 ;;
    --threads) THREADS=${2:?--threads needs T}; shift 2 ;;
    --results) RESULTS=${2:?--results needs DIR}; shift 2 ;;
    --bin) BIN=${2:?--bin needs a path}; shift 2 ;;
    --sshloginfile) remote=(--sshloginfile "${2:?--sshloginfile needs a file}"); shift 2 ;;
    -S | --sshlogin) remote=(--sshlogin "${2:?-S needs hosts}"); shift 2 ;;
    --) shift; break ;;
    -h | --help) sed -n '2,27p' "$0"; exit 0 ;;
    *) die "unknown option '$1' (the job's own arguments go after --)" ;;
    esac
done
JOB=("$@")
((${#JOB[@]})) || die "no job given: scripts/parallel-job.sh [OPTIONS] -- JOB ARGS"
[[ $SHARDS =~ ^[1-9][0-9]*$ ]] || die "--shards must be a positive integer (got '$SHARDS')"
[[ $THREADS =~ ^[1-9][0-9]*$ ]] || die "--threads must be a positive integer (got '$THREADS')"
[[ -z $JOBS || $JOBS =~ ^[1-9][0-9]*$ ]] || die "--jobs must be a positive integer (got '$JOBS')"
for a in "${JOB[@]}"; do
    case "$a" in --results | --results=* | --shard | --shard=* | --threads | --threads=*)
        die "give $a to this script, not inside the job arguments" ;;
    esac
done
command -v parallel >/dev/null || die "GNU parallel is not installed (apt-get install parallel)"
[[ -x $BIN ]] || die "no gridcensus binary at $BIN (cargo build --release, or --bin PATH)"
if ((${#remote[@]})); then
    [[ $RESULTS != /* && $BIN != /* ]] || die "with remote hosts give --results and --bin as relative paths"
fi
mkdir -p "$RESULTS"

paths=$("$BIN" plan --paths "$SHARDS" -- "${JOB[@]}" --results "$RESULTS") ||
    die "the job arguments were refused (see the error above)"
read -r _ KIND DIGEST UNITS <<<"$(head -1 <<<"$paths")"
STATE=$RESULTS/.cluster/$KIND-$DIGEST-of-$SHARDS
mkdir -p "$STATE" "$RESULTS/partials" "$RESULTS/.journal"
tail -n +2 <<<"$paths" >"$STATE/paths"
((SHARDS <= UNITS)) || echo "parallel-job: note: $SHARDS shards for $UNITS units: some shards are empty" >&2

# The shard files as templates in the shard index {} (checked against every shard's names).
read -r _ _ p0 j0 <<<"$(head -1 "$STATE/paths")"
ptpl_pre=${p0%-shard-0-of-*}-shard- ptpl_suf=-of-${p0##*-shard-0-of-}
jtpl_pre=${j0%-shard-0-of-*}-shard- jtpl_suf=-of-${j0##*-shard-0-of-}
while read -r _ i partial journal; do
    [[ $partial == "$ptpl_pre$i$ptpl_suf" && $journal == "$jtpl_pre$i$jtpl_suf" ]] ||
        die "unexpected file names for shard $i: $partial $journal"
done <"$STATE/paths"
q() { printf '%q' "$1"; }
P="$(q "$ptpl_pre"){}$(q "$ptpl_suf")"
J="$(q "$jtpl_pre"){}$(q "$jtpl_suf")"
# One shell command per shard: skip when its partial exists, resume when its journal exists.
cmd="test -s $P || { if test -e $J; then r=--resume; else r=; fi; $(q "$BIN") $(printf '%q ' "${JOB[@]}")--results $(q "$RESULTS") --shard {}/$SHARDS \$r --no-progress --threads $THREADS; }"

popts=(--joblog "$STATE/parallel.joblog" --resume-failed --halt never)
if [[ -n $JOBS ]]; then
    popts+=(-j "$JOBS")
elif ((${#remote[@]})); then
    popts+=(-j "$((100 / THREADS))%")
else
    popts+=(-j "$(($(nproc) / THREADS > 0 ? $(nproc) / THREADS : 1))")
fi
if ((${#remote[@]})); then
    # Remote: ship the binary, bring each shard's partial file back.
    popts+=("${remote[@]}" --basefile "$BIN" --return "$ptpl_pre{}$ptpl_suf")
fi
rc=0
# shellcheck disable=SC2086
parallel "${popts[@]}" ${PARALLEL_ARGS:-} "$cmd" ::: $(seq 0 $((SHARDS - 1))) || rc=$?

files=()
missing=()
while read -r _ i partial _; do
    if [[ -s $partial ]]; then files+=("$partial"); else missing+=("$i"); fi
done <"$STATE/paths"
if ((${#missing[@]})); then
    echo "parallel-job: ${#missing[@]} of $SHARDS shards have no partial file (shards ${missing[*]}); rerun the same command to redo them (job log $STATE/parallel.joblog)" >&2
    exit 1
fi
((rc == 0)) || echo "parallel-job: note: GNU parallel exited $rc, but every shard's partial file is there" >&2
"$BIN" merge --results "$RESULTS" "${files[@]}"
"$BIN" report --results "$RESULTS"
