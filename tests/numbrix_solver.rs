//! The ladder and search held to an independent brute force; rung soundness; certificates.

#![allow(clippy::collapsible_if)]

use gridcensus::numbrix::board::Board;
use gridcensus::numbrix::certificate;
use gridcensus::numbrix::ladder::{Ctx, Rung, Rungs, State, Work, run_once};
use gridcensus::numbrix::path;
use gridcensus::numbrix::search::{self, Count, Limits};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

// ---- an independent brute force: DFS over self-avoiding walks from every start cell --------

fn brute_answers(rows: usize, cols: usize, givens: &[u32]) -> Vec<Vec<u32>> {
    let n = rows * cols;
    let mut out = Vec::new();
    let mut grid = vec![0u32; n];
    fn go(
        rows: usize,
        cols: usize,
        givens: &[u32],
        grid: &mut Vec<u32>,
        cell: usize,
        k: u32,
        out: &mut Vec<Vec<u32>>,
    ) {
        let n = (rows * cols) as u32;
        if givens[cell] != 0 && givens[cell] != k {
            return;
        }
        grid[cell] = k;
        if k == n {
            out.push(grid.clone());
        } else {
            let (r, c) = ((cell / cols) as i64, (cell % cols) as i64);
            for (dr, dc) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
                let (nr, nc) = (r + dr, c + dc);
                if nr >= 0 && nc >= 0 && (nr as usize) < rows && (nc as usize) < cols {
                    let next = nr as usize * cols + nc as usize;
                    if grid[next] == 0 {
                        go(rows, cols, givens, grid, next, k + 1, out);
                    }
                }
            }
        }
        grid[cell] = 0;
    }
    for s in 0..n {
        go(rows, cols, givens, &mut grid, s, 1, &mut out);
    }
    out
}

fn independent_is_answer(rows: usize, cols: usize, givens: &[u32], v: &[u32]) -> bool {
    let n = rows * cols;
    let mut pos = vec![None; n + 1];
    for (c, &x) in v.iter().enumerate() {
        if x == 0 || x as usize > n || pos[x as usize].is_some() {
            return false;
        }
        if givens[c] != 0 && givens[c] != x {
            return false;
        }
        pos[x as usize] = Some(c);
    }
    (1..n).all(|k| {
        let (a, b) = (pos[k].unwrap(), pos[k + 1].unwrap());
        let d = (a / cols).abs_diff(b / cols) + (a % cols).abs_diff(b % cols);
        d == 1
    })
}

fn rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

/// A random board: a sampled answer with each number printed with probability `p`.
fn random_board(rows: usize, cols: usize, p: f64, seed: u64) -> (Board, Vec<u32>) {
    use rand::RngExt;
    let mut r = rng(seed);
    let ans = path::random_answer(rows, cols, 16, &mut r);
    let givens = ans
        .iter()
        .map(|&v| if r.random_bool(p) { v } else { 0 })
        .collect();
    (Board::new(rows, cols, givens).unwrap(), ans)
}

const ALL_SETS: [Rungs; 6] = [
    Rungs::DEFAULT,
    Rungs::NO_PROBE,
    Rungs(0b00_0011), // pin, link
    Rungs(0b00_0001), // pin alone
    Rungs(0b11_1111), // everything with the ruler
    Rungs(0b10_1011), // without edge
];

