#!/usr/bin/env python3
"""Uniqueness decisions (cap 2) of Calcudoku board files by a CDCL SAT solver (CaDiCaL), an
independent reference for `gridcensus calcudoku time`: the same board files, the same question
(no answer, one, or two or more), the SAT solver's CPU seconds per board.

The CNF shares nothing with gridcensus: a variable per (cell, value); each cell one value, each
row and column each value once (at least once, pairwise at most once). A one-cell cage is a
unit clause; a two-cell cage forbids each pair of values no operation it may hold reaches. A
cage of three cells or more gets, per operation it may hold (+ and x when its sign is hidden,
with at least one of the operations' selectors true), a layered decision diagram of the partial
sums (or products) its cells reach in file order: a node per value of the partial result that
the cells before it can reach and the cells after it can still complete to the target, an edge
variable per (node, cell value) that leads to a node, and clauses making the true nodes exactly
the path of the cells' values (an edge implies its node and its cell's value and the next node;
a node implies one of its outgoing and one of its incoming edges). So the diagram holds exactly
when the operation reaches the target, and unit propagation on it removes the values no filling
of the cage's remaining candidates uses (ignoring the in-cage line rule, which the row and
column clauses carry). A first solve finds an answer; a second, with a clause that the grid
differs from it in some cell, finds another or proves there is none.

    scripts/sat_calcudoku.py [--hide-signs] [--join BOARDS_CSV] [--out FILE] FILE_OR_DIR...

--join reads the per-board CSV of `gridcensus calcudoku time --boards-csv` (run on the same
files, same sign mode) and adds its times and verdicts beside the SAT solver's; a verdict that
differs is an error (exit 1). The CPU seconds are the solver processes' (user + system, both
solves; writing the CNF is not counted). Needs the `cadical` executable (Debian: apt-get install
cadical), or another DIMACS solver named by the SAT_SOLVER environment variable that prints
`s SATISFIABLE` and `v` lines.
"""

import os
import resource
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from calcudoku_ref import fail, run  # noqa: E402

SOLVER = os.environ.get("SAT_SOLVER", "cadical")


class Cnf:
    def __init__(self):
        self.nvars = 0
        self.clauses = []

    def var(self):
        self.nvars += 1
        return self.nvars

    def add(self, *lits):
        self.clauses.append(lits)


def pair_holds(op, t, a, b):
    if op == "+":
        return a + b == t
    if op == "*":
        return a * b == t
    if op == "-":
        return abs(a - b) == t
    return a == t * b or b == t * a  # "/"


def diagram(cnf, xs, n, op, t, sel):
    """Clauses that hold, when `sel` is true, exactly when the cells (their value variables
    `xs[k][v]`) reach `t` by `op` ('+' or '*')."""
    k = len(xs)
    step = (lambda s, v: s + v) if op == "+" else (lambda s, v: s * v)
    start = 0 if op == "+" else 1
    fwd = [{start}]
    for _ in range(k):
        fwd.append({step(s, v) for s in fwd[-1] for v in range(1, n + 1)
                    if step(s, v) <= t and (op == "+" or t % step(s, v) == 0)})
    keep = [set() for _ in range(k + 1)]
    keep[k] = {t} & fwd[k]
    for j in range(k - 1, -1, -1):
        keep[j] = {s for s in fwd[j] if any(step(s, v) in keep[j + 1] for v in range(1, n + 1))}
    if not keep[0]:
        cnf.add(-sel)
        return
    node = [{} for _ in range(k + 1)]
    node[0][start] = sel
    for j in range(1, k + 1):
        for s in sorted(keep[j]):
            node[j][s] = cnf.var()
    incoming = [{s: [] for s in keep[j]} for j in range(k + 1)]
    for j in range(k):
        for s in sorted(keep[j]):
            out = []
            for v in range(1, n + 1):
                s2 = step(s, v)
                if s2 not in keep[j + 1]:
                    continue
                e = cnf.var()
                cnf.add(-e, node[j][s])
                cnf.add(-e, xs[j][v])
                cnf.add(-e, node[j + 1][s2])
                # the node and the cell's value make the edge
                cnf.add(-node[j][s], -xs[j][v], e)
                out.append(e)
                incoming[j + 1][s2].append(e)
            cnf.add(-node[j][s], *out)
    for j in range(1, k + 1):
        for s in keep[j]:
            cnf.add(-node[j][s], *incoming[j][s])


