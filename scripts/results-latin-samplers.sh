#!/bin/sh
# Regenerate results/latin_samplers.csv: the sampler study, orders 4-8, D = 20,000 draws a row,
# R = 400 noise-floor simulations (the defaults). Needs results/latin_census.csv with orders 4-8
# (run scripts/results-latin.sh first). BIN and THREADS_ARG come from the Makefile.
set -eu
BIN=${BIN:-target/release/gridcensus}
$BIN latin samplers --orders ${SAMPLER_ORDERS:-4-8} ${THREADS_ARG:-}
