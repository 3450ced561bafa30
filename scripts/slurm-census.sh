#!/bin/bash
# Former Latin-census script, kept as a wrapper: `submit ORDER SHARDS` = scripts/slurm-job.sh.
[[ ${1:-} == submit ]] || { echo "usage: $0 submit [ORDER] [SHARDS]  (see scripts/slurm-job.sh for any job)" >&2; exit 2; }
exec "$(dirname "$0")/slurm-job.sh" --shards "${3:-64}" -- latin census --orders "${2:-8}"
