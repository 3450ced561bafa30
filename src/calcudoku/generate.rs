//! A random board generator for tests, benches and studies: a random Latin square (randomised
//! backtracking fill: every square is reachable, not uniformly), a random connected cage cut
//! with a largest-cage bound, and random labels that the square satisfies.

use super::board::{Board, Cage, Op};
use rand::{Rng, RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A random Latin square of order `n` (values 1..=n, reading order).
pub fn random_latin<R: Rng + ?Sized>(n: usize, rng: &mut R) -> Vec<u8> {
    fn fill<R: Rng + ?Sized>(
        i: usize,
        n: usize,
        g: &mut [u8],
        rows: &mut [u16],
        cols: &mut [u16],
        rng: &mut R,
    ) -> bool {
        if i == n * n {
            return true;
        }
        let (r, c) = (i / n, i % n);
        let mut vals: Vec<u8> = (1..=n as u8)
            .filter(|&v| (rows[r] | cols[c]) >> v & 1 == 0)
            .collect();
        // Fisher–Yates.
        for k in (1..vals.len()).rev() {
            let j = rng.random_range(0..=k);
            vals.swap(k, j);
        }
        for v in vals {
            g[i] = v;
            rows[r] |= 1 << v;
            cols[c] |= 1 << v;
            if fill(i + 1, n, g, rows, cols, rng) {
                return true;
            }
            rows[r] &= !(1 << v);
            cols[c] &= !(1 << v);
        }
        false
    }
    let mut g = vec![0u8; n * n];
    let (mut rows, mut cols) = (vec![0u16; n], vec![0u16; n]);
    let ok = fill(0, n, &mut g, &mut rows, &mut cols, rng);
    debug_assert!(ok);
    g
}

/// A random cut into connected cages of at most `max_cage` cells: visit cells in random
/// order; each uncovered cell seeds a cage with a size drawn from 1..=max_cage, grown by random
/// uncovered neighbours until it reaches that size or cannot grow.
pub fn random_cut<R: Rng>(n: usize, max_cage: usize, rng: &mut R) -> Vec<Vec<u8>> {
    let nn = n * n;
    let mut order: Vec<usize> = (0..nn).collect();
    for k in (1..nn).rev() {
        let j = rng.random_range(0..=k);
        order.swap(k, j);
    }
    let mut taken = vec![false; nn];
    let mut cages = Vec::new();
    for &s in &order {
        if taken[s] {
            continue;
        }
        let want = rng.random_range(1..=max_cage.max(1));
        let mut cage = vec![s];
        taken[s] = true;
        while cage.len() < want {
            let mut front = Vec::new();
            for &c in &cage {
                let (r, col) = (c / n, c % n);
                let mut nb = [usize::MAX; 4];
                if r > 0 {
                    nb[0] = c - n;
                }
                if r + 1 < n {
                    nb[1] = c + n;
                }
                if col > 0 {
                    nb[2] = c - 1;
                }
                if col + 1 < n {
                    nb[3] = c + 1;
                }
                for x in nb {
                    if x != usize::MAX && !taken[x] && !front.contains(&x) {
                        front.push(x);
                    }
                }
            }
            if front.is_empty() {
                break;
            }
            let x = front[rng.random_range(0..front.len())];
            taken[x] = true;
            cage.push(x);
        }
        cage.sort_unstable();
        cages.push(cage.into_iter().map(|c| c as u8).collect());
    }
    cages
}

/// Label each cage of `cut` with an operation and the target `square` gives it. Two-cell
/// cages take ÷ when the pair divides (half the time), else −, +, × at random; larger cages + or
/// × at equal odds; one-cell cages give their value.
pub fn label<R: Rng>(n: usize, square: &[u8], cut: &[Vec<u8>], rng: &mut R) -> Vec<Cage> {
    cut.iter()
        .map(|cells| {
            let vals: Vec<u64> = cells.iter().map(|&c| square[c as usize] as u64).collect();
            let (op, target) = match vals.len() {
                1 => (Op::Given, vals[0]),
                2 => {
                    let (hi, lo) = (vals[0].max(vals[1]), vals[0].min(vals[1]));
                    if hi % lo == 0 && rng.random_bool(0.5) {
                        (Op::Div, hi / lo)
                    } else {
                        match rng.random_range(0..3) {
                            0 => (Op::Sub, hi - lo),
                            1 => (Op::Add, hi + lo),
                            _ => (Op::Mul, hi * lo),
                        }
                    }
                }
                _ => {
                    if rng.random_bool(0.5) {
                        (Op::Add, vals.iter().sum())
                    } else {
                        (Op::Mul, vals.iter().product())
                    }
                }
            };
            let _ = n;
            Cage {
                op,
                target,
                cells: cells.clone(),
            }
        })
        .collect()
}

/// A random board and the square it was cut from.
pub fn random_board<R: Rng>(
    n: usize,
    max_cage: usize,
    hide_signs: bool,
    rng: &mut R,
) -> (Board, Vec<u8>) {
    let square = random_latin(n, rng);
    let cut = random_cut(n, max_cage, rng);
    let cages = label(n, &square, &cut, rng);
    let board = Board::new(n, cages, hide_signs).expect("generated boards are valid");
    (board, square)
}

/// A deterministic seeded board (the `generate` subcommand, tests and benches).
pub fn seeded_board(n: usize, max_cage: usize, hide_signs: bool, seed: u64) -> (Board, Vec<u8>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    random_board(n, max_cage, hide_signs, &mut rng)
}

/// [`seeded_board`] with every other cage's sign hidden (`?`): a mixed board, for tests.
pub fn seeded_mixed_board(n: usize, max_cage: usize, seed: u64) -> Board {
    let (b, _) = seeded_board(n, max_cage, false, seed);
    let mut cages = b.cages.clone();
    for (i, c) in cages.iter_mut().enumerate() {
        if i % 2 == 0 {
            c.op = super::board::Op::Any;
        }
    }
    Board::new(n, cages, false).expect("a mixed board is valid")
}

/// Generator options beyond the order: the largest cage, and Keen's constraints (no one-cell
/// cages, multiplication only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenOptions {
    pub max_cage: usize,
    /// Fold every one-cell cage into a neighbouring cage (needs `max_cage` ≥ 2).
    pub no_singletons: bool,
    /// Label every cage of two or more cells `×`.
    pub mul_only: bool,
}

