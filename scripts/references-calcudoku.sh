#!/bin/sh
# Decide the kept Calcudoku tail boards (examples/calcudoku/tail, tail_open, tail_1000) with
# gridcensus and with the independent references: CaDiCaL on a CNF (scripts/sat_calcudoku.py)
# and, where the `ortools` package is installed, CP-SAT (scripts/cpsat_calcudoku.py). Exits 1
# if any verdict differs, 2 if the SAT solver is missing; prints each reference's per-board
# CSV and, on stderr, the totals and how many boards gridcensus decides more slowly. Writes
# only to a scratch directory. BIN comes from the Makefile; more board files or directories may
# be given as arguments (default: the three tail directories).
set -eu
BIN=${BIN:-target/release/gridcensus}
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/gridcensus-refs.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
if [ $# -eq 0 ]; then
    set -- examples/calcudoku/tail examples/calcudoku/tail_open examples/calcudoku/tail_1000
fi
command -v "${SAT_SOLVER:-cadical}" >/dev/null 2>&1 || {
    echo "references: no SAT solver '${SAT_SOLVER:-cadical}' (apt-get install cadical)" >&2
    exit 2
}
"$BIN" calcudoku time --threads 1 --no-progress --boards-csv "$SCRATCH/gc.csv" "$@" >"$SCRATCH/time.txt"
tail -n 1 "$SCRATCH/time.txt"
python3 scripts/sat_calcudoku.py --join "$SCRATCH/gc.csv" "$@"
if python3 -c "import ortools" 2>/dev/null; then
    python3 scripts/cpsat_calcudoku.py --join "$SCRATCH/gc.csv" "$@"
else
    echo "references: CP-SAT skipped (pip install ortools)" >&2
fi
