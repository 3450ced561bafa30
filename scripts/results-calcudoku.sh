#!/bin/sh
# Regenerate the calcudoku result files. BIN and THREADS_ARG come from the Makefile.
# results/calcudoku_agree.csv: 12 (order, largest cage) cells x 1000 boards, each decided with
# signs shown and hidden by ladder+search and by the independent verifier.
set -eu
BIN=${BIN:-target/release/gridcensus}
# shellcheck disable=SC2086
"$BIN" calcudoku agree --orders 4-6 --max-cages 2-5 --boards 1000 --seed 1 --no-progress $THREADS_ARG
# results/calcudoku_cuts.csv (+ calcudoku_cuts_timing.csv): the random-cut study on uniform
# squares, orders 4-7 x largest cage 2-5 at 10,000 boards per row plus orders 8-9 at 1,000.
# shellcheck disable=SC2086
"$BIN" calcudoku cuts --orders 4-9 --max-cages 2-5 --boards 10000 --large-boards 1000 --seed 1 --no-progress $THREADS_ARG
# results/calcudoku_signs.csv: the sign ablation over the cages of the same boards.
# shellcheck disable=SC2086
"$BIN" calcudoku signs --orders 4-9 --max-cages 2-5 --boards 10000 --large-boards 1000 --seed 1 --no-progress $THREADS_ARG
# The same study on randomised-backtracking squares (orders 6-7), to show what a non-uniform
# source changes; rows keyed by square source, so they sit beside the uniform rows.
# shellcheck disable=SC2086
"$BIN" calcudoku cuts --orders 6-7 --max-cages 2-5 --boards 2000 --large-boards 0 --squares backtrack --seed 1 --no-progress $THREADS_ARG
# results/calcudoku_bank*.csv and the board files under bank/calcudoku/ (NxN/NxN-IIII.txt):
# 1000 repair-and-tighten boards per order 5-9 on uniform squares, each proved unique by
# ladder+search and (orders <= 7) the independent verifier, a keep-only-unique filter bank beside
# it, and the generator timed with and without the certified-flip check.
# shellcheck disable=SC2086
"$BIN" calcudoku bank --orders 5-9 --boards 1000 --seed 1 --out bank/calcudoku --no-progress $THREADS_ARG
# results/calcudoku_pricing.csv: every rung priced on every bank board.
# shellcheck disable=SC2086
"$BIN" calcudoku pricing --bank bank/calcudoku --no-progress $THREADS_ARG
