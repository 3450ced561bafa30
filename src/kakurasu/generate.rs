//! The generator: rejection sampling. Kakurasu has no clue cells to remove, so shade each cell
//! with probability ½, induce the 2n targets, and keep the board only if counting search (with
//! enumeration, capped at 2) proves the solution unique. The number of rolls is recorded.

use super::rules::RuleSet;
use super::search::{SearchResult, count};
use super::{Board, Shading};
use rand::Rng;

/// A generated board with its unique solution and the rolls it took.
#[derive(Clone, Debug)]
pub struct Generated {
    pub board: Board,
    pub solution: Shading,
    pub rolls: u64,
    /// The accepting search (enumeration, cap 2): its node counts.
    pub search: SearchResult,
}

/// A uniformly random shading (each cell shaded with probability ½).
pub fn random_shading<R: Rng + ?Sized>(n: usize, rng: &mut R) -> Shading {
    let mask = (1u16 << n) - 1;
    Shading {
        n,
        rows: (0..n).map(|_| rng.next_u32() as u16 & mask).collect(),
    }
}

/// Roll shadings until one has uniquely solvable targets. Gives up after `max_rolls`.
pub fn unique_board<R: Rng + ?Sized>(n: usize, rng: &mut R, max_rolls: u64) -> Option<Generated> {
    for rolls in 1..=max_rolls {
        let s = random_shading(n, rng);
        let board = s.targets();
        let search = count(&board, RuleSet::Enumeration, 2);
        if search.count == 1 {
            return Some(Generated {
                board,
                solution: s,
                rolls,
                search,
            });
        }
    }
    None
}
