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

import argparse
import csv
import os
import sys
import tempfile
import time

from ortools.sat.python import cp_model

HIDDEN_OPS = {2: "+-*/"}  # three cells or more: "+*"; one cell: the given value


def fail(msg):
    print(f"cpsat_calcudoku: {msg}", file=sys.stderr)
    sys.exit(2)


def parse_board(path, hide):
    """(order, [(ops, target, [(r, c)])]) of a plain-text board file."""
    n, cages = None, []
    with open(path, encoding="utf-8-sig") as f:
        for lno, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            toks = line.split()
            if n is None:
                if len(toks) != 2 or toks[0] != "order" or not toks[1].isdigit():
                    fail(f"{path}: line {lno}: expected 'order N' (Keen IDs are not read here)")
                n = int(toks[1])
                continue
            if len(toks) < 3 or not toks[1].isdigit():
                fail(f"{path}: line {lno}: expected 'OP TARGET CELL...'")
            op = {"x": "*", "X": "*", "×": "*", "÷": "/", "−": "-"}.get(toks[0], toks[0])
            if op not in "+-*/=?" or len(op) != 1:
                fail(f"{path}: line {lno}: unknown operation '{toks[0]}'")
            cells = []
            for t in toks[2:]:
                r, _, c = t[1:].partition("c")
                if not (t[0] == "r" and r.isdigit() and c.isdigit()):
                    fail(f"{path}: line {lno}: '{t}' is not a cell rRcC")
                cells.append((int(r) - 1, int(c) - 1))
            size = len(cells)
            if size == 1:
                ops = "="
            elif op == "?" or hide:
                ops = HIDDEN_OPS.get(size, "+*")
            else:
                ops = op
            cages.append((ops, int(toks[1]), cells))
    if n is None:
        fail(f"{path}: empty board file")
    return n, cages


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


def board_files(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            fs = sorted(f for f in os.listdir(p) if f.endswith(".txt"))
            if not fs:
                fail(f"directory {p} holds no .txt board files")
            out += [os.path.join(p, f) for f in fs]
        elif os.path.isfile(p):
            out.append(p)
        else:
            fail(f"no such file or directory: {p}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--hide-signs", action="store_true")
    ap.add_argument("--join", help="per-board CSV of gridcensus calcudoku time --boards-csv")
    ap.add_argument("--out", help="write the per-board CSV here (default: standard output)")
    a = ap.parse_args()
    files = board_files(a.paths)
    ours = {}
    if a.join:
        try:
            with open(a.join, newline="") as f:
                for row in csv.DictReader(f):
                    ours[row["board"]] = row
        except (OSError, KeyError) as e:
            fail(f"{a.join}: cannot read a boards CSV ({e})")
    head = ["board", "cpsat_answers", "cpsat_cpu_s"]
    if a.join:
        head += ["gridcensus_answers", "gridcensus_cpu_s", "ratio_cpsat_over_gridcensus"]
    rows, disagree = [], 0
    for path in files:
        stem = os.path.splitext(os.path.basename(path))[0]
        verdict, cpu = decide(*parse_board(path, a.hide_signs))
        row = [stem, verdict, f"{cpu:.4f}"]
        if a.join:
            g = ours.get(stem)
            if g is None:
                fail(f"{a.join}: no row for board {stem}")
            gcpu = float(g["cpu_us"]) / 1e6
            row += [g["answers"], f"{gcpu:.4f}", f"{cpu / max(gcpu, 1e-9):.2f}"]
            if g["answers"] != verdict:
                disagree += 1
                print(f"cpsat_calcudoku: {stem}: CP-SAT {verdict}, gridcensus {g['answers']}",
                      file=sys.stderr)
        rows.append(row)
    if a.out:
        d = os.path.dirname(os.path.abspath(a.out))
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".cpsat.")
        with os.fdopen(fd, "w", newline="") as f:
            csv.writer(f).writerows([head] + rows)
        os.replace(tmp, a.out)
    else:
        csv.writer(sys.stdout).writerows([head] + rows)
    if a.join:
        slower = sum(1 for r in rows if float(r[-1]) < 1.0)
        print(f"{len(rows)} boards; verdicts differ on {disagree}; gridcensus slower than CP-SAT "
              f"on {slower}", file=sys.stderr)
    sys.exit(1 if disagree else 0)


if __name__ == "__main__":
    main()
