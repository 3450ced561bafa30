#!/bin/sh
# Regenerate the Latin result files: the census (orders 1-8), then the sampler study and the
# estimates by sampled units (both read the census). BIN and THREADS_ARG come from the Makefile.
set -eu
BIN=${BIN:-target/release/gridcensus}
$BIN latin census --orders 1-8 ${THREADS_ARG:-}
BIN=$BIN THREADS_ARG="${THREADS_ARG:-}" sh "$(dirname "$0")/results-latin-samplers.sh"
BIN=$BIN THREADS_ARG="${THREADS_ARG:-}" sh "$(dirname "$0")/results-latin-estimate.sh"
# Moments of orders 4-16 from the Jacobson-Matthews readers (about 90 CPU-seconds; reads the
# census and the estimate only in the report).
$BIN latin moments --orders 4-16 --draws 20000 ${THREADS_ARG:-}
