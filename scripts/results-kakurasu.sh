#!/bin/sh
# Regenerate the kakurasu result files. BIN and THREADS_ARG come from the Makefile.
#   results/kakurasu_census.csv, results/kakurasu_census_fibres.csv   (n = 1..6)
#   results/kakurasu_difficulty.csv                                   (B = 200 boards per size, 4..9)
# The larger committed table, results/kakurasu_difficulty_b<B>.csv, is regenerated only when
# KAKURASU_BIG_B is set, e.g. KAKURASU_BIG_B=10000 make results-kakurasu.
set -eu
BIN=${BIN:-target/release/gridcensus}
$BIN kakurasu census --sizes 1-6 ${THREADS_ARG:-}
$BIN kakurasu difficulty --boards 200 --sizes 4-9 ${THREADS_ARG:-}
if [ -n "${KAKURASU_BIG_B:-}" ]; then
    $BIN kakurasu difficulty --boards "$KAKURASU_BIG_B" --sizes 4-9 ${THREADS_ARG:-}
fi
