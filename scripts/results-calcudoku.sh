#!/bin/sh
# Regenerate the calcudoku result files. BIN and THREADS_ARG come from the Makefile.
# results/calcudoku_agree.csv: 12 (order, largest cage) cells x 1000 boards, each decided with
# signs shown and hidden by ladder+search and by the independent verifier.
set -eu
BIN=${BIN:-target/release/gridcensus}
# shellcheck disable=SC2086
"$BIN" calcudoku agree --orders 4-6 --max-cages 2-5 --boards 1000 --seed 1 --no-progress $THREADS_ARG
