//! The walk search on sparse boards: it decides them within the default node cap, and agrees
//! with the ladder's own search and with the raw walk engine of the census.

use gridcensus::numbrix::board::Board;
use gridcensus::numbrix::census::walk::count_solutions;
use gridcensus::numbrix::generate::board_of;
use gridcensus::numbrix::ladder::{Ctx, Rungs};
use gridcensus::numbrix::path;
use gridcensus::numbrix::search::{self, Count, Limits};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;

/// A sparse 10×10 random reveal (0.6× a bank board's clue count) on which the ladder's search
/// gives no verdict within a million nodes. It has more than one answer (a constraint model
/// stopped at two; the raw walk engine counts at least ten).
const SPARSE_10: &str = "\
.  .  .  .  .  .  83 .  .  .
.  .  .  91 .  .  .  .  .  .
.  .  .  .  .  .  .  .  .  .
.  .  .  .  .  .  .  .  .  .
.  .  .  .  .  .  .  .  .  .
.  .  .  .  .  .  .  .  .  71
.  .  .  .  .  .  41 .  .  38
.  .  .  .  .  .  .  .  .  .
.  .  .  48 47 .  .  .  .  .
.  .  .  .  .  .  .  29 30 .
";

#[test]
fn sparse_board_is_decided() {
    let b = Board::parse(SPARSE_10).unwrap();
    let raw = count_solutions(10, 10, &b.givens, 10);
    for rungs in [Rungs::DECIDE, Rungs::DEFAULT] {
        let t = std::time::Instant::now();
        let v = search::count(
            &b,
            rungs,
            Limits {
                cap: 10,
                node_cap: 1_000_000,
            },
        );
        eprintln!(
            "{}: {:?} in {} nodes, {:?}",
            rungs.names(),
            v.count,
            v.nodes,
            t.elapsed()
        );
        assert_eq!(v.count, Count::AtLeast(raw), "rungs {}", rungs.names());
        for a in &v.answers {
            assert!(b.is_answer(a));
        }
        let v = search::count(&b, rungs, Limits::default());
        assert_eq!(v.count, Count::AtLeast(2), "rungs {}", rungs.names());
    }
    assert_eq!(raw, 10);
}

#[test]
fn blank_boards_are_decided_at_the_cap() {
    for s in [8, 10, 12, 16] {
        let b = Board::blank(s, s).unwrap();
        let v = search::count(&b, Rungs::DEFAULT, Limits::default());
        assert_eq!(v.count, Count::AtLeast(2), "{s}x{s}");
    }
}

fn reveal(rows: usize, cols: usize, k: usize, seed: u64) -> (Board, Vec<u32>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let ans = path::random_answer(rows, cols, 16, &mut rng);
    let mut order: Vec<usize> = (0..ans.len()).collect();
    order.shuffle(&mut rng);
    let mut mask = vec![false; ans.len()];
    for &c in &order[..k] {
        mask[c] = true;
    }
    (board_of(&Ctx::new(rows, cols), &ans, &mask), ans)
}

#[test]
fn walk_agrees_with_ladder_search_and_raw_engine() {
    let mut checked = 0;
    for (rows, cols) in [(4, 4), (4, 5), (5, 5), (5, 6), (6, 6)] {
        let n = rows * cols;
        for t in 0..24u64 {
            let k = [0, 1, 2, 3, n / 8, n / 5, n / 4, n / 3][t as usize % 8];
            let (b, ans) = reveal(rows, cols, k, 100 * n as u64 + t);
            let ctx = Ctx::new(rows, cols);
            let lim = Limits {
                cap: 50,
                node_cap: 5_000_000,
            };
            let w = search::count_in(&ctx, &b, Rungs::DECIDE, lim);
            let l = search::count_ladder_search(&ctx, &b, Rungs::DECIDE, lim);
            assert!(
                !matches!(w.count, Count::Unknown { .. }),
                "{rows}x{cols}\n{}",
                b.format()
            );
            if !matches!(l.count, Count::Unknown { .. }) {
                assert_eq!(w.count, l.count, "{rows}x{cols}\n{}", b.format());
            }
            let raw = count_solutions(rows, cols, &b.givens, 50);
            let wc = match w.count {
                Count::Exact(k) | Count::AtLeast(k) => k,
                Count::Unknown { .. } => unreachable!(),
            };
            assert_eq!(wc, raw, "{rows}x{cols}\n{}", b.format());
            assert!(w.answers.iter().any(|a| a == &ans) || wc == 50);
            for a in &w.answers {
                assert!(b.is_answer(a));
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 120);
}

/// The sparse decision (cap 2) on random reveals at 1, 0.75 and 0.5 of the bank's clue density:
/// on 8×8 (40 answers, 120 boards) it agrees with the raw walk engine on every board; on 8×8
/// and 10×10 (20 answers, 60 boards) no decision is unknown; every "2+" carries two distinct
/// answers of the board, every "1" the drawn answer (the only one).
#[test]
fn sparse_reveals_are_decided_and_agree_with_raw_engine() {
    use gridcensus::numbrix::studies::{BANK_DENSITY, SPARSE_FACTORS};
    let mut seen = [0usize; 3];
    for (s, answers) in [(8usize, 40u64), (10, 20)] {
        let n = s * s;
        let ctx = Ctx::new(s, s);
        for t in 0..answers {
            for f in SPARSE_FACTORS {
                let k = ((n as f64) * BANK_DENSITY * f).round() as usize;
                let (b, ans) = reveal(s, s, k, 70_001 * s as u64 + t);
                let v = search::count_in(&ctx, &b, Rungs::DECIDE, Limits::default());
                let got = match v.count {
                    Count::Exact(1) => 1,
                    Count::AtLeast(2) => 2,
                    other => panic!("{other:?} on {s}x{s}\n{}", b.format()),
                };
                assert_eq!(v.answers.len(), got);
                for a in &v.answers {
                    assert!(b.is_answer(a), "{s}x{s}\n{}", b.format());
                }
                if got == 2 {
                    assert_ne!(v.answers[0], v.answers[1]);
                } else {
                    assert_eq!(v.answers[0], ans);
                }
                if s == 8 {
                    let raw = count_solutions(s, s, &b.givens, 2);
                    assert_eq!(raw, got as u64, "{s}x{s}\n{}", b.format());
                }
                seen[got] += 1;
            }
        }
    }
    assert_eq!(seen[1] + seen[2], 180);
    assert!(seen[2] > 100, "{seen:?}");
}
