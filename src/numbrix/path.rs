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

/// One compass backbite move on `path` (cell sequence) with `pos` its inverse: `front` picks the
/// end (the first cell or the last), `dir` one of the four compass directions (up, down, left,
/// right). Returns whether the path changed: a step off the grid, or onto the cell next along the
/// path, is refused. Each of the eight (end, direction) choices has probability 1/8 in
/// [`backbite`], so every move and its reverse are equally likely and the chain is symmetric.
pub fn backbite_move(
    rows: usize,
    cols: usize,
    path: &mut [usize],
    pos: &mut [usize],
    front: bool,
    dir: u32,
) -> bool {
    let n = path.len();
    if n < 3 {
        return false;
    }
    let end = if front { path[0] } else { path[n - 1] };
    // The compass move: one of the four directions uniformly, a step off the grid refused.
    // (Picking uniformly among the end's *grid* neighbours, as the write-up does, weights
    // each path by the degrees of its ends and is not uniform: see census/backbite.rs.)
    let (r, c) = (end / cols, end % cols);
    let u = match dir {
        0 if r > 0 => end - cols,
        1 if r + 1 < rows => end + cols,
        2 if c > 0 => end - 1,
        3 if c + 1 < cols => end + 1,
        _ => return false,
    };
    let pu = pos[u];
    let (lo, hi) = if front {
        if pu == 1 {
            return false;
        }
        (0, pu)
    } else {
        if pu == n - 2 {
            return false;
        }
        (pu + 1, n)
    };
    path[lo..hi].reverse();
    for (i, &cell) in path.iter().enumerate().take(hi).skip(lo) {
        pos[cell] = i;
    }
    true
}

/// Apply `moves` backbite moves to `path` (a Hamiltonian path as a cell sequence); returns how
/// many were accepted (see [`backbite_move`]).
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
        let dir = rng.random_range(0..4u32);
        if backbite_move(rows, cols, path, &mut pos, front, dir) {
            accepted += 1;
        }
    }
    accepted
}

/// A random answer: the snake after `moves_per_cell × cells` backbite moves, then read in either
/// direction with probability ½; row-major values.
///
/// The direction coin matters: a backbite move keeps the path's first cell on its chessboard
/// colour, so on a board with an even cell count the moves alone would always put 1 on the
/// colour of the snake's start (r1c1) and reach only half of the numberings. With the coin the
/// law of the numbering is uniform over both directions of each drawn path, so its distance from
/// uniform over numberings equals the moves' distance from uniform over undirected paths.
pub fn random_answer<R: Rng + ?Sized>(
    rows: usize,
    cols: usize,
    moves_per_cell: u64,
    rng: &mut R,
) -> Vec<u32> {
    let mut p = snake(rows, cols);
    let n = p.len() as u64;
    backbite(rows, cols, &mut p, moves_per_cell * n, rng);
    if rng.random_bool(0.5) {
        p.reverse();
    }
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
