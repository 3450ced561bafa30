#!/usr/bin/env python3
"""What a portfolio of K independent restart streams would cost, per board, estimated from the
per-board CSV of `gridcensus calcudoku time --restart-seed A-B --boards-csv FILE` (one row per
board and restart seed; rows of the `mean` set are skipped).

K streams that share nothing, interleaved, cost about K times the nodes of the luckiest of them;
the estimate averages K x (least of K) over every K of the board's restart seeds. Prints, per
board, the least, median, most and mean nodes over the seeds and the estimate for each K, then
the sums over the boards.

    scripts/restart_portfolio.py FILE [K ...]      (default K: 2 4)
"""

import csv
import itertools
import statistics
import sys


def main():
    def fail(msg):
        print(f"restart_portfolio: {msg}", file=sys.stderr)
        sys.exit(2)

    if len(sys.argv) < 2:
        fail("usage: " + __doc__.strip().splitlines()[-1].strip())
    path = sys.argv[1]
    try:
        ks = [int(k) for k in sys.argv[2:]] or [2, 4]
    except ValueError as e:
        fail(f"K must be a whole number: {e}")
    if any(k < 1 for k in ks):
        fail("K must be at least 1")
    nodes = {}
    try:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row["set"].endswith(" mean"):
                    continue
                nodes.setdefault(row["board"], []).append(int(row["nodes"]))
    except (OSError, KeyError, ValueError) as e:
        fail(f"{path}: {e}")
    head = ["board", "seeds", "least", "median", "most", "mean"] + [f"K={k}" for k in ks]
    print(",".join(head))
    sums = [0.0] * (1 + len(ks))
    for board, v in sorted(nodes.items(), key=lambda x: -statistics.mean(x[1])):
        est = [statistics.mean(k * min(c) for c in itertools.combinations(v, k)) if len(v) >= k
               else float("nan") for k in ks]
        mean = statistics.mean(v)
        for i, x in enumerate([mean] + est):
            sums[i] += x
        print(",".join([board, str(len(v)), str(min(v)), f"{statistics.median(v):.0f}",
                        str(max(v)), f"{mean:.0f}"] + [f"{x:.0f}" for x in est]))
    print(",".join(["all, summed", "", "", "", ""] + [f"{x:.0f}" for x in sums]))


if __name__ == "__main__":
    main()
