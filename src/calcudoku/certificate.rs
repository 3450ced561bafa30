//! The intercalate-flip certificate (the Calcudoku write-up, "An intercalate is a second answer waiting
//! for a cage to miss it").
//!
//! An intercalate is a 2×2 subsquare `a b / b a` of a solution. Flipping it (to `b a / a b`)
//! keeps the square Latin, so if every cage touching its four cells still reaches its target the
//! board has a second answer. By the write-up's rules a touching cage misses the flip when
//! - it holds as many cells of one diagonal of the 2×2 as of the other (one cell from each
//!   diagonal in the write-up's words): its multiset of numbers does not change; or
//! - it is a two-cell − or ÷ cage holding one of the four cells whose other number sits at the
//!   same distance (−) or the same ratio (÷) from both symbols: `2x = a + b` or `x² = a·b`.
//!
//! For a cage whose sign is hidden (`?`, or hidden-sign mode) the rule widens: any other touching
//! cage survives if some operation its
//! size allows still reaches the target with the flipped numbers.

use super::board::{Board, Op};

/// An intercalate of a solution: rows `r1 < r2`, columns `c1 < c2`, with `a` at (r1,c1) and
/// (r2,c2) and `b` at (r1,c2) and (r2,c1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flip {
    pub r1: usize,
    pub r2: usize,
    pub c1: usize,
    pub c2: usize,
    pub a: u8,
    pub b: u8,
}

impl Flip {
    /// The solution with this intercalate flipped.
    pub fn apply(&self, n: usize, grid: &[u8]) -> Vec<u8> {
        let mut g = grid.to_vec();
        g[self.r1 * n + self.c1] = self.b;
        g[self.r2 * n + self.c2] = self.b;
        g[self.r1 * n + self.c2] = self.a;
        g[self.r2 * n + self.c1] = self.a;
        g
    }
    pub fn describe(&self) -> String {
        format!(
            "rows {},{} x columns {},{} ({} {} / {} {} -> {} {} / {} {})",
            self.r1 + 1,
            self.r2 + 1,
            self.c1 + 1,
            self.c2 + 1,
            self.a,
            self.b,
            self.b,
            self.a,
            self.b,
            self.a,
            self.a,
            self.b
        )
    }
}

/// Every intercalate of a Latin square `grid` of order `n`.
pub fn intercalates(n: usize, grid: &[u8]) -> Vec<Flip> {
    let mut out = Vec::new();
    for r1 in 0..n {
        for r2 in r1 + 1..n {
            for c1 in 0..n {
                for c2 in c1 + 1..n {
                    let a = grid[r1 * n + c1];
                    let b = grid[r1 * n + c2];
                    if grid[r2 * n + c2] == a && grid[r2 * n + c1] == b {
                        out.push(Flip {
                            r1,
                            r2,
                            c1,
                            c2,
                            a,
                            b,
                        });
                    }
                }
            }
        }
    }
    out
}

/// Does cage `i` survive flip `f` of `grid` by the write-up's rules (widened when signs are
/// hidden)?
fn cage_survives(board: &Board, grid: &[u8], f: &Flip, i: usize) -> bool {
    let n = board.n;
    let cage = &board.cages[i];
    let diag = [f.r1 * n + f.c1, f.r2 * n + f.c2];
    let anti = [f.r1 * n + f.c2, f.r2 * n + f.c1];
    let d = cage
        .cells
        .iter()
        .filter(|&&c| diag.contains(&(c as usize)))
        .count();
    let e = cage
        .cells
        .iter()
        .filter(|&&c| anti.contains(&(c as usize)))
        .count();
    if d == e {
        return true; // multiset unchanged (or untouched)
    }
    if !board.cage_hidden(i) && cage.cells.len() == 2 && d + e == 1 {
        let other = cage
            .cells
            .iter()
            .map(|&c| c as usize)
            .find(|c| !diag.contains(c) && !anti.contains(c))
            .expect("two-cell cage with one touched cell");
        let (x, a, b) = (grid[other] as u64, f.a as u64, f.b as u64);
        return match cage.op {
            Op::Sub => 2 * x == a + b,
            Op::Div => x * x == a * b,
            _ => false,
        };
    }
    if board.cage_hidden(i) {
        let flipped = f.apply(n, grid);
        let vals: Vec<u8> = cage.cells.iter().map(|&c| flipped[c as usize]).collect();
        return board.cage_holds(i, &vals);
    }
    false
}

/// Every intercalate of `solution` whose flip every touching cage survives: each is a second
/// answer found without search.
pub fn certified_flips(board: &Board, solution: &[u8]) -> Vec<Flip> {
    let n = board.n;
    intercalates(n, solution)
        .into_iter()
        .filter(|f| {
            let cells = [
                f.r1 * n + f.c1,
                f.r1 * n + f.c2,
                f.r2 * n + f.c1,
                f.r2 * n + f.c2,
            ];
            let mut cages: Vec<usize> = cells.iter().map(|&c| board.cage_of[c] as usize).collect();
            cages.sort_unstable();
            cages.dedup();
            cages.iter().all(|&i| cage_survives(board, solution, f, i))
        })
        .collect()
}
