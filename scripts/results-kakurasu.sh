#!/bin/sh
# Regenerate the kakurasu result files. BIN and THREADS_ARG come from the Makefile.
set -eu
BIN=${BIN:-target/release/gridcensus}
echo "results-kakurasu: nothing to regenerate yet"
