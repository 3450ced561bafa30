//! The independent verifier: plain backtracking over Latin squares in reading order, checking
//! each cage when its last cell is filled. It shares no code with the rungs or the board's own
//! cage evaluation: it reads only the order, the sign mode and each cage's operation, target and
//! cells.

use super::board::{Board, Op};

struct Cage {
    op: Op,
    target: u64,
    cells: Vec<usize>,
}

struct V {
    n: usize,
    hide: bool,
    cages: Vec<Cage>,
    /// Cages whose last cell (reading order) is this cell.
    closing: Vec<Vec<usize>>,
    grid: Vec<u32>,
    rows: Vec<u32>,
    cols: Vec<u32>,
    cap: u64,
    found: Vec<Vec<u8>>,
    count: u64,
}

fn reaches(op: Op, target: u64, vals: &[u32]) -> bool {
    match op {
        Op::Given => vals.len() == 1 && u64::from(vals[0]) == target,
        Op::Add => {
            let mut s = 0u64;
            for v in vals {
                s += u64::from(*v);
            }
            s == target
        }
        Op::Mul => {
            let mut p = 1u64;
            for v in vals {
                p = p.saturating_mul(u64::from(*v));
            }
            p == target
        }
        Op::Sub => {
            vals.len() == 2 && {
                let (x, y) = (u64::from(vals[0]), u64::from(vals[1]));
                x.abs_diff(y) == target
            }
        }
        Op::Div => {
            vals.len() == 2 && {
                let (x, y) = (u64::from(vals[0]), u64::from(vals[1]));
                (x == y * target) || (y == x * target)
            }
        }
    }
}

impl V {
    fn cage_ok(&self, k: usize) -> bool {
        let c = &self.cages[k];
        let vals: Vec<u32> = c.cells.iter().map(|&i| self.grid[i]).collect();
        if self.hide {
            let ops: &[Op] = match vals.len() {
                1 => &[Op::Given],
                2 => &[Op::Add, Op::Sub, Op::Mul, Op::Div],
                _ => &[Op::Add, Op::Mul],
            };
            ops.iter().any(|&op| reaches(op, c.target, &vals))
        } else {
            reaches(c.op, c.target, &vals)
        }
    }

    fn go(&mut self, i: usize) -> bool {
        let n = self.n;
        if i == n * n {
            self.count += 1;
            self.found
                .push(self.grid.iter().map(|&v| v as u8).collect());
            return self.count >= self.cap;
        }
        let (r, c) = (i / n, i % n);
        for v in 1..=n as u32 {
            let bit = 1u32 << v;
            if self.rows[r] & bit != 0 || self.cols[c] & bit != 0 {
                continue;
            }
            self.grid[i] = v;
            let ok = (0..self.closing[i].len()).all(|j| self.cage_ok(self.closing[i][j]));
            if ok {
                self.rows[r] |= bit;
                self.cols[c] |= bit;
                let stop = self.go(i + 1);
                self.rows[r] &= !bit;
                self.cols[c] &= !bit;
                if stop {
                    return true;
                }
            }
        }
        self.grid[i] = 0;
        false
    }
}

/// Count the solutions of `board` up to `cap`, returning the count and the solutions found.
pub fn verify_count(board: &Board, cap: u64) -> (u64, Vec<Vec<u8>>) {
    let n = board.n;
    let cages: Vec<Cage> = board
        .cages
        .iter()
        .map(|c| Cage {
            op: c.op,
            target: c.target,
            cells: c.cells.iter().map(|&x| x as usize).collect(),
        })
        .collect();
    let mut closing = vec![Vec::new(); n * n];
    for (k, c) in cages.iter().enumerate() {
        let last = *c.cells.iter().max().expect("non-empty cage");
        closing[last].push(k);
    }
    let mut v = V {
        n,
        hide: board.hide_signs,
        cages,
        closing,
        grid: vec![0; n * n],
        rows: vec![0; n],
        cols: vec![0; n],
        cap: cap.max(1),
        found: Vec::new(),
        count: 0,
    };
    v.go(0);
    (v.count, v.found)
}

/// Is `grid` a solution of `board`? Checked with the verifier's own arithmetic (Latin rows and
/// columns, then every cage), independent of `Board::is_solution`.
pub fn verify_grid(board: &Board, grid: &[u8]) -> bool {
    let n = board.n;
    if grid.len() != n * n || grid.iter().any(|&v| v == 0 || v as usize > n) {
        return false;
    }
    for r in 0..n {
        let (mut row, mut col) = (0u32, 0u32);
        for c in 0..n {
            row |= 1 << grid[r * n + c];
            col |= 1 << grid[c * n + r];
        }
        if row.count_ones() as usize != n || col.count_ones() as usize != n {
            return false;
        }
    }
    let v = V {
        n,
        hide: board.hide_signs,
        cages: board
            .cages
            .iter()
            .map(|c| Cage {
                op: c.op,
                target: c.target,
                cells: c.cells.iter().map(|&x| x as usize).collect(),
            })
            .collect(),
        closing: Vec::new(),
        grid: grid.iter().map(|&x| u32::from(x)).collect(),
        rows: Vec::new(),
        cols: Vec::new(),
        cap: 1,
        found: Vec::new(),
        count: 0,
    };
    (0..v.cages.len()).all(|k| v.cage_ok(k))
}
