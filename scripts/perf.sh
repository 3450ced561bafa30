#!/bin/sh
# Measure the headline figures and write them to results/perf.csv (machine-readable; the docs
# quote it). Each row: the figure, the exact command, wall and CPU seconds (user + system, from
# GNU time), the value the command itself prints where there is one, the machine (CPU model,
# cores) and the 1-minute load average when the row started. Run it on an otherwise idle
# machine: `make perf` (builds the release binary first). Takes a few minutes on 2 cores.
# `sh scripts/perf.sh long` (`make perf-long`) measures the long figures instead into
# results/perf_long.csv: the frontier counter to 15x15 and the Calcudoku 9x9 tail sets (1,000
# boards each) under three search policies (about 20 minutes on 2 cores).
set -eu
MODE=${1:-short}
BIN=${BIN:-target/release/gridcensus}
if [ "$MODE" = long ]; then
    OUT=${OUT:-results/perf_long.csv}
else
    OUT=${OUT:-results/perf.csv}
fi
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT INT TERM
CPU=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //; s/,/ /g')
CORES=$(nproc)
DATE=$(date -u +%Y-%m-%dT%H:%MZ)
TMP="$SCRATCH/perf.csv"
echo "figure,command,wall_seconds,cpu_seconds,value,cpu_model,cores,load_at_start,date" > "$TMP"

# measure FIGURE VALUE_SED COMMAND...: run COMMAND in the scratch results dir, time it, and pull
# the printed value out of its output with the sed expression (empty: no value).
measure() {
    figure=$(echo "$1" | sed "s/,/;/g"); value_sed=$2; shift 2
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f '%e %U %S' -o "$SCRATCH/time" "$@" > "$SCRATCH/out" 2>&1 || {
        echo "perf: '$*' failed:" >&2; tail -5 "$SCRATCH/out" >&2; exit 1; }
    set -- $(cat "$SCRATCH/time")
    wall=$1; cpu=$(awk "BEGIN { print $2 + $3 }")
    value=""
    if [ -n "$value_sed" ]; then
        value=$(sed -n "$value_sed" "$SCRATCH/out" | head -1 | sed 's/,/;/g')
    fi
    cmd=$(echo "$CMDLINE" | sed 's/,/;/g')
    echo "$figure,$cmd,$wall,$cpu,$value,$CPU,$CORES,$load,$DATE" >> "$TMP"
    echo "$figure: ${wall} s wall, ${cpu} CPU-s ${value:+($value)}" >&2
}

R="--results $SCRATCH/r --no-progress"
# The summary row of a `calcudoku time` set, as a value (the mean and the wall columns left out).
TIME_SED='s/^[0-9]x[0-9] cage [^ ]* [a-z]* *[0-9]* *[0-9]* *\([0-9]*\) *\([0-9.]*\) *\([0-9.]*\) *\([0-9.]*\) *\([0-9.]*\) *[0-9.]* *[0-9.]* *[0-9.]* *\([0-9]*\) *\([0-9]*\) *\([0-9.]*\) *\([0-9]*\).*/CPU per decision: median \2 us p90 \3 us p99 \4 us max \5 us; \6 over 1 s; \7 over 2 s; \1 unknown; mean nodes \8; max nodes \9/p'
if [ "$MODE" = long ]; then
    CMDLINE="gridcensus numbrix census --max-side 15 --walk-max-cells 0"
    measure "numbrix frontier counter to 15x15" '' $BIN numbrix census --max-side 15 --walk-max-cells 0 $R
    # Three search policies: one plain depth-first run with the root's probe first; restarts
    # with nogoods (unit 100), probe first; and the default (the same restarts, probe late).
    for policy in "off first" "100 first" "100 late"; do
        set -- $policy
        for signs in shown hidden; do
            CMDLINE="gridcensus calcudoku time --orders 9 --max-cages 8 --boards 1000 --signs $signs --restart-unit $1 --root-probe $2 --threads 1"
            measure "calcudoku 9x9 largest cage 8 signs $signs restart unit $1 root probe $2" "$TIME_SED" \
                $BIN calcudoku time --orders 9 --max-cages 8 --boards 1000 --signs $signs --restart-unit $1 --root-probe $2 --threads 1
        done
    done
    mkdir -p "$(dirname "$OUT")"
    mv "$TMP" "$OUT.tmp.$$" && mv "$OUT.tmp.$$" "$OUT"
    echo "perf: wrote $OUT" >&2
    exit 0
fi
for t in 1 2; do
    CMDLINE="gridcensus latin census --orders 7 --threads $t"
    measure "latin census order 7 on $t thread(s)" '' $BIN latin census --orders 7 --threads $t $R
done
for t in 2 1; do
    CMDLINE="gridcensus latin census --orders 8 --threads $t"
    measure "latin census order 8 on $t thread(s)" '' $BIN latin census --orders 8 --threads $t $R
done
CMDLINE="gridcensus calcudoku time --orders 7 --max-cages 4 --boards 1000 --repeats 3 --threads 1"
measure "calcudoku uniqueness decision 7x7 largest cage 4" 's/^[0-9]x[0-9] cage [^ ]* [a-z]* *\([0-9]*\) *\([0-9]*\) *[0-9]* *\([0-9.]*\) *\([0-9.]*\) *\([0-9.]*\) *\([0-9.]*\).*/CPU per decision: median \3 us p90 \4 us p99 \5 us max \6 us (\2 of \1 unique)/p' \
    $BIN calcudoku time --orders 7 --max-cages 4 --boards 1000 --repeats 3 --threads 1
CMDLINE="gridcensus calcudoku time --orders 9 --max-cages 4 --boards 1000 --repeats 3 --threads 1"
measure "calcudoku uniqueness decision 9x9 largest cage 4" 's/^[0-9]x[0-9] cage [^ ]* [a-z]* *\([0-9]*\) *\([0-9]*\) *[0-9]* *\([0-9.]*\) *\([0-9.]*\) *\([0-9.]*\) *\([0-9.]*\).*/CPU per decision: median \3 us p90 \4 us p99 \5 us max \6 us (\2 of \1 unique)/p' \
    $BIN calcudoku time --orders 9 --max-cages 4 --boards 1000 --repeats 3 --threads 1
CMDLINE="gridcensus numbrix census --max-side 12 --walk-max-cells 49"
measure "numbrix census to 12x12 (walk to 49 cells)" '' $BIN numbrix census --max-side 12 --walk-max-cells 49 $R
CMDLINE="gridcensus latin estimate --orders 9 --units 4000"
measure "latin estimate order 9 with 4000 units" 's/.*\(reduced squares [^;]*\).*/\1/p' $BIN latin estimate --orders 9 --units 4000 $R
CMDLINE="gridcensus numbrix census --max-side 14 --walk-max-cells 0"
measure "numbrix frontier counter to 14x14" '' $BIN numbrix census --max-side 14 --walk-max-cells 0 $R
CMDLINE="gridcensus kakurasu census --sizes 5"
measure "kakurasu census n = 5" '' $BIN kakurasu census --sizes 5 $R
mkdir -p "$(dirname "$OUT")"
mv "$TMP" "$OUT.tmp.$$" && mv "$OUT.tmp.$$" "$OUT"
echo "perf: wrote $OUT" >&2
