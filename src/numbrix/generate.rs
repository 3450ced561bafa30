//! Clue sets for an answer: the adversary's irredundant set and random reveals until unique.

use super::board::Board;
use super::ladder::{Ctx, Rungs, Work};
use super::search::{self, Count, Limits};
use rand::Rng;
use rand::seq::SliceRandom;

/// Printed numbers of `answer` on the cells where `mask` is set.
pub fn board_of(ctx: &Ctx, answer: &[u32], mask: &[bool]) -> Board {
    let givens = answer
        .iter()
        .zip(mask)
        .map(|(&v, &m)| if m { v } else { 0 })
        .collect();
    Board {
        rows: ctx.geo.rows,
        cols: ctx.geo.cols,
        givens,
    }
}

/// The adversary: reveal numbers in random order until the ladder `rungs` finishes the board,
/// then take back (in a fresh random order) every number it can do without. The result is
/// irredundant for that ladder, and unique (the ladder's deductions are sound).
pub fn adversarial<R: Rng + ?Sized>(
    ctx: &Ctx,
    answer: &[u32],
    rungs: Rungs,
    rng: &mut R,
    work: &mut Work,
) -> Board {
    let n = answer.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(rng);
    let mut mask = vec![false; n];
    // Reveal in blocks, then back off to the first prefix that finishes (binary search over the
    // prefix length: finishing is monotone in the revealed set for sound rungs at fixpoint).
    let finishes = |mask: &[bool], work: &mut Work| {
        search::ladder_finishes(ctx, &board_of(ctx, answer, mask), rungs, work)
    };
    let (mut lo, mut hi) = (0usize, n); // prefix hi finishes (all printed always does)
    while lo < hi {
        let mid = (lo + hi) / 2;
        mask.iter_mut().for_each(|m| *m = false);
        for &c in &order[..mid] {
            mask[c] = true;
        }
        if finishes(&mask, work) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    mask.iter_mut().for_each(|m| *m = false);
    for &c in &order[..hi] {
        mask[c] = true;
    }
    let mut revealed: Vec<usize> = order[..hi].to_vec();
    revealed.shuffle(rng);
    for c in revealed {
        mask[c] = false;
        if !finishes(&mask, work) {
            mask[c] = true;
        }
    }
    board_of(ctx, answer, &mask)
}

/// Random ink: reveal numbers in random order until the answer is unique (decided by the ladder
/// with search); the first such prefix. `None` if a uniqueness decision hit the node cap.
pub fn random_until_unique<R: Rng + ?Sized>(
    ctx: &Ctx,
    answer: &[u32],
    rungs: Rungs,
    limits: Limits,
    rng: &mut R,
) -> Option<Board> {
    let n = answer.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(rng);
    let mut mask = vec![false; n];
    // Uniqueness is monotone in the prefix: binary search for the first unique prefix.
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        mask.iter_mut().for_each(|m| *m = false);
        for &c in &order[..mid] {
            mask[c] = true;
        }
        match search::count_in(ctx, &board_of(ctx, answer, &mask), rungs, limits).count {
            Count::Exact(1) => hi = mid,
            Count::Unknown { .. } => return None,
            _ => lo = mid + 1,
        }
    }
    mask.iter_mut().for_each(|m| *m = false);
    for &c in &order[..hi] {
        mask[c] = true;
    }
    Some(board_of(ctx, answer, &mask))
}

/// Random ink read by the ladder: reveal numbers in random order until the ladder `rungs`
/// finishes the board (first such prefix, by binary search).
pub fn random_until_ladder<R: Rng + ?Sized>(
    ctx: &Ctx,
    answer: &[u32],
    rungs: Rungs,
    rng: &mut R,
) -> Board {
    let n = answer.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(rng);
    let prefix = |k: usize| {
        let mut mask = vec![false; n];
        for &c in &order[..k] {
            mask[c] = true;
        }
        board_of(ctx, answer, &mask)
    };
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if search::ladder_finishes(ctx, &prefix(mid), rungs, &mut Work::default()) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    prefix(hi)
}
