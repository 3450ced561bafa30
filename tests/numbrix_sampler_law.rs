//! The exact finite-time law of both backbite samplers on small boards.
//!
//! Every directed Hamiltonian path of the board is listed (by a plain depth-first search written
//! here), each move's eight (or 2·degree) choices are applied with the sampler's own move
//! function, and the probability of every path after the sampler's number of moves is propagated
//! through that transition matrix from the snake. No sampling: the distance from the target is
//! exact, so biases far below any noise floor of a sampled test are visible.

use gridcensus::numbrix::census::backbite::{Backbite, Variant};
use gridcensus::numbrix::path::{backbite_move, random_answer, snake};
use gridcensus::numbrix::studies::MOVES_PER_CELL;
use rand::SeedableRng;
use std::collections::HashMap;

/// Every directed Hamiltonian path of a rows×cols grid (cell sequences).
fn directed_paths(rows: usize, cols: usize) -> Vec<Vec<usize>> {
    let n = rows * cols;
    let nbrs = |c: usize| {
        let (r, k) = (c / cols, c % cols);
        let mut v = Vec::new();
        if r > 0 {
            v.push(c - cols);
        }
        if r + 1 < rows {
            v.push(c + cols);
        }
        if k > 0 {
            v.push(c - 1);
        }
        if k + 1 < cols {
            v.push(c + 1);
        }
        v
    };
    fn go(
        p: &mut Vec<usize>,
        used: &mut Vec<bool>,
        n: usize,
        nbrs: &dyn Fn(usize) -> Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if p.len() == n {
            out.push(p.clone());
            return;
        }
        for d in nbrs(*p.last().unwrap()) {
            if !used[d] {
                used[d] = true;
                p.push(d);
                go(p, used, n, nbrs, out);
                p.pop();
                used[d] = false;
            }
        }
    }
    let mut out = Vec::new();
    for s in 0..n {
        let mut used = vec![false; n];
        used[s] = true;
        go(&mut vec![s], &mut used, n, &nbrs, &mut out);
    }
    out
}

/// Propagate `steps` moves of a chain given by its transition lists (target, probability).
fn propagate(trans: &[Vec<(usize, f64)>], start: usize, steps: u64) -> Vec<f64> {
    let mut p = vec![0.0; trans.len()];
    p[start] = 1.0;
    for _ in 0..steps {
        let mut q = vec![0.0; trans.len()];
        for (i, t) in trans.iter().enumerate() {
            if p[i] == 0.0 {
                continue;
            }
            for &(j, w) in t {
                q[j] += p[i] * w;
            }
        }
        p = q;
    }
    p
}

fn tv(p: &[f64], target: &[f64]) -> f64 {
    0.5 * p
        .iter()
        .zip(target)
        .map(|(a, b)| (a - b).abs())
        .sum::<f64>()
}

/// The answer sampler's exact law over numberings: (distance from uniform with the direction
/// coin, distance without it).
fn answer_sampler_law(rows: usize, cols: usize, moves_per_cell: u64) -> (f64, f64, usize) {
    let paths = directed_paths(rows, cols);
    let index: HashMap<Vec<usize>, usize> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (p.clone(), i))
        .collect();
    let trans: Vec<Vec<(usize, f64)>> = paths
        .iter()
        .map(|p| {
            let mut t = Vec::new();
            for front in [true, false] {
                for dir in 0..4 {
                    let mut q = p.clone();
                    let mut pos = vec![0; q.len()];
                    for (i, &c) in q.iter().enumerate() {
                        pos[c] = i;
                    }
                    backbite_move(rows, cols, &mut q, &mut pos, front, dir);
                    t.push((index[&q], 1.0 / 8.0));
                }
            }
            t
        })
        .collect();
    let n = rows * cols;
    let law = propagate(&trans, index[&snake(rows, cols)], moves_per_cell * n as u64);
    let uniform = vec![1.0 / paths.len() as f64; paths.len()];
    let coin: Vec<f64> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let rev: Vec<usize> = p.iter().rev().copied().collect();
            0.5 * law[i] + 0.5 * law[index[&rev]]
        })
        .collect();
    (tv(&coin, &uniform), tv(&law, &uniform), paths.len())
}

