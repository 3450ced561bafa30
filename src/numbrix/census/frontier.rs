//! The frontier counter: undirected Hamiltonian paths of w×L grids by a transfer matrix over
//! plug states (a "plug DP"), built on its own: it shares nothing with the walk engine.
//!
//! Cells are processed row by row. The frontier after a cell crosses w + 1 edges: the down edges
//! of the cells already processed in this row, the right edge of the last processed cell, and the
//! down edges of the previous row's remaining cells. Each frontier edge carries a plug:
//!
//! * `0`: the edge is unused;
//! * `1` / `2`: an open bracket / close bracket: the two ends of a partial path that leaves the
//!   frontier at both ends (brackets nest, since partial paths drawn in the processed region
//!   cannot cross);
//! * `3`: a partial path whose other end is already one of the two endpoints of the final path.
//!
//! The state also counts the path endpoints already used (0, 1 or 2). Every cell gets path
//! degree 1 (an endpoint) or 2; joining the two ends of one partial path would close a cycle and is
//! refused; the path is completed (two `3` plugs joined, or a `3` plug ended) only at the last cell
//! of a row, with no other plug left, and the completed paths are harvested there as the count of
//! the w×(rows so far) grid. One sweep of width w thus counts w×L for every L up to the maximum.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Widest frontier accepted (2 bits per plug, w + 1 plugs, plus the end count, in a u64).
pub const MAX_WIDTH: usize = 24;

/// A multiplicative hasher for the u64 state keys.
#[derive(Default)]
struct StateHasher(u64);

impl Hasher for StateHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, x: u64) {
        let h = (x ^ (x >> 29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 32);
    }
}

type StateMap = HashMap<u64, u128, BuildHasherDefault<StateHasher>>;

/// One width's sweep: undirected Hamiltonian path counts of w×L for L = 1..=max_len.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sweep {
    pub width: usize,
    /// `counts[L - 1]` = undirected Hamiltonian paths of the w×L grid.
    pub counts: Vec<u128>,
    /// Largest number of distinct frontier states held at once.
    pub max_states: usize,
    /// `max_states_by_len[L - 1]`: the largest state count while sweeping the first L rows.
    pub max_states_by_len: Vec<u64>,
}

#[inline]
fn get(s: u64, i: usize) -> u64 {
    (s >> (2 * i)) & 3
}

#[inline]
fn set(s: u64, i: usize, v: u64) -> u64 {
    (s & !(3u64 << (2 * i))) | (v << (2 * i))
}

/// Position of the bracket matching the one at `i` (open brackets search right, close left).
fn partner(s: u64, i: usize, positions: usize) -> usize {
    let mut depth = 0i32;
    if get(s, i) == 1 {
        for j in i..positions {
            match get(s, j) {
                1 => depth += 1,
                2 => {
                    depth -= 1;
                    if depth == 0 {
                        return j;
                    }
                }
                _ => {}
            }
        }
    } else {
        for j in (0..=i).rev() {
            match get(s, j) {
                2 => depth += 1,
                1 => {
                    depth -= 1;
                    if depth == 0 {
                        return j;
                    }
                }
                _ => {}
            }
        }
    }
    panic!("frontier state {s:#x} has an unmatched bracket at {i}");
}

