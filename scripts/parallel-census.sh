#!/bin/bash
# Run the Latin census of one order as shards under GNU parallel, then merge and report.
#
#   scripts/parallel-census.sh [ORDER] [SHARDS] [extra GNU parallel options...]
#
# Local cores:   scripts/parallel-census.sh 8 16 -j 2
# Remote hosts:  scripts/parallel-census.sh 8 64 --sshloginfile hosts.txt
#   (each host needs the same binary at $BIN relative to its login directory, e.g. a shared home,
#    or add `--basefile "$BIN"`; partial files come back with --return.)
# Each shard runs single-threaded unless THREADS is set, writes one partial file, and is
# resumable (rerun the script: finished shards are skipped, interrupted ones resume).
set -euo pipefail

BIN=${BIN:-target/release/gridcensus}
RESULTS=${RESULTS:-results}
THREADS=${THREADS:-1}
ORDER=${1:-8}
SHARDS=${2:-16}
shift $(( $# >= 2 ? 2 : $# ))

command -v parallel >/dev/null || { echo "GNU parallel is not installed (apt install parallel)" >&2; exit 2; }
mkdir -p "$RESULTS/partials" "$RESULTS/.journal"

part() { echo "$RESULTS/partials/latin-census-order$ORDER-shard-$1-of-$SHARDS.json"; }
export BIN RESULTS THREADS ORDER SHARDS

seq 0 $((SHARDS - 1)) | parallel --halt now,fail=1 --return "$(part '{}')" "$@" \
    "test -s $(part '{}') || $BIN latin census --orders $ORDER --shard {}/$SHARDS --resume --no-progress \
        --threads $THREADS --results $RESULTS \
        --journal $RESULTS/.journal/latin-census-order$ORDER-shard-{}-of-$SHARDS.jsonl \
        --partial-out $(part '{}')"

files=()
for ((i = 0; i < SHARDS; i++)); do files+=("$(part "$i")"); done
"$BIN" merge --results "$RESULTS" "${files[@]}"
"$BIN" report --results "$RESULTS"
