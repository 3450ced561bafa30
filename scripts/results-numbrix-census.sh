#!/bin/sh
# Regenerate the Numbrix census and backbite sampler result files. BIN and THREADS_ARG come from
# the Makefile. The census: frontier table m ≤ n ≤ 16 (about 19 CPU-minutes and 5.3 GB), brute-force walk census up to 49 cells;
# then the rows m×17 as a 17-shard run (one shard per width: width 17 alone first, about 86
# CPU-minutes and 9 GB, then widths 16..1, about 28 CPU-minutes), merged into the same file (rows to 16 are
# counted again, byte-identical).
set -eu
BIN=${BIN:-target/release/gridcensus}
$BIN numbrix census --max-side 16 --walk-max-cells 49 ${THREADS_ARG:-}
for i in $(seq 0 16); do
  $BIN numbrix census --max-side 17 --walk-max-cells 0 --shard $i/17 ${THREADS_ARG:-}
done
$BIN merge results/partials/numbrix-census-*-shard-*-of-17.json
$BIN numbrix sampler --sizes 3x3,4x4,3x6,4x5,4x6,5x5 --moves-per-cell 16 --floor-sims 200 --seed 2026 ${THREADS_ARG:-}
# The two largest sizes again with four times the moves (do 16 per cell mix fully?).
$BIN numbrix sampler --sizes 4x6,5x5 --moves-per-cell 64 --draws 60000 --floor-sims 200 --seed 2027 ${THREADS_ARG:-}
# Past the census: the write-up's 10x10 figures (200 draws, moves accepted, turns vs the snake).
$BIN numbrix sampler --sizes 6x8,8x8,10x10,16x16 --moves-per-cell 16 --seed 2028 ${THREADS_ARG:-}
