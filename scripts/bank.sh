#!/bin/sh
# Write the Numbrix board bank. BIN and THREADS_ARG come from the Makefile.
set -eu
echo "bank: not built yet"