/// Count undirected Hamiltonian paths of w×L grids for L = 1..=max_len in one sweep.
pub fn sweep(width: usize, max_len: usize) -> Sweep {
    assert!((1..=MAX_WIDTH).contains(&width), "frontier width {width}");
    let w = width;
    let positions = w + 1;
    let ends_shift = 2 * positions;
    let plug_mask = (1u64 << ends_shift) - 1;
    let mut counts = vec![0u128; max_len];
    let mut cur = StateMap::default();
    cur.insert(0, 1);
    let mut max_states = 1;
    let mut max_states_by_len = Vec::with_capacity(max_len);
    for row in 0..max_len {
        if row > 0 {
            // New row: the old down plugs become up plugs at positions 1..=w; left plug empty.
            let mut shifted = StateMap::default();
            shifted.reserve(cur.len());
            for (&s, &n) in &cur {
                let plugs = s & plug_mask;
                debug_assert_eq!(get(plugs, w), 0, "a right plug left the grid");
                let ns = ((plugs << 2) & plug_mask) | (s & !plug_mask);
                *shifted.entry(ns).or_insert(0) += n;
            }
            cur = shifted;
        }
        for c in 0..w {
            let last_in_row = c + 1 == w;
            let mut next = StateMap::default();
            next.reserve(cur.len() * 2);
            for (&s, &n) in &cur {
                let ends = s >> ends_shift;
                let plugs = s & plug_mask;
                let l = get(plugs, c);
                let u = get(plugs, c + 1);
                let base = set(set(plugs, c, 0), c + 1, 0);
                let mut emit = |p: u64, e: u64| {
                    *next.entry(p | (e << ends_shift)).or_insert(0) += n;
                };
                // A completion is allowed only at a row end, with nothing else on the frontier.
                let may_complete = last_in_row && base == 0;
                match (l, u) {
                    (0, 0) => {
                        if !last_in_row {
                            emit(set(set(base, c, 1), c + 1, 2), ends); // down + right
                            if ends < 2 {
                                emit(set(base, c + 1, 3), ends + 1); // endpoint, right
                            }
                        }
                        if ends < 2 {
                            emit(set(base, c, 3), ends + 1); // endpoint, down
                        }
                        if ends == 0 && may_complete {
                            emit(0, 2); // a one-cell path
                        }
                    }
                    (t, 0) | (0, t) => {
                        emit(set(base, c, t), ends); // pass on downwards
                        if !last_in_row {
                            emit(set(base, c + 1, t), ends); // pass on to the right
                        }
                        if ends < 2 {
                            match t {
                                3 => {
                                    if may_complete {
                                        emit(0, ends + 1);
                                    }
                                }
                                _ => {
                                    let i = if l != 0 { c } else { c + 1 };
                                    let j = partner(plugs, i, positions);
                                    emit(set(base, j, 3), ends + 1);
                                }
                            }
                        }
                    }
                    (1, 2) => {} // the two ends of one partial path: a cycle
                    (1, 1) => {
                        let j = partner(plugs, c + 1, positions);
                        emit(set(base, j, 1), ends);
                    }
                    (2, 2) => {
                        let j = partner(plugs, c, positions);
                        emit(set(base, j, 2), ends);
                    }
                    (2, 1) => emit(base, ends),
                    (3, 3) => {
                        if may_complete {
                            emit(0, ends);
                        }
                    }
                    (3, t) => {
                        let j = partner(plugs, c + 1, positions);
                        debug_assert!(t == 1 || t == 2);
                        emit(set(base, j, 3), ends);
                    }
                    (t, 3) => {
                        let j = partner(plugs, c, positions);
                        debug_assert!(t == 1 || t == 2);
                        emit(set(base, j, 3), ends);
                    }
                    _ => unreachable!(),
                }
            }
            cur = next;
            max_states = max_states.max(cur.len());
        }
        // Harvest the completed paths: the whole w×(row+1) grid is covered by one path.
        let done = 2u64 << ends_shift;
        if let Some(n) = cur.remove(&done) {
            counts[row] = n;
        }
        max_states_by_len.push(max_states as u64);
    }
    Sweep {
        width,
        counts,
        max_states,
        max_states_by_len,
    }
}

/// Undirected Hamiltonian paths of the rows×cols grid.
pub fn undirected_paths(rows: usize, cols: usize) -> u128 {
    let (w, l) = (rows.min(cols), rows.max(cols));
    sweep(w, l).counts[l - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_grids() {
        assert_eq!(undirected_paths(1, 1), 1);
        assert_eq!(undirected_paths(1, 5), 1);
        assert_eq!(undirected_paths(2, 2), 4);
        assert_eq!(undirected_paths(3, 3), 20);
        assert_eq!(undirected_paths(3, 4), 62);
        assert_eq!(undirected_paths(4, 4), 276);
        let s = sweep(2, 12);
        for m in 1..=12u128 {
            assert_eq!(
                s.counts[m as usize - 1],
                if m == 1 { 1 } else { m * m - m + 2 }
            );
        }
    }
}

#[cfg(test)]
mod timing {
    #[test]
    #[ignore]
    fn time_sweeps() {
        for w in 1..=12 {
            let t = std::time::Instant::now();
            let s = super::sweep(w, 12);
            eprintln!(
                "w={w}: diag {} max_states {} in {:?}",
                s.counts[w - 1],
                s.max_states,
                t.elapsed()
            );
        }
    }
}
