#!/bin/sh
# Are the committed results what the code makes today? Re-run every result job that takes under
# about a minute, with the committed command, into a scratch copy of results/, and compare the
# deterministic files byte for byte (timing files hold wall times and are not compared). Exits 1
# naming each file that differs; the long jobs (Calcudoku bank and pricing, the Latin samplers
# and estimates, the Numbrix climb, clue and adversary studies, the 16-side census) are left to
# `make results`. BIN comes from the Makefile.
set -eu
BIN=${BIN:-target/release/gridcensus}
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/gridcensus-fresh.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
mkdir -p "$SCRATCH/results" "$SCRATCH/bank"
cp results/*.csv results/*.json "$SCRATCH/results/"
R="--results $SCRATCH/results"
Q=--no-progress
run() {
    echo "fresh: gridcensus $*" | sed "s|$SCRATCH|SCRATCH|g"
    "$BIN" "$@" >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log" >&2; exit 2; }
}
run latin census --orders 1-8 $R $Q
run calcudoku agree --orders 4-6 --max-cages 2-5 --boards 1000 --seed 1 $R $Q
run calcudoku cuts --orders 4-9 --max-cages 2-5 --boards 10000 --large-boards 1000 --seed 1 $R $Q
run calcudoku signs --orders 4-9 --max-cages 2-5 --boards 10000 --large-boards 1000 --seed 1 $R $Q
run calcudoku cuts --orders 6-7 --max-cages 2-5 --boards 2000 --large-boards 0 --squares backtrack --seed 1 $R $Q
# Keyed tables: a smaller run replaces only its own rows, so the whole file must keep its bytes.
run numbrix census --max-side 12 --walk-max-cells 36 $R $Q
run kakurasu census --sizes 1-5 $R $Q
run kakurasu difficulty --boards 200 --sizes 4-9 $R $Q
run numbrix bank --sizes 4-10 --per-size 10 --seed 2026 --out "$SCRATCH/bank" $R $Q
for s in parity space pin-wall; do run numbrix study $s --seed 2026 $R $Q; done
run numbrix study certificate --seed 2026 --per-size 50 $R $Q
bad=0
for f in latin_census.csv latin_census_summary.csv calcudoku_agree.csv calcudoku_cuts.csv \
    calcudoku_signs.csv kakurasu_difficulty.csv numbrix_bank.csv numbrix_parity.csv \
    numbrix_space.csv numbrix_pin_wall.csv numbrix_certificate.csv numbrix_census.csv \
    kakurasu_census.csv kakurasu_census_fibres.csv; do
    if cmp -s "results/$f" "$SCRATCH/results/$f"; then
        echo "fresh: $f unchanged"
    else
        echo "fresh: results/$f differs from what the code makes now" >&2
        bad=1
    fi
done
if ! diff -r -q -x "*.manifest.json" examples/numbrix/bank "$SCRATCH/bank" >/dev/null; then
    echo "fresh: examples/numbrix/bank differs from what the code makes now" >&2
    bad=1
fi
exit $bad
