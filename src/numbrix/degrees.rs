//! The degree test of a partial path: can the cells still to be walked carry a path's edges?
//!
//! On the path, every free cell has two path neighbours (one if it is a path end still
//! unplaced), and every placed number with an unplaced neighbouring number (a *port*) has one
//! for each such number, among the free cells. The grid is bipartite (chessboard colours), so
//! asking for a set of grid edges with exactly these degrees is a b-matching between the two
//! colours; the path ends become two *slot* nodes, one per colour, each taking one edge from a
//! cell that may be an end of that colour for every end of that colour still unplaced. No such
//! edge set, no path: the test is a necessary condition (a set of disjoint cycles and paths
//! passes it too).
//!
//! The matching is kept between calls and repaired: edges no longer allowed are dropped, then
//! every left node short of its degree is augmented along alternating paths (Kuhn's method). In
//! a depth-first search the state changes by one cell per node, so a call usually costs a few
//! short augmentations.

use super::bits::Bits;
use super::board::Geometry;

const NONE: u16 = u16::MAX;
/// A matched edge to the slot node of the cell's colour.
const SLOT: u16 = u16::MAX - 1;

/// The demands of one test, read by the matching as it goes.
pub trait Demands {
    /// Degree cell a must have (0: not in the test).
    fn need(&self, a: usize) -> u8;
    /// Whether the grid edge a–b (both with a degree to meet) may carry the path.
    fn edge(&self, a: usize, b: usize) -> bool;
    /// Per colour: how many path ends still unplaced lie on it, and the cells that may be one.
    fn slots(&self) -> [(u8, Bits); 2];
    /// The degrees summed per colour.
    fn sides(&self) -> [usize; 2];
}

/// A b-matching kept across calls (see the module documentation).
pub struct Degrees {
    n: usize,
    colour0: Bits,
    nbrs: Vec<Vec<usize>>,
    mate: Vec<[u16; 2]>,
    seen: Vec<u32>,
    stamp: u32,
    /// The cells matched to each slot node.
    slot_cells: [Bits; 2],
}

impl Degrees {
    pub fn new(geo: &Geometry) -> Degrees {
        let n = geo.n;
        Degrees {
            n,
            colour0: (0..n).filter(|&c| geo.colour(c) == 0).collect(),
            nbrs: geo.nbrs.clone(),
            mate: vec![[NONE; 2]; n],
            seen: vec![0; n + 2],
            stamp: 0,
            slot_cells: [Bits::EMPTY; 2],
        }
    }

    fn colour(&self, c: usize) -> usize {
        usize::from(!self.colour0.has(c))
    }

    fn deg(&self, c: usize) -> u8 {
        u8::from(self.mate[c][0] != NONE) + u8::from(self.mate[c][1] != NONE)
    }

    fn has_mate(&self, c: usize, m: u16) -> bool {
        self.mate[c][0] == m || self.mate[c][1] == m
    }

    fn add_half(&mut self, c: usize, m: u16) {
        let s = &mut self.mate[c];
        debug_assert!(s[1] == NONE, "a third edge at a cell");
        if s[0] == NONE {
            s[0] = m;
        } else {
            s[1] = m;
        }
    }

    fn remove_half(&mut self, c: usize, m: u16) {
        let s = &mut self.mate[c];
        if s[0] == m {
            s[0] = s[1];
            s[1] = NONE;
        } else if s[1] == m {
            s[1] = NONE;
        }
    }

    /// Match cell a to cell b, or to its colour's slot (b = None).
    fn link(&mut self, a: usize, b: Option<usize>) {
        match b {
            Some(b) => {
                self.add_half(a, b as u16);
                self.add_half(b, a as u16);
            }
            None => {
                self.add_half(a, SLOT);
                let c = self.colour(a);
                self.slot_cells[c].set(a);
            }
        }
    }

    fn unlink(&mut self, a: usize, b: Option<usize>) {
        match b {
            Some(b) => {
                self.remove_half(a, b as u16);
                self.remove_half(b, a as u16);
            }
            None => {
                self.remove_half(a, SLOT);
                let c = self.colour(a);
                self.slot_cells[c].clear(a);
            }
        }
    }

