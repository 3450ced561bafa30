#!/bin/sh
# Regenerate the Latin result files. BIN and THREADS_ARG come from the Makefile.
set -eu
BIN=${BIN:-target/release/gridcensus}
$BIN latin census --orders 1-8 ${THREADS_ARG:-}
