//! A small Hamiltonian-path sampler of the solver's own (independent of `census/`): backbite
//! moves started from the boustrophedon snake. Used to draw answers for the studies and the bank.

use rand::{Rng, RngExt};

/// The boustrophedon snake of a rows×cols grid, as the cell sequence.
pub fn snake(rows: usize, cols: usize) -> Vec<usize> {
    let mut p = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        for k in 0..cols {
            let c = if r % 2 == 0 { k } else { cols - 1 - k };
            p.push(r * cols + c);
        }
    }
    p
}

/// Apply `moves` backbite moves to `path` (a Hamiltonian path as a cell sequence); returns how
/// many were accepted (a move is refused when the chosen direction leaves the grid or its cell
/// is already the next cell along).
pub fn backbite<R: Rng + ?Sized>(
    rows: usize,
    cols: usize,
    path: &mut [usize],
    moves: u64,
    rng: &mut R,
) -> u64 {
    let n = path.len();
    if n < 3 {
        return 0;
    }
    let mut pos = vec![0usize; n];
    for (i, &c) in path.iter().enumerate() {
        pos[c] = i;
    }
    let mut accepted = 0;
    for _ in 0..moves {
        let front = rng.random_range(0..2u32) == 0;
        let end = if front { path[0] } else { path[n - 1] };
        // The compass move: one of the four directions uniformly, a step off the grid refused.
        // (Picking uniformly among the end's *grid* neighbours, as the write-up does, weights
        // each path by the degrees of its ends and is not uniform: see census/backbite.rs.)
        let (r, c) = (end / cols, end % cols);
        let u = match rng.random_range(0..4u32) {
            0 if r > 0 => end - cols,
            1 if r + 1 < rows => end + cols,
            2 if c > 0 => end - 1,
            3 if c + 1 < cols => end + 1,
            _ => continue,
        };
        let pu = pos[u];
        let (lo, hi) = if front {
            if pu == 1 {
                continue;
            }
            (0, pu)
        } else {
            if pu == n - 2 {
                continue;
            }
            (pu + 1, n)
        };
        path[lo..hi].reverse();
        for (i, &cell) in path.iter().enumerate().take(hi).skip(lo) {
            pos[cell] = i;
        }
        accepted += 1;
    }
    accepted
}

/// A random answer: the snake after `moves_per_cell × cells` backbite moves; row-major values.
pub fn random_answer<R: Rng + ?Sized>(
    rows: usize,
    cols: usize,
    moves_per_cell: u64,
    rng: &mut R,
) -> Vec<u32> {
    let mut p = snake(rows, cols);
    let n = p.len() as u64;
    backbite(rows, cols, &mut p, moves_per_cell * n, rng);
    values_of(&p)
}

/// Row-major values (1..n) of a path given as its cell sequence.
pub fn values_of(path: &[usize]) -> Vec<u32> {
    let mut v = vec![0u32; path.len()];
    for (i, &c) in path.iter().enumerate() {
        v[c] = i as u32 + 1;
    }
    v
}
