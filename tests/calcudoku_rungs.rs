//! Per-rung soundness in both sign modes: on small random boards with every solution
//! enumerated by the independent verifier, each rung alone (and the whole ladder) never removes
//! a value that some solution consistent with the pinned cells uses. Plus: every rung fires.

use gridcensus::calcudoku::generate::seeded_board;
use gridcensus::calcudoku::solver::{ALL_RUNGS, Ctx, Rung, Rungs, State, ladder};
use gridcensus::calcudoku::verify_count;
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const ENUM_CAP: u64 = 20_000;

fn check_rungs(seed: u64, n: usize, max_cage: usize, hide: bool, pin_pct: u32) {
    let (board, _) = seeded_board(n, max_cage, hide, seed);
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
    let mut sets: Vec<Rungs> = ALL_RUNGS.iter().map(|&r| Rungs::only(r)).collect();
    sets.push(Rungs::ALL);
    sets.push(Rungs::ALL.without(Rung::Cage));
    for rungs in sets {
        let mut st = State::new(&board);
        for &c in &pins {
            st.assign(&board, c, pick[c] as u32);
        }
        let mut ctx = Ctx::new();
        let res = ladder(&board, &mut st, rungs, &mut ctx);
        assert!(
            res.is_ok(),
            "rungs {} found a contradiction on a solvable state (hide={hide})\n{}",
            rungs.names(),
            board.to_text()
        );
        for s in &consistent {
            for c in 0..n * n {
                assert!(
                    st.cands[c] >> s[c] & 1 != 0,
                    "rungs {} removed {} at cell {c}, used by a solution (hide={hide})\n{}",
                    rungs.names(),
                    s[c],
                    board.to_text()
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn each_rung_is_sound(seed in any::<u64>(), n in 3usize..=5, max_cage in 2usize..=5,
                          hide in any::<bool>(), pin_pct in 0u32..40) {
        check_rungs(seed, n, max_cage, hide, pin_pct);
    }
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
