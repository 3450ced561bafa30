#!/bin/bash
# `make cluster-check`: the cluster scripts against a live one-node Slurm and GNU parallel.
#
# Brings up a local Slurm (scripts/slurm-local.sh, MaxArraySize 5 so that an 8-task array is
# split), then for three engine jobs -- a Latin census (order 7 as 8 shards), a Latin sampler
# study and a Calcudoku agreement study -- compares every merged result file byte for byte with
# an unsharded run: once through scripts/slurm-job.sh (all three jobs sharing one results
# directory) and once through scripts/parallel-job.sh. Then it cancels one task of a sampler run
# mid-run (scancel), checks that `status` reports it, re-submits, checks that only that shard
# ran again, that it resumed from its journal, and that the result is still identical. Tears the
# cluster down on exit. Any difference or timeout fails (exit 1). Needs root (the local Slurm's
# daemons run as root) and the release binary. KEEP=1 keeps the scratch directory.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=$ROOT/target/release/gridcensus
[[ -x $BIN ]] || { echo "cluster-check: build the release binary first (cargo build --release)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gridcensus-cluster-check.XXXXXX")
export SLURM_LOCAL_DIR=$WORK/slurm SLURM_LOCAL_MAX_ARRAY=5
export BIN
FAILED=0
cleanup() {
    scripts/slurm-local.sh down || true
    if [[ ${KEEP:-0} == 1 ]]; then echo "cluster-check: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'echo "cluster-check: interrupted" >&2; exit 124' TERM INT

say() { echo "cluster-check: $*" >&2; }
fail() { say "FAIL: $*"; FAILED=1; }
t0=$SECONDS

eval "$(scripts/slurm-local.sh up)"
say "local Slurm up in $((SECONDS - t0)) s"

CENSUS=(latin census --orders 7)
SAMPLERS=(latin samplers --orders 5-6 --draws 4000 --floor-sims 10 --batch 500)
AGREE=(calcudoku agree --orders 4-5 --max-cages 2-4 --boards 60)
FILES=(latin_census.csv latin_census_summary.csv latin_samplers.csv calcudoku_agree.csv)

# Every results directory starts with the repository's census table (orders 1-8) and its
# summary: the sampler study reads its exact distributions from <results>/latin_census.csv, also
# when merging, the report holds the summary to the census, and the census job below recomputes
# its order-7 row in place (the other rows are kept).
seed() { mkdir -p "$1" && cp "$ROOT/results/latin_census.csv" "$ROOT/results/latin_census_summary.csv" "$1/"; }
for d in ref ref-long slurm-results parallel-results cancel-results; do seed "$WORK/$d"; done

# Unsharded reference runs.
REF=$WORK/ref
for job in CENSUS SAMPLERS AGREE; do
    declare -n j=$job
    "$BIN" "${j[@]}" --results "$WORK/ref" --no-progress --threads 2 2>>"$WORK/ref.log"
done
say "unsharded reference runs done ($((SECONDS - t0)) s)"

compare() { # dir label files... (against $REF)
    local dir=$1 label=$2 f
    shift 2
    for f in "$@"; do
        if [[ ! -s $dir/$f ]]; then
            fail "$label: $f was not written"
        elif cmp -s "$REF/$f" "$dir/$f"; then
            say "$label: $f identical to the unsharded run"
        else
            fail "$label: $f differs from the unsharded run"
            diff "$REF/$f" "$dir/$f" | head -5 >&2 || true
        fi
    done
}

state_dir() { # results shards job... -> the job's state directory
    local res=$1 n=$2
    shift 2
    local kind digest
    read -r _ kind digest _ <<<"$("$BIN" plan --paths "$n" -- "$@" --results "$res" | head -1)"
    echo "$res/.cluster/$kind-$digest-of-$n"
}

wait_merge() { # state-dir seconds label -> 0 when merged and reported, 1 on failure/timeout
    local st=$1 secs=$2 label=$3 end=$((SECONDS + $2))
    while ((SECONDS < end)); do
        [[ -e $st/merge.ok ]] && return 0
        if [[ -e $st/merge.failed ]]; then
            fail "$label: merge job failed"
            tail -20 "$st/logs/merge.log" >&2 || true
            return 1
        fi
        sleep 1
    done
    fail "$label: no merge within $secs s"
    squeue >&2 || true
    return 1
}

# --- Slurm: three jobs sharing one results directory -------------------------------------------
S=$WORK/slurm-results
scripts/slurm-job.sh --shards 8 --throttle 2 --cpus 1 --results "$S" -- "${CENSUS[@]}"
scripts/slurm-job.sh --shards 4 --throttle 2 --cpus 1 --results "$S" -- "${SAMPLERS[@]}"
scripts/slurm-job.sh --shards 3 --cpus 1 --results "$S" -- "${AGREE[@]}"
cst=$(state_dir "$S" 8 "${CENSUS[@]}")
n_arrays=$(wc -l <"$cst/arrays")
((n_arrays == 2)) && say "slurm: 8 shards with MaxArraySize 5 went into 2 arrays" ||
    fail "slurm: 8 shards with MaxArraySize 5 went into $n_arrays arrays, not 2"
ok=1
wait_merge "$cst" 600 "slurm census" || ok=0
wait_merge "$(state_dir "$S" 4 "${SAMPLERS[@]}")" 600 "slurm samplers" || ok=0
wait_merge "$(state_dir "$S" 3 "${AGREE[@]}")" 600 "slurm agree" || ok=0
compare "$S" slurm "${FILES[@]}"
merged_from() { # dir file pattern label: the file's manifest records a merge of the partials
    grep -q "$3" "$1/$2.manifest.json" 2>/dev/null && say "$4: $2 manifest records the merge of the shards" ||
        fail "$4: $2 manifest does not record a merge of the shards"
}
merged_from "$S" latin_census.csv "latin-census-[0-9a-f]*-shard-7-of-8.json" slurm
if scripts/slurm-job.sh status --shards 8 --results "$S" -- "${CENSUS[@]}" >"$WORK/status.txt"; then
    grep -Eq '^  done +8 ' "$WORK/status.txt" && say "slurm: status reports 8 of 8 shards done" ||
        fail "slurm: status output unexpected: $(tr '\n' ' ' <"$WORK/status.txt")"
else
    fail "slurm: status says the census is not complete: $(tr '\n' ' ' <"$WORK/status.txt")"
fi
say "slurm jobs done ($((SECONDS - t0)) s)"

# --- GNU parallel: the same three jobs ----------------------------------------------------------
P=$WORK/parallel-results
if command -v parallel >/dev/null; then
    for job in CENSUS SAMPLERS AGREE; do
        declare -n j=$job
        timeout 600 scripts/parallel-job.sh --shards 5 --jobs 2 --results "$P" -- "${j[@]}" \
            >>"$WORK/parallel.log" 2>&1 || { fail "parallel: ${j[*]} failed"; tail -20 "$WORK/parallel.log" >&2; }
    done
    grep -i "warning\|ignored" "$WORK/parallel.log" >&2 && fail "parallel: GNU parallel printed a warning"
    compare "$P" parallel "${FILES[@]}"
    merged_from "$P" latin_census.csv "latin-census-[0-9a-f]*-shard-4-of-5.json" parallel
else
    fail "GNU parallel is not installed"
fi
say "parallel jobs done ($((SECONDS - t0)) s)"

# --- scancel mid-run, then re-submit -------------------------------------------------------------
C=$WORK/cancel-results
LONG=(latin samplers --orders 6 --draws 20000 --floor-sims 10 --batch 500)
REF=$WORK/ref-long
"$BIN" "${LONG[@]}" --results "$REF" --no-progress --threads 2 2>>"$WORK/ref.log"
scripts/slurm-job.sh --shards 4 --throttle 1 --cpus 1 --results "$C" -- "${LONG[@]}"
lst=$(state_dir "$C" 4 "${LONG[@]}")
read -r array_id _ <"$lst/arrays"
victim=""
end=$((SECONDS + 300))
while [[ -z $victim ]] && ((SECONDS < end)); do
    # The running task whose journal already holds finished units: cancel it now.
    while read -r _ i partial journal; do
        if [[ ! -s $partial && -e $journal ]] && (($(wc -l <"$journal") >= 2)) &&
            squeue -h -j "${array_id}_$i" -o %T 2>/dev/null | grep -q RUNNING; then
            scancel "${array_id}_$i"
            victim=$i
            break
        fi
    done <"$lst/paths"
    sleep 0.2
done
if [[ -z $victim ]]; then
    fail "scancel: no task was caught mid-run"
else
    read -r _ _ vpartial vjournal < <(grep "^shard $victim " "$lst/paths")
    end=$((SECONDS + 60))
    while squeue -h -j "${array_id}_$victim" -o %T 2>/dev/null | grep -q . && ((SECONDS < end)); do sleep 0.5; done
    units_before=$(($(wc -l <"$vjournal") - 1))
    if [[ -s $vpartial ]]; then
        fail "scancel: shard $victim finished before it was cancelled"
    else
        say "scancel: shard $victim cancelled mid-run with $units_before units journaled"
    fi
    # Wait for the other tasks to end; the merge must not have run.
    end=$((SECONDS + 300))
    while squeue -h -j "$array_id" -o %i 2>/dev/null | grep -q . && ((SECONDS < end)); do sleep 1; done
    [[ -e $lst/merge.ok ]] && fail "scancel: the merge ran although a task was cancelled"
    scripts/slurm-job.sh status --shards 4 --results "$C" -- "${LONG[@]}" >"$WORK/status2.txt" &&
        fail "scancel: status says complete after a cancel"
    grep -q "^shard $victim: failed or interrupted" "$WORK/status2.txt" &&
        grep -Eq '^  done +3 ' "$WORK/status2.txt" && say "scancel: status reports shard $victim interrupted, 3 done" ||
        fail "scancel: status output unexpected: $(tr '\n' ' ' <"$WORK/status2.txt")"
    scripts/slurm-job.sh --shards 4 --throttle 1 --cpus 1 --results "$C" -- "${LONG[@]}" >"$WORK/resubmit.txt"
    grep -Eq "shards 0 \+ \[$victim(%[0-9]+)?\]" "$WORK/resubmit.txt" && say "scancel: re-submission ran only shard $victim" ||
        fail "scancel: re-submission was not just shard $victim: $(tr '\n' ' ' <"$WORK/resubmit.txt")"
    wait_merge "$lst" 600 "resubmitted samplers" || true
    grep -q "resuming from its journal" "$lst/logs/shard-$victim.log" &&
        say "scancel: shard $victim resumed from its journal" ||
        fail "scancel: shard $victim did not resume from its journal"
    compare "$C" "cancel+resubmit" latin_samplers.csv
fi

say "finished in $((SECONDS - t0)) s"
if ((FAILED)); then
    say "FAILED (set KEEP=1 to keep $WORK for inspection)"
    exit 1
fi
say "all cluster checks passed"
