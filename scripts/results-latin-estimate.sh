#!/bin/sh
# Regenerate results/latin_estimate.csv (orders 9, 10 and 11 by sampled census units) and
# results/latin_estimate_coverage.csv (order 8: 200 replicates of 400 units against the census,
# which must already be in results/latin_census.csv). BIN and THREADS_ARG come from the Makefile.
set -e
$BIN latin estimate --orders 9 --units 4000 ${THREADS_ARG:-}
$BIN latin estimate --orders 10 --units 400 ${THREADS_ARG:-}
$BIN latin estimate --orders 11 --units 2000 ${THREADS_ARG:-}
$BIN latin estimate --orders 8 --units 400 --replicates 200 ${THREADS_ARG:-}
