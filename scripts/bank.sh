#!/bin/sh
# Write the Numbrix board bank (examples/numbrix/bank/: one file per board and index.csv):
# 10 adversarial irredundant boards per size 4x4..10x10, each re-proved unique by the ladder with
# search and by the raw walk engine. BIN and THREADS_ARG come from the Makefile.
set -eu
BIN=${BIN:-target/release/gridcensus}
rm -f examples/numbrix/bank/*.txt
$BIN numbrix bank --sizes 4-10 --per-size 10 --seed 2026 --out examples/numbrix/bank \
    --results results --no-progress ${THREADS_ARG:-}