#[test]
fn answer_sampler_is_uniform_over_numberings() {
    // Directed path counts: OEIS A096969 for squares (40, 552, 8648).
    for (rows, cols, count, bound) in [
        // Bounds sit ~1.5x above the exact figures (4.3e-6, 6.3e-4, 3.5e-3, 3.4e-3, 5.5e-3 at 16
        // moves per cell): the finite-time bias left by the moves themselves, now the only one.
        (3, 3, 40, 1e-5),
        (4, 4, 552, 1e-3),
        (3, 6, 672, 5e-3),
        (4, 5, 2012, 5e-3),
        (5, 5, 8648, 8e-3),
    ] {
        let (with_coin, without, d) = answer_sampler_law(rows, cols, MOVES_PER_CELL);
        {
            assert_eq!(d, count, "{rows}x{cols} directed paths");
        }
        eprintln!("{rows}x{cols}: {d} numberings, TV {with_coin:.3e} (moves alone {without:.3e})");
        assert!(
            with_coin <= bound,
            "{rows}x{cols}: exact TV {with_coin:e} from uniform over numberings exceeds {bound:e}"
        );
        if (rows * cols) % 2 == 0 {
            // The moves alone keep 1 on the snake start's colour: half the numberings unreachable.
            assert!((without - 0.5).abs() < 1e-3, "{rows}x{cols}: {without}");
        }
    }
}

#[test]
fn drawn_answers_put_1_on_both_colours() {
    // The coin in the drawing function itself (not only in the law above): on 4×4, 2,000 draws
    // put 1 on the colour of r1c1 about half the time; 99.99% binomial bounds are 1000 ± 86.
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
    let mut dark = 0;
    for _ in 0..2000 {
        let v = random_answer(4, 4, MOVES_PER_CELL, &mut rng);
        let c = v.iter().position(|&x| x == 1).unwrap();
        dark += usize::from((c / 4 + c % 4) % 2 == 0);
    }
    assert!(
        (914..=1086).contains(&dark),
        "{dark} of 2000 on the dark colour"
    );
}

/// The census sampler's exact law over undirected paths after `moves_per_cell`·cells moves.
fn census_sampler_law(rows: usize, cols: usize, variant: Variant, moves_per_cell: u64) -> f64 {
    let paths = directed_paths(rows, cols);
    let index: HashMap<Vec<usize>, usize> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (p.clone(), i))
        .collect();
    let trans: Vec<Vec<(usize, f64)>> = paths
        .iter()
        .map(|p| {
            let p32: Vec<u32> = p.iter().map(|&c| c as u32).collect();
            let mut t = Vec::new();
            for tail in [false, true] {
                let end = if tail { p32[p32.len() - 1] } else { p32[0] };
                let probe = Backbite::from_path(rows, cols, &p32);
                let (k, w) = match variant {
                    Variant::Compass => (4, 1.0 / 8.0),
                    Variant::Neighbour => {
                        let d = probe.degree(end);
                        (d, 1.0 / (2.0 * d as f64))
                    }
                };
                for choice in 0..k {
                    let mut b = probe.clone();
                    b.step_with(tail, variant, choice);
                    assert!(b.is_hamiltonian());
                    let q: Vec<usize> = b.path.iter().map(|&c| c as usize).collect();
                    t.push((index[&q], w));
                }
            }
            t
        })
        .collect();
    let n = rows * cols;
    let law = propagate(&trans, index[&snake(rows, cols)], moves_per_cell * n as u64);
    // Fold onto undirected paths (keep the orientation with the smaller first cell).
    let deg = |c: usize| {
        let (r, k) = (c / cols, c % cols);
        [r > 0, r + 1 < rows, k > 0, k + 1 < cols]
            .iter()
            .filter(|&&x| x)
            .count() as f64
    };
    let mut und = Vec::new();
    let mut target = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        if p[0] < p[n - 1] {
            let rev: Vec<usize> = p.iter().rev().copied().collect();
            und.push(law[i] + law[index[&rev]]);
            target.push(match variant {
                Variant::Compass => 1.0,
                Variant::Neighbour => deg(p[0]) * deg(p[n - 1]),
            });
        }
    }
    let z: f64 = target.iter().sum();
    target.iter_mut().for_each(|t| *t /= z);
    tv(&und, &target)
}

#[test]
fn census_sampler_exact_law() {
    // The census study's default: 16 moves per cell. The compass chain is held to uniform over
    // undirected paths, the neighbour chain to its end-degree weighting.
    // Exact figures at 16 moves per cell: compass 4.3e-6, 6.3e-4, 3.5e-3, 3.4e-3, 5.5e-3 (the
    // same chain as the answer sampler's moves); neighbour 2.7e-13, 3.7e-5, 5.6e-4, 3.8e-4, 1.1e-3.
    let bounds = [
        (3, 3, 1e-5, 1e-10),
        (4, 4, 1e-3, 6e-5),
        (3, 6, 5e-3, 1e-3),
        (4, 5, 5e-3, 6e-4),
        (5, 5, 8e-3, 2e-3),
    ];
    for (rows, cols, compass, neighbour) in bounds {
        for v in Variant::ALL {
            let bound = if v == Variant::Compass {
                compass
            } else {
                neighbour
            };
            let d = census_sampler_law(rows, cols, v, 16);
            eprintln!("{rows}x{cols} {}: exact TV {d:.3e}", v.name());
            assert!(
                d <= bound,
                "{rows}x{cols} {}: exact TV {d:e} > {bound:e}",
                v.name()
            );
        }
    }
}
