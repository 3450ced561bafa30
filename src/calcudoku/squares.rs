//! Where the Latin square under a Calcudoku board comes from.
//!
//! * [`SquareSource::Uniform`] (the default): the Jacobson–Matthews chain read at a fixed time
//!   (T = n³ moves from the cyclic square; an improper end state starts a fresh chain). This is
//!   the reader the sampler study shows within its noise floor of the exact census distribution,
//!   so the squares are (to that precision) uniform over all Latin squares of order n.
//! * [`SquareSource::Backtrack`]: randomised backtracking fill ([`super::generate::random_latin`]).
//!   It reaches every square, but not uniformly; kept so the difference can be shown.
//!
//! Both return cells in reading order with values `1..=n`, like `random_latin`.

use crate::latin::jm::JmChain;
use crate::latin::samplers::fixed_time;
use clap::ValueEnum;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Chains tried for one square before giving up (a fixed-time chain of n³ moves ends proper
/// with probability far above 1/100 at every order 2..=16, so this is never reached in practice).
pub const CHAIN_CAP: u64 = 1_000_000;

/// How the Latin square under a board is drawn.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    ValueEnum,
    Serialize,
    Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum SquareSource {
    /// Jacobson–Matthews chain read at a fixed time of n³ moves (uniform).
    #[default]
    Uniform,
    /// Randomised backtracking fill (every square reachable, not uniformly).
    Backtrack,
}

impl SquareSource {
    /// Name on the command line and in result files.
    pub fn name(self) -> &'static str {
        match self {
            SquareSource::Uniform => "uniform",
            SquareSource::Backtrack => "backtrack",
        }
    }
}

/// Fixed-time moves for order `n`: n³.
pub fn moves(n: usize) -> u64 {
    (n as u64).pow(3)
}

/// One Latin square of order `n` (2..=16) from `source`, cells in reading order, values `1..=n`.
pub fn draw_square<R: Rng + ?Sized>(n: usize, source: SquareSource, rng: &mut R) -> Vec<u8> {
    match source {
        SquareSource::Uniform => {
            let mut chain = JmChain::cyclic(n);
            fixed_time(&mut chain, moves(n), CHAIN_CAP, rng)
                .expect("a fixed-time chain of n^3 moves ends proper within the chain cap");
            let sq = chain.square().expect("fixed_time leaves a proper state");
            sq.cells().iter().map(|&s| s + 1).collect()
        }
        SquareSource::Backtrack => super::generate::random_latin(n, rng),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn is_latin(n: usize, g: &[u8]) -> bool {
        (0..n).all(|r| {
            let mut row = 0u32;
            let mut col = 0u32;
            for c in 0..n {
                row |= 1 << g[r * n + c];
                col |= 1 << g[c * n + r];
            }
            let want = ((1u32 << n) - 1) << 1;
            row == want && col == want
        })
    }

    #[test]
    fn both_sources_give_latin_squares_with_values_1_to_n() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for n in 2..=9 {
            for src in [SquareSource::Uniform, SquareSource::Backtrack] {
                for _ in 0..20 {
                    let g = draw_square(n, src, &mut rng);
                    assert_eq!(g.len(), n * n);
                    assert!(is_latin(n, &g), "{src:?} order {n}: {g:?}");
                }
            }
        }
    }

    #[test]
    fn same_stream_same_square() {
        for src in [SquareSource::Uniform, SquareSource::Backtrack] {
            let a = draw_square(6, src, &mut Xoshiro256PlusPlus::seed_from_u64(3));
            let b = draw_square(6, src, &mut Xoshiro256PlusPlus::seed_from_u64(3));
            assert_eq!(a, b);
        }
    }
}
