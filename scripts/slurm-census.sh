#!/bin/bash
# Run the Latin census of one order as a Slurm job array, then merge and report.
#
#   scripts/slurm-census.sh submit [ORDER] [SHARDS]   # submit the array + a dependent merge job
#
# Each array task runs one shard, chosen by SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT, on the
# cores Slurm gives it, and writes a partial file into $RESULTS/partials/. The merge job (which
# runs only if every task succeeded) combines them into exactly the bytes an unsharded run
# writes, then runs the report check. Tasks are resumable: a requeued task continues from its
# journal. Environment: BIN (default target/release/gridcensus), RESULTS (default results; must
# be on a shared filesystem), SBATCH_ARGS (extra sbatch options, e.g. partition/account).
set -euo pipefail

BIN=${BIN:-target/release/gridcensus}
RESULTS=${RESULTS:-results}
mode=${1:-}

partial_name() { # order index count
    echo "$RESULTS/partials/latin-census-order$1-shard-$2-of-$3.json"
}

case "$mode" in
submit)
    ORDER=${2:-8}
    SHARDS=${3:-64}
    mkdir -p "$RESULTS/partials" logs
    array_id=$(sbatch --parsable ${SBATCH_ARGS:-} --job-name="gridcensus-latin$ORDER" \
        --array="0-$((SHARDS - 1))" --cpus-per-task="${CPUS_PER_TASK:-4}" --requeue \
        --output="logs/latin$ORDER-%a.out" \
        --export=ALL,BIN="$BIN",RESULTS="$RESULTS",ORDER="$ORDER",SHARDS="$SHARDS" \
        "$0" task)
    sbatch ${SBATCH_ARGS:-} --job-name="gridcensus-merge$ORDER" --dependency="afterok:$array_id" \
        --output="logs/latin$ORDER-merge.out" \
        --export=ALL,BIN="$BIN",RESULTS="$RESULTS",ORDER="$ORDER",SHARDS="$SHARDS" \
        "$0" merge
    echo "submitted array $array_id ($SHARDS shards of order $ORDER) and its merge job"
    ;;
task)
    : "${SLURM_ARRAY_TASK_ID:?task mode runs inside a Slurm array task}"
    I=$SLURM_ARRAY_TASK_ID
    N=${SLURM_ARRAY_TASK_COUNT:-$SHARDS}
    "$BIN" latin census --orders "$ORDER" --shard "$I/$N" --resume --no-progress \
        --threads "${SLURM_CPUS_PER_TASK:-1}" --results "$RESULTS" \
        --journal "$RESULTS/.journal/latin-census-order$ORDER-shard-$I-of-$N.jsonl" \
        --partial-out "$(partial_name "$ORDER" "$I" "$N")"
    ;;
merge)
    files=()
    for ((i = 0; i < SHARDS; i++)); do files+=("$(partial_name "$ORDER" "$i" "$SHARDS")"); done
    "$BIN" merge --results "$RESULTS" "${files[@]}"
    "$BIN" report --results "$RESULTS"
    ;;
*)
    echo "usage: $0 submit [ORDER] [SHARDS]" >&2
    exit 2
    ;;
esac
