//! Per-rung soundness in both sign modes and on mixed boards (some cages unsigned `?`): on
//! small random boards (orders 3–5) with every solution enumerated by the independent verifier,
//! each rung alone (and the whole ladder) never removes a value that some solution consistent
//! with the pinned cells uses; on orders 6–7 (too many squares to enumerate) the same against
//! the square the board was cut from. Plus: every rung fires.

use gridcensus::calcudoku::generate::seeded_board;
use gridcensus::calcudoku::solver::{ALL_RUNGS, Ctx, Rung, Rungs, State, ladder};
use gridcensus::calcudoku::verify_count;
use gridcensus::calcudoku::{Board, Op};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const ENUM_CAP: u64 = 20_000;

/// Sign mode of a test board: all shown, all hidden, or mixed (each cage unsigned with
/// probability 1/2, decided by the seed).
#[derive(Clone, Copy, Debug)]
enum Mode {
    Shown,
    Hidden,
    Mixed,
}

fn board_in_mode(seed: u64, n: usize, max_cage: usize, mode: Mode) -> (Board, Vec<u8>) {
    let (board, square) = seeded_board(n, max_cage, matches!(mode, Mode::Hidden), seed);
    if !matches!(mode, Mode::Mixed) {
        return (board, square);
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5eed);
    let mut cages = board.cages.clone();
    for c in &mut cages {
        if rng.random_bool(0.5) {
            c.op = Op::Any;
        }
    }
    (
        Board::new(n, cages, false).expect("mixed board is valid"),
        square,
    )
}

fn mode_of(k: u8) -> Mode {
    match k % 3 {
        0 => Mode::Shown,
        1 => Mode::Hidden,
        _ => Mode::Mixed,
    }
}

fn rung_sets() -> Vec<Rungs> {
    let mut sets: Vec<Rungs> = ALL_RUNGS.iter().map(|&r| Rungs::only(r)).collect();
    sets.push(Rungs::ALL);
    sets.push(Rungs::ALL.without(Rung::Cage));
    sets
}

/// Orders 6–7: every rung set, from random pins of the planted square, keeps every value of
/// that square (a rung that removes one is unsound).
fn check_rungs_planted(seed: u64, n: usize, max_cage: usize, mode: Mode, pin_pct: u32) {
    let (board, square) = board_in_mode(seed, n, max_cage, mode);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x9e37);
    let pins: Vec<usize> = (0..n * n)
        .filter(|_| rng.random_range(0..100) < pin_pct)
        .collect();
    for rungs in rung_sets() {
        let mut st = State::new(&board);
        for &c in &pins {
            st.assign(&board, c, square[c] as u32);
        }
        let mut ctx = Ctx::new();
        let res = ladder(&board, &mut st, rungs, &mut ctx);
        assert!(
            res.is_ok(),
            "rungs {} found a contradiction on a solvable state ({mode:?})\n{}",
            rungs.names(),
            board.unsigned_text()
        );
        for c in 0..n * n {
            assert!(
                st.cands[c] >> square[c] & 1 != 0,
                "rungs {} removed {} at cell {c}, used by the planted square ({mode:?})\n{}",
                rungs.names(),
                square[c],
                board.unsigned_text()
            );
        }
    }
}

