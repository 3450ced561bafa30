#!/bin/bash
# Former Latin-census script, kept as a wrapper: `ORDER SHARDS [options]` = scripts/parallel-job.sh
# (options: --sshloginfile F, -S hosts, or any GNU parallel option such as -j 2).
O=${1:-8} S=${2:-16}; shift $(($# >= 2 ? 2 : $#)); r=(); case "${1:-}" in --sshloginfile | -S) r=("$1" "$2"); shift 2 ;; esac
PARALLEL_ARGS="${PARALLEL_ARGS:-} $*" exec "$(dirname "$0")/parallel-job.sh" --shards "$S" "${r[@]}" -- latin census --orders "$O"
