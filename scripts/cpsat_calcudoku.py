#!/usr/bin/env python3
"""Uniqueness decisions (cap 2) of Calcudoku board files by OR-tools CP-SAT, an independent
reference for `gridcensus calcudoku time`: the same board files, the same question (no answer,
one, or two or more), single-threaded CPU seconds per board.

The model shares nothing with gridcensus: one integer per cell, AllDifferent per row and
column, and per cage one literal per operation its sign allows (a hidden sign `?`, or every
sign under --hide-signs: + and x for three cells or more; + - x / for two), at least one of them
true, each enforcing its arithmetic. A first solve finds an answer; a second, with the grid
required to differ from it in some cell, finds another or proves there is none.

    scripts/cpsat_calcudoku.py [--hide-signs] [--join BOARDS_CSV] [--out FILE] FILE_OR_DIR...

--join reads the per-board CSV of `gridcensus calcudoku time --boards-csv` (run on the same
files, same sign mode) and adds its times and verdicts beside CP-SAT's; a verdict that differs
is an error (exit 1). Needs the `ortools` package (pip install ortools).
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from calcudoku_ref import fail, run  # noqa: E402

from ortools.sat.python import cp_model  # noqa: E402


def model(n, cages):
    m = cp_model.CpModel()
    x = [[m.NewIntVar(1, n, f"x{r}{c}") for c in range(n)] for r in range(n)]
    for i in range(n):
        m.AddAllDifferent(x[i])
        m.AddAllDifferent([x[r][i] for r in range(n)])
    for k, (ops, t, cells) in enumerate(cages):
        v = [x[r][c] for r, c in cells]
        if ops == "=":
            m.Add(v[0] == t)
            continue
        lits = []
        for op in ops:
            b = m.NewBoolVar(f"c{k}{op}")
            lits.append(b)
            if op == "+":
                m.Add(sum(v) == t).OnlyEnforceIf(b)
            elif op == "*":
                p = m.NewIntVar(1, n ** len(v), f"p{k}")
                m.AddMultiplicationEquality(p, v)
                m.Add(p == t).OnlyEnforceIf(b)
            elif op == "-":
                d = m.NewIntVar(0, n, f"d{k}")
                m.AddAbsEquality(d, v[0] - v[1])
                m.Add(d == t).OnlyEnforceIf(b)
            else:  # "/": one value is t times the other
                hi = m.NewBoolVar(f"h{k}")
                m.Add(v[0] == t * v[1]).OnlyEnforceIf([b, hi])
                m.Add(v[1] == t * v[0]).OnlyEnforceIf([b, hi.Not()])
        m.AddBoolOr(lits)
    return m, x


def decide(n, cages):
    """(verdict '0' / '1' / '>=2', CPU seconds) with one CP-SAT worker."""
    m, x = model(n, cages)
    s = cp_model.CpSolver()
    s.parameters.num_workers = 1
    t0 = time.process_time()
    st = s.Solve(m)
    if st == cp_model.INFEASIBLE:
        return "0", time.process_time() - t0
    if st not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        fail(f"CP-SAT status {s.StatusName(st)}")
    a = [[s.Value(x[r][c]) for c in range(n)] for r in range(n)]
    diff = []
    for r in range(n):
        for c in range(n):
            d = m.NewBoolVar(f"n{r}{c}")
            m.Add(x[r][c] != a[r][c]).OnlyEnforceIf(d)
            diff.append(d)
    m.AddBoolOr(diff)
    st = s.Solve(m)
    cpu = time.process_time() - t0
    if st == cp_model.INFEASIBLE:
        return "1", cpu
    if st not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        fail(f"CP-SAT status {s.StatusName(st)}")
    return ">=2", cpu


if __name__ == "__main__":
    run("cpsat", __doc__.split("\n\n")[0], decide)