def encode(n, cages):
    cnf = Cnf()
    x = [[[0] + [cnf.var() for _ in range(n)] for _ in range(n)] for _ in range(n)]
    for r in range(n):
        for c in range(n):
            cnf.add(*x[r][c][1:])
            for a in range(1, n + 1):
                for b in range(a + 1, n + 1):
                    cnf.add(-x[r][c][a], -x[r][c][b])
    for i in range(n):
        for v in range(1, n + 1):
            for line in ([x[i][c][v] for c in range(n)], [x[r][i][v] for r in range(n)]):
                cnf.add(*line)
                for a in range(n):
                    for b in range(a + 1, n):
                        cnf.add(-line[a], -line[b])
    for ops, t, cells in cages:
        xs = [x[r][c] for r, c in cells]
        if ops == "=":
            cnf.add(xs[0][t]) if 1 <= t <= n else cnf.add()  # the empty clause: no answer
        elif len(cells) == 2:
            for a in range(1, n + 1):
                for b in range(1, n + 1):
                    if not any(pair_holds(op, t, a, b) for op in ops):
                        cnf.add(-xs[0][a], -xs[1][b])
        else:
            sels = [cnf.var() for _ in ops]
            cnf.add(*sels)
            for op, sel in zip(ops, sels):
                diagram(cnf, xs, n, op, t, sel)
    return cnf, x


def solve(cnf):
    """(model as a set of true variables, or None if unsatisfiable; solver CPU seconds)."""
    with tempfile.NamedTemporaryFile("w", suffix=".cnf", delete=False) as f:
        f.write(f"p cnf {cnf.nvars} {len(cnf.clauses)}\n")
        f.write("".join(" ".join(map(str, c)) + " 0\n" for c in cnf.clauses))
        path = f.name
    try:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            p = subprocess.run([SOLVER, "-q", path], capture_output=True, text=True)
        except FileNotFoundError:
            fail(f"SAT solver '{SOLVER}' not found (apt-get install cadical, or set SAT_SOLVER)")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        os.unlink(path)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    status = [ln for ln in p.stdout.splitlines() if ln.startswith("s ")]
    if status == ["s UNSATISFIABLE"]:
        return None, cpu
    if status != ["s SATISFIABLE"]:
        fail(f"{SOLVER} exited {p.returncode} without a verdict: {p.stderr.strip()[:200]}")
    true = set()
    for ln in p.stdout.splitlines():
        if ln.startswith("v "):
            true.update(int(t) for t in ln.split()[1:] if int(t) > 0)
    return true, cpu


def decide(n, cages):
    """(verdict '0' / '1' / '>=2', CPU seconds of the two solves)."""
    cnf, x = encode(n, cages)
    model, cpu = solve(cnf)
    if model is None:
        return "0", cpu
    grid = []
    for r in range(n):
        for c in range(n):
            vals = [v for v in range(1, n + 1) if x[r][c][v] in model]
            if len(vals) != 1:
                fail(f"model gives cell r{r + 1}c{c + 1} {len(vals)} values")
            grid.append(x[r][c][vals[0]])
    cnf.add(*(-lit for lit in grid))
    model, cpu2 = solve(cnf)
    return ("1" if model is None else ">=2"), cpu + cpu2


if __name__ == "__main__":
    run("sat", __doc__.split("\n\n")[0], decide)