/// Fold each one-cell cage of `cut` into its smallest neighbouring cage that still has room
/// (ties broken at random). `None` when some one-cell cage has no neighbour with room.
pub fn fold_singletons<R: Rng>(
    n: usize,
    max_cage: usize,
    cut: Vec<Vec<u8>>,
    rng: &mut R,
) -> Option<Vec<Vec<u8>>> {
    let mut cages = cut;
    loop {
        let Some(s) = cages.iter().position(|c| c.len() == 1) else {
            break;
        };
        let cell = cages[s][0] as usize;
        let (r, c) = (cell / n, cell % n);
        let mut nbs = Vec::new();
        if r > 0 {
            nbs.push(cell - n);
        }
        if r + 1 < n {
            nbs.push(cell + n);
        }
        if c > 0 {
            nbs.push(cell - 1);
        }
        if c + 1 < n {
            nbs.push(cell + 1);
        }
        let mut best: Vec<usize> = Vec::new();
        let mut best_len = usize::MAX;
        for x in nbs {
            let k = cages.iter().position(|cg| cg.contains(&(x as u8)))?;
            let len = cages[k].len();
            if k == s || len >= max_cage || best.contains(&k) {
                continue;
            }
            if len < best_len {
                best_len = len;
                best.clear();
            }
            if len == best_len {
                best.push(k);
            }
        }
        if best.is_empty() {
            return None;
        }
        let k = best[rng.random_range(0..best.len())];
        cages[k].push(cell as u8);
        cages[k].sort_unstable();
        cages.remove(s);
    }
    Some(cages)
}

/// A random board under `opts` and the square it was cut from. With `no_singletons`, cuts
/// whose one-cell cages cannot all be folded away are redrawn.
pub fn random_board_with<R: Rng>(
    n: usize,
    opts: GenOptions,
    hide_signs: bool,
    rng: &mut R,
) -> (Board, Vec<u8>) {
    let square = random_latin(n, rng);
    let cut = loop {
        let cut = random_cut(n, opts.max_cage, rng);
        if !opts.no_singletons {
            break cut;
        }
        if let Some(c) = fold_singletons(n, opts.max_cage, cut, rng) {
            break c;
        }
    };
    let mut cages = label(n, &square, &cut, rng);
    if opts.mul_only {
        for cage in &mut cages {
            if cage.cells.len() >= 2 {
                cage.op = Op::Mul;
                cage.target = cage
                    .cells
                    .iter()
                    .map(|&c| square[c as usize] as u64)
                    .product();
            }
        }
    }
    let board = Board::new(n, cages, hide_signs).expect("generated boards are valid");
    (board, square)
}
