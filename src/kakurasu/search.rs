//! Search over the line solver: propagate a rule set to its fixpoint, branch the first undecided
//! cell (row-major) shaded then crossed, recurse; count solutions up to a cap and record nodes.
//!
//! Branching on the first undecided cell makes the node counts comparable across rule sets: the
//! enumeration fixpoint contains the interval fixpoint, so by induction over the tree search with
//! enumeration never expands more nodes than search with intervals on the same board.

use super::rules::{RuleSet, State, propagate};
use super::{Board, Shading};

/// Search effort.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Every node of the search tree (the root included).
    pub nodes: u64,
    /// Nodes where the fixpoint stalled and the search branched (guesses).
    pub branches: u64,
}

/// The result of a counting search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// Solutions found, at most `cap`.
    pub count: u64,
    /// The first few solutions (at most `cap`, at most 2 kept).
    pub solutions: Vec<Shading>,
    pub stats: SearchStats,
}

/// Count the solutions extending `start`, stopping at `cap` (use `u64::MAX` for all).
pub fn count_from(board: &Board, start: State, rule: RuleSet, cap: u64) -> SearchResult {
    let mut r = SearchResult {
        count: 0,
        solutions: Vec::new(),
        stats: SearchStats::default(),
    };
    if cap > 0 {
        rec(board, start, rule, cap, &mut r);
    }
    r
}

/// Count the solutions of a board, stopping at `cap`.
pub fn count(board: &Board, rule: RuleSet, cap: u64) -> SearchResult {
    count_from(board, State::empty(board.n), rule, cap)
}

fn rec(board: &Board, mut state: State, rule: RuleSet, cap: u64, r: &mut SearchResult) {
    r.stats.nodes += 1;
    if propagate(board, &mut state, rule).is_err() {
        return;
    }
    let Some((i, j)) = state.first_undecided() else {
        r.count += 1;
        if r.solutions.len() < 2 {
            r.solutions.push(state.shading());
        }
        return;
    };
    r.stats.branches += 1;
    for v in [true, false] {
        let mut child = state.clone();
        child.set(i, j, v);
        rec(board, child, rule, cap, r);
        if r.count >= cap {
            return;
        }
    }
}