    /// Whether edges with the demanded degrees exist.
    pub fn feasible<D: Demands>(&mut self, d: &D) -> bool {
        let n = self.n;
        let slots = d.slots();
        // Repair: drop the edges the demands no longer allow, then any excess.
        for a in 0..n {
            if self.mate[a][0] == NONE {
                continue;
            }
            let need = d.need(a);
            for k in (0..2).rev() {
                let m = self.mate[a][k];
                if m == NONE {
                    continue;
                }
                let keep = need > 0
                    && if m == SLOT {
                        slots[self.colour(a)].1.has(a)
                    } else {
                        let b = m as usize;
                        d.need(b) > 0 && d.edge(a, b)
                    };
                if !keep {
                    self.unlink(a, (m != SLOT).then_some(m as usize));
                }
            }
            while self.deg(a) > need {
                let m = self.mate[a][1];
                self.unlink(a, (m != SLOT).then_some(m as usize));
            }
        }
        for (c, slot) in slots.iter().enumerate() {
            while self.slot_cells[c].count() > u32::from(slot.0) {
                let a = self.slot_cells[c].min().expect("a slot edge");
                self.unlink(a, None);
            }
        }
        // Both colours must carry the same number of edge ends; slot c sits on the other side
        // and takes slots[c].0 edges.
        let side = d.sides();
        if side[0] + slots[1].0 as usize != side[1] + slots[0].0 as usize {
            return false;
        }
        // Augment every left node (colour 0, and the colour-1 slot) short of its degree.
        for a in self.colour0.iter() {
            let need = d.need(a);
            while self.deg(a) < need {
                self.stamp = self.stamp.wrapping_add(1);
                if !self.augment(d, &slots, Left::Cell(a)) {
                    return false;
                }
            }
        }
        while self.slot_cells[1].count() < u32::from(slots[1].0) {
            self.stamp = self.stamp.wrapping_add(1);
            if !self.augment(d, &slots, Left::Slot) {
                return false;
            }
        }
        true
    }

    /// One more edge at left node l along an alternating path.
    fn augment<D: Demands>(&mut self, d: &D, slots: &[(u8, Bits); 2], l: Left) -> bool {
        // Right neighbours not yet matched to l: cells, or the colour-0 slot (index n).
        let mut rs = [0usize; 4];
        let mut k = 0;
        // For a cell: the colour-0 slot is a right neighbour too; for the slot: its cells.
        let (slot_nbr, set) = match l {
            Left::Cell(a) => {
                for i in 0..self.nbrs[a].len() {
                    let b = self.nbrs[a][i];
                    if d.need(b) > 0 && !self.has_mate(a, b as u16) && d.edge(a, b) {
                        rs[k] = b;
                        k += 1;
                    }
                }
                let slot = slots[0].0 > 0 && slots[0].1.has(a) && !self.has_mate(a, SLOT);
                (slot, Bits::EMPTY)
            }
            Left::Slot => (false, slots[1].1.and_not(self.slot_cells[1])),
        };
        let cells_of_set = matches!(l, Left::Slot);
        // A right node with room first.
        for &r in &rs[..k] {
            if self.seen[r] != self.stamp && self.deg(r) < d.need(r) {
                self.join(l, r);
                return true;
            }
        }
        if slot_nbr
            && self.seen[self.n] != self.stamp
            && self.slot_cells[0].count() < u32::from(slots[0].0)
        {
            self.join(l, self.n);
            return true;
        }
        if cells_of_set {
            for r in set.iter() {
                if self.seen[r] != self.stamp && d.need(r) > 0 && self.deg(r) < d.need(r) {
                    self.join(l, r);
                    return true;
                }
            }
        }
        // Then along an edge of a right node already full.
        for &r in &rs[..k] {
            if self.reroute(d, slots, l, r) {
                return true;
            }
        }
        if slot_nbr && self.reroute(d, slots, l, self.n) {
            return true;
        }
        if cells_of_set {
            for r in set.iter() {
                if d.need(r) > 0 && self.reroute(d, slots, l, r) {
                    return true;
                }
            }
        }
        false
    }

    /// Give l an edge to the full right node r by finding another edge for one of r's left
    /// nodes.
    fn reroute<D: Demands>(&mut self, d: &D, slots: &[(u8, Bits); 2], l: Left, r: usize) -> bool {
        if self.seen[r] == self.stamp {
            return false;
        }
        self.seen[r] = self.stamp;
        let mut lefts = [Left::Slot; 2];
        let mut k = 0;
        let mut many = Bits::EMPTY;
        if r == self.n {
            many = self.slot_cells[0];
        } else {
            for &m in &self.mate[r] {
                if m != NONE {
                    lefts[k] = if m == SLOT {
                        Left::Slot
                    } else {
                        Left::Cell(m as usize)
                    };
                    k += 1;
                }
            }
        }
        let tries = lefts[..k]
            .iter()
            .copied()
            .chain(many.iter().map(Left::Cell));
        for l2 in tries {
            if l2 == l {
                continue;
            }
            // Give r's edge from l2 to l, and find l2 another.
            self.part(l2, r);
            if self.augment(d, slots, l2) {
                self.join(l, r);
                return true;
            }
            self.join(l2, r);
        }
        false
    }

    fn join(&mut self, l: Left, r: usize) {
        match l {
            Left::Cell(a) if r == self.n => self.link(a, None),
            Left::Cell(a) => self.link(a, Some(r)),
            Left::Slot => self.link(r, None),
        }
    }