#[test]
fn counts_agree_with_brute_force() {
    let shapes = [
        (1, 1),
        (1, 5),
        (2, 2),
        (2, 4),
        (3, 3),
        (3, 4),
        (4, 4),
        (2, 6),
        (4, 5),
    ];
    let mut checked = 0;
    for (i, &(r, c)) in shapes.iter().enumerate() {
        for t in 0..12u64 {
            let p = [0.0, 0.1, 0.2, 0.35][t as usize % 4];
            let (mut board, _) = random_board(r, c, p, 1000 * i as u64 + t);
            // Some boards with a wrong number printed (often no answer).
            if t % 5 == 4 && board.n() > 2 {
                let cell = (t as usize * 7) % board.n();
                let v = ((t as usize * 13) % board.n()) as u32 + 1;
                if !board.givens.contains(&v) {
                    board.givens[cell] = v;
                }
            }
            let brute = brute_answers(r, c, &board.givens).len() as u64;
            if brute > 300 {
                continue;
            }
            for rungs in ALL_SETS {
                if rungs == Rungs(0b00_0001) && board.n() - board.clue_count() > 8 {
                    continue; // pin alone branches over permutations: keep it to tiny boards
                }
                let v = search::count(
                    &board,
                    rungs,
                    Limits {
                        cap: 1000,
                        node_cap: 10_000_000,
                    },
                );
                assert_eq!(
                    v.count,
                    Count::Exact(brute),
                    "{r}x{c} rungs {} board\n{}",
                    rungs.names(),
                    board.format()
                );
                for a in &v.answers {
                    assert!(independent_is_answer(r, c, &board.givens, a));
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 300, "{checked}");
}

#[test]
fn blank_board_counts_are_directed_path_counts() {
    // Directed Hamiltonian paths (each numbering is a directed path): 2x2 8, 2x3 16, 3x3 40,
    // 2xm = 2(m^2-m+2) (A003682 doubled), 3x4 = 2*62.
    for (r, c, want) in [(2, 2, 8), (2, 3, 16), (3, 3, 40), (2, 5, 44), (3, 4, 124)] {
        let b = Board::blank(r, c).unwrap();
        let v = search::count(
            &b,
            Rungs::DEFAULT,
            Limits {
                cap: 10_000,
                node_cap: 10_000_000,
            },
        );
        assert_eq!(v.count, Count::Exact(want), "{r}x{c}");
    }
}

#[test]
fn node_cap_says_unknown() {
    let b = Board::blank(5, 5).unwrap();
    let v = search::count(
        &b,
        Rungs::of(&[Rung::Pin]),
        Limits {
            cap: 1_000_000,
            node_cap: 50,
        },
    );
    assert!(matches!(v.count, Count::Unknown { .. }), "{:?}", v.count);
}

#[test]
fn parity_violation_is_no_answer_with_reason() {
    let b = Board::parse("1 .\n. 2").unwrap();
    let v = search::count(&b, Rungs::DEFAULT, Limits::default());
    assert_eq!(v.count, Count::Exact(0));
    assert!(v.reason.unwrap().contains("parity"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// Every rung, run once on a state reached by climbing random other rungs, never removes a
    /// candidate that some answer uses.
    #[test]
    fn rungs_are_sound(rows in 2usize..5, cols in 2usize..5, p in 0.0f64..0.4, seed in 0u64..1_000_000,
                       pre in 0u8..64) {
        let (board, _) = random_board(rows, cols, p, seed);
        let answers = brute_answers(rows, cols, &board.givens);
        let ctx = Ctx::of(&board);
        let Ok(mut st) = State::new(&board) else { return Ok(()); };
        // Warm up with a random subset of the sound rungs (no probe), once each.
        let mut work = Work::default();
        for r in Rung::all() {
            if pre >> (r as u8) & 1 == 1 && r != Rung::Probe {
                if run_once(r, &ctx, &mut st, Rungs::DEFAULT, &mut work).is_err() {
                    prop_assert!(answers.is_empty());
                    return Ok(());
                }
            }
        }
        for a in &answers {
            for (c, &v) in a.iter().enumerate() {
                prop_assert!(st.cv[c].has(v as usize - 1));
            }
        }
        for r in Rung::all() {
            let mut t = st.clone();
            let res = run_once(r, &ctx, &mut t, Rungs::DEFAULT, &mut work);
            if res.is_err() {
                prop_assert!(answers.is_empty(), "rung {} declared a board with answers dead", r.name());
                continue;
            }
            for a in &answers {
                for (c, &v) in a.iter().enumerate() {
                    prop_assert!(t.cv[c].has(v as usize - 1),
                        "rung {} removed {} from cell {} used by an answer", r.name(), v, c);
                }
            }
        }
    }
}

#[test]
fn certificates_are_valid_second_answers() {
    let mut found = 0;
    for (i, &(r, c)) in [(3, 3), (4, 4), (4, 5), (5, 5), (6, 6), (8, 8)]
        .iter()
        .enumerate()
    {
        for t in 0..40u64 {
            let p = [0.0, 0.1, 0.2, 0.3][t as usize % 4];
            let (board, ans) = random_board(r, c, p, 77_000 + 100 * i as u64 + t);
            if let Some(cert) = certificate::find(&board, &ans) {
                found += 1;
                assert_ne!(cert.second, ans);
                assert!(independent_is_answer(r, c, &board.givens, &cert.second));
            }
        }
    }
    assert!(found > 50, "{found}");
}

#[test]
fn unique_boards_carry_no_certificate_and_ambiguous_small_ones_often_do() {
    for t in 0..30u64 {
        let (board, ans) = random_board(4, 4, 0.4, 5_000 + t);
        let all = brute_answers(4, 4, &board.givens);
        if all.len() == 1 {
            assert!(certificate::find(&board, &ans).is_none());
        }
    }
}

#[test]
fn no_single_cell_change_is_another_answer_4x4() {
    // Exhaustively: every cell, every alternative number, on sampled 4x4 answers.
    for t in 0..20u64 {
        let (_, ans) = random_board(4, 4, 0.0, 9_000 + t);
        let blank = vec![0u32; 16];
        assert!(independent_is_answer(4, 4, &blank, &ans));
        for c in 0..16 {
            for v in 1..=16u32 {
                if v == ans[c] {
                    continue;
                }
                let mut x = ans.clone();
                x[c] = v;
                assert!(!independent_is_answer(4, 4, &blank, &x));
                assert!(!Board::blank(4, 4).unwrap().is_answer(&x));
            }
        }
    }
}

#[test]
fn sampler_yields_answers() {
    for (r, c) in [(1, 1), (1, 7), (2, 2), (5, 7), (10, 10), (16, 16)] {
        let ans = path::random_answer(r, c, 4, &mut rng(r as u64 * 31 + c as u64));
        assert!(independent_is_answer(r, c, &vec![0; r * c], &ans));
    }
}

#[test]
fn pin_alone_finishes_only_with_all_but_one() {
    let (board, ans) = random_board(4, 4, 0.0, 4242);
    let ctx = Ctx::of(&board);
    let pin = Rungs::of(&[Rung::Pin]);
    let mut g = ans.clone();
    g[5] = 0;
    let b15 = Board::new(4, 4, g.clone()).unwrap();
    assert!(search::ladder_finishes(
        &ctx,
        &b15,
        pin,
        &mut Work::default()
    ));
    g[9] = 0;
    let b14 = Board::new(4, 4, g).unwrap();
    assert!(!search::ladder_finishes(
        &ctx,
        &b14,
        pin,
        &mut Work::default()
    ));
}
