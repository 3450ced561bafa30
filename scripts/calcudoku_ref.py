"""Shared by the independent reference deciders of Calcudoku board files
(`cpsat_calcudoku.py`, `sat_calcudoku.py`): a minimal reader of the plain-text board format,
the board files named on the command line, and the per-board CSV joined with
`gridcensus calcudoku time --boards-csv`. Nothing here comes from gridcensus's own code.

A reference script calls `run(name, description, decide)`, where `decide(n, cages)` returns
(verdict, CPU seconds): the verdict is '0', '1' or '>=2' answers.
"""

import argparse
import csv
import os
import sys
import tempfile

HIDDEN_OPS = {2: "+-*/"}  # three cells or more: "+*"; one cell: the given value

PROG = os.path.basename(sys.argv[0]).removesuffix(".py")


def fail(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(2)


def parse_board(path, hide):
    """(order, [(ops, target, [(r, c)])]) of a plain-text board file; `ops` lists every
    operation the cage may hold ('=' for a one-cell cage)."""
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


def run(name, description, decide):
    """The command line shared by the reference scripts (see their docstrings)."""
    ap = argparse.ArgumentParser(description=description)
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
    head = ["board", f"{name}_answers", f"{name}_cpu_s"]
    if a.join:
        head += ["gridcensus_answers", "gridcensus_cpu_s", f"ratio_{name}_over_gridcensus"]
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
                print(f"{PROG}: {stem}: {name} {verdict}, gridcensus {g['answers']}",
                      file=sys.stderr)
        rows.append(row)
    if a.out:
        d = os.path.dirname(os.path.abspath(a.out))
        fd, tmp = tempfile.mkstemp(dir=d, prefix=f".{name}.")
        with os.fdopen(fd, "w", newline="") as f:
            csv.writer(f).writerows([head] + rows)
        os.replace(tmp, a.out)
    else:
        csv.writer(sys.stdout).writerows([head] + rows)
    if a.join:
        slower = sum(1 for r in rows if float(r[-1]) < 1.0)
        total = sum(float(r[2]) for r in rows)
        gtotal = sum(float(r[4]) for r in rows)
        print(f"{len(rows)} boards; verdicts differ on {disagree}; {name} {total:.2f} CPU-s, "
              f"gridcensus {gtotal:.2f} CPU-s; gridcensus slower than {name} on {slower}",
              file=sys.stderr)
    sys.exit(1 if disagree else 0)