fn check_rungs(seed: u64, n: usize, max_cage: usize, mode: Mode, pin_pct: u32) {
    let hide = mode;
    let (board, _) = board_in_mode(seed, n, max_cage, mode);
    let (count, sols) = verify_count(&board, ENUM_CAP);
    if count >= ENUM_CAP {
        return; // too many to enumerate; skip
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x9e37);
    let pick = &sols[rng.random_range(0..sols.len())];
    let pins: Vec<usize> = (0..n * n)
        .filter(|_| rng.random_range(0..100) < pin_pct)
        .collect();
    let consistent: Vec<&Vec<u8>> = sols
        .iter()
        .filter(|s| pins.iter().all(|&c| s[c] == pick[c]))
        .collect();
    for rungs in rung_sets() {
        let mut st = State::new(&board);
        for &c in &pins {
            st.assign(&board, c, pick[c] as u32);
        }
        let mut ctx = Ctx::new();
        let res = ladder(&board, &mut st, rungs, &mut ctx);
        assert!(
            res.is_ok(),
            "rungs {} found a contradiction on a solvable state (mode {hide:?})\n{}",
            rungs.names(),
            board.unsigned_text()
        );
        for s in &consistent {
            for c in 0..n * n {
                assert!(
                    st.cands[c] >> s[c] & 1 != 0,
                    "rungs {} removed {} at cell {c}, used by a solution (mode {hide:?})\n{}",
                    rungs.names(),
                    s[c],
                    board.unsigned_text()
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn each_rung_is_sound(seed in any::<u64>(), n in 3usize..=5, max_cage in 2usize..=5,
                          mode in 0u8..3, pin_pct in 0u32..40) {
        check_rungs(seed, n, max_cage, mode_of(mode), pin_pct);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]
    #[test]
    fn each_rung_is_sound_at_orders_6_and_7(seed in any::<u64>(), n in 6usize..=7,
                                            max_cage in 2usize..=6, mode in 0u8..3,
                                            pin_pct in 0u32..50) {
        check_rungs_planted(seed, n, max_cage, mode_of(mode), pin_pct);
    }
}

/// A mixed board solves, hints and certifies consistently with the verifier: the solver's
/// count (cap 3) equals the verifier's, and every certified flip of the first solution is a
/// solution by the verifier.
#[test]
fn mixed_boards_agree_with_the_verifier() {
    use gridcensus::calcudoku::certificate::certified_flips;
    use gridcensus::calcudoku::solver::{Count, HintEnd, hints};
    use gridcensus::calcudoku::verify::verify_grid;
    use gridcensus::calcudoku::{solve, verify_count};
    let mut flips = 0;
    for seed in 0..150u64 {
        let n = 4 + (seed % 2) as usize;
        let (board, _) = board_in_mode(seed, n, 2 + (seed % 3) as usize, Mode::Mixed);
        let (vc, _) = verify_count(&board, 3);
        let out = solve(&board, Rungs::ALL, 3, 1_000_000);
        let got = match out.count {
            Count::Exact(k) => k,
            Count::AtLeast(k) => k,
            Count::Unknown => panic!("node cap hit on a small board"),
        };
        assert_eq!(got, vc, "seed {seed}\n{}", board.unsigned_text());
        for s in &out.solutions {
            assert!(verify_grid(&board, s));
        }
        if let Some(s0) = out.solutions.first() {
            for f in certified_flips(&board, s0) {
                assert!(verify_grid(&board, &f.apply(n, s0)));
                flips += 1;
            }
        }
        // Hints run to the end never meet a contradiction on a solvable board.
        let (_, end) = hints(&board, Rungs::ALL, usize::MAX);
        if vc >= 1 {
            assert_ne!(end, HintEnd::Contradiction, "seed {seed}");
        }
    }
    assert!(flips > 0, "no certified flip on any mixed board");
}

#[test]
fn every_rung_fires_in_both_modes() {
    for hide in [false, true] {
        let mut fired = [0u64; 6];
        for seed in 0..300u64 {
            let n = 4 + (seed % 4) as usize;
            let (board, _) = seeded_board(n, 2 + (seed % 4) as usize, hide, seed);
            for (i, &r) in ALL_RUNGS.iter().enumerate() {
                // Each rung with the ones below it, so it has something to work from.
                let rungs = Rungs(((1u16 << (i + 1)) - 1) as u8);
                let mut st = State::new(&board);
                let mut ctx = Ctx::new();
                let _ = ladder(&board, &mut st, rungs, &mut ctx);
                fired[i] += ctx.stats[r as usize].removed;
            }
        }
        for (i, r) in ALL_RUNGS.iter().enumerate() {
            assert!(
                fired[i] > 0,
                "rung {r} never removed anything (hide={hide})"
            );
        }
    }
}