    fn part(&mut self, l: Left, r: usize) {
        match l {
            Left::Cell(a) if r == self.n => self.unlink(a, None),
            Left::Cell(a) => self.unlink(a, Some(r)),
            Left::Slot => self.unlink(r, None),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Left {
    Cell(usize),
    /// The slot of colour-1 path ends (on the colour-0 side).
    Slot,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Demands spelt out cell by cell.
    struct Table {
        nb: Vec<Bits>,
        need: Vec<u8>,
        slots: [(u8, Bits); 2],
        colour: Vec<usize>,
    }

    impl Demands for Table {
        fn need(&self, a: usize) -> u8 {
            self.need[a]
        }
        fn edge(&self, a: usize, b: usize) -> bool {
            self.nb[a].has(b)
        }
        fn slots(&self) -> [(u8, Bits); 2] {
            self.slots
        }
        fn sides(&self) -> [usize; 2] {
            let mut s = [0; 2];
            for (a, &k) in self.need.iter().enumerate() {
                s[self.colour[a]] += k as usize;
            }
            s
        }
    }

    /// Whether some set of grid edges has the demanded degrees: every edge set tried.
    fn brute(geo: &Geometry, d: &Table) -> bool {
        let edges: Vec<(usize, usize)> = (0..geo.n)
            .flat_map(|a| geo.nbrs[a].iter().map(move |&b| (a, b)))
            .filter(|&(a, b)| a < b && d.need[a] > 0 && d.need[b] > 0 && d.nb[a].has(b))
            .collect();
        (0u64..1 << edges.len()).any(|mask| {
            let mut deg = vec![0u8; geo.n];
            for (i, &(a, b)) in edges.iter().enumerate() {
                if mask >> i & 1 == 1 {
                    deg[a] += 1;
                    deg[b] += 1;
                }
            }
            let mut ends = [0u8; 2];
            for a in 0..geo.n {
                match d.need[a].checked_sub(deg[a]) {
                    Some(0) => {}
                    Some(1) if d.slots[geo.colour(a)].1.has(a) => ends[geo.colour(a)] += 1,
                    _ => return false,
                }
            }
            ends == [d.slots[0].0, d.slots[1].0]
        })
    }

    /// On random demands over 3×3, 3×4 and 4×4 grids (some edges forbidden, some cells out of
    /// the test, random end slots), the test agrees with trying every edge set, both when its
    /// matching is kept from the previous demands and when it starts afresh.
    #[test]
    fn agrees_with_every_edge_set_on_small_grids() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let (mut yes, mut no) = (0, 0);
        for (rows, cols, trials) in [(3, 3, 3000), (3, 4, 1500), (4, 4, 30)] {
            let geo = Geometry::new(rows, cols);
            let mut kept = Degrees::new(&geo);
            for _ in 0..trials {
                let mut nb = vec![Bits::EMPTY; geo.n];
                for a in 0..geo.n {
                    for &b in &geo.nbrs[a] {
                        if a < b && rng.random_range(0..8) > 0 {
                            nb[a].set(b);
                            nb[b].set(a);
                        }
                    }
                }
                let mut slots = [(0u8, Bits::EMPTY); 2];
                for (c, slot) in slots.iter_mut().enumerate() {
                    for a in 0..geo.n {
                        if geo.colour(a) == c && rng.random_range(0..3) == 0 {
                            slot.1.set(a);
                        }
                    }
                }
                let need: Vec<u8> = if rng.random_range(0..2) == 0 {
                    for slot in slots.iter_mut() {
                        slot.0 = rng.random_range(0..3);
                    }
                    (0..geo.n)
                        .map(|_| [0, 1, 2, 2, 2][rng.random_range(0..5)])
                        .collect()
                } else {
                    // Planted: the degrees of a random edge set of degree at most 2, plus end
                    // slots, then now and then one degree moved by one.
                    let mut deg = vec![0u8; geo.n];
                    for a in 0..geo.n {
                        for b in nb[a].iter() {
                            if a < b && deg[a] < 2 && deg[b] < 2 && rng.random_range(0..3) > 0 {
                                deg[a] += 1;
                                deg[b] += 1;
                            }
                        }
                    }
                    for (c, slot) in slots.iter_mut().enumerate() {
                        for a in slot.1.iter() {
                            if slot.0 < 2 && deg[a] < 2 && rng.random_range(0..2) == 0 {
                                deg[a] += 1;
                                slot.0 += 1;
                            }
                        }
                        debug_assert!(c < 2);
                    }
                    if rng.random_range(0..3) == 0 {
                        let a = rng.random_range(0..geo.n);
                        deg[a] = (deg[a] + 1 + rng.random_range(0..2) as u8) % 3;
                    }
                    deg
                };
                let d = Table {
                    nb,
                    need,
                    slots,
                    colour: (0..geo.n).map(|a| geo.colour(a)).collect(),
                };
                let want = brute(&geo, &d);
                assert_eq!(kept.feasible(&d), want, "{rows}x{cols} kept: {:?}", d.need);
                assert_eq!(Degrees::new(&geo).feasible(&d), want, "{rows}x{cols} fresh");
                if want {
                    yes += 1;
                } else {
                    no += 1;
                }
            }
        }
        // Both verdicts are met often enough for the comparison to mean something.
        assert!(yes > 200 && no > 200, "{yes} feasible, {no} not");
    }
}
