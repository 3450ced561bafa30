#!/bin/sh
# Regenerate the Numbrix solver-side result files (the census side is part B's and runs from
# its own lines). BIN and THREADS_ARG come from the Makefile. Study defaults live in
# `gridcensus numbrix study --help`; the probe adversary takes about 26 CPU-minutes, the sparse study about 10, the others about a minute together (docs/numbrix.md).
set -eu
BIN=${BIN:-target/release/gridcensus}
for s in parity space pin-wall clues; do
    $BIN numbrix study $s --seed 2026 --no-progress ${THREADS_ARG:-}
done
$BIN numbrix study climb --seed 2026 --no-progress ${THREADS_ARG:-}
$BIN numbrix study ablation --seed 2026 --no-progress ${THREADS_ARG:-}
# Sparse boards: 1,000 random answers per size 8x8-12x12, each revealed at 1, 0.75 and 0.5 of
# the bank's clue density, the raw walk engine re-counting sides up to 8 (the study's defaults;
# about 10 CPU-minutes, see docs/numbrix.md for the measured time).
$BIN numbrix study sparse --seed 2026 --no-progress ${THREADS_ARG:-}
# The reversal certificate's share of ambiguous random reveals (4x4-10x10, 50 answers each),
# and the probe as adversary (8x8 and 10x10, 30 answers each: about 26 CPU-minutes).
$BIN numbrix study certificate --seed 2026 --no-progress ${THREADS_ARG:-}
$BIN numbrix study probe-adversary --seed 2026 --no-progress ${THREADS_ARG:-}
