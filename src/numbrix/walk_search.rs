//! The search that decides sparse boards: the path is walked number by number from the smallest
//! pinned number up to N, then from it down to 1, one cell per node, with four prunings checked
//! after every step:
//!
//! * **distance to the next pinned number**: the cell of v lies within w−v steps of the pinned
//!   number w above it (the chessboard parity of that distance is implied by the parity law,
//!   checked once at the root);
//! * **connectivity and sizes**: the cells not yet walked split into grid components; each is
//!   filled by one of the two walks still open (upward from the head, downward from the anchor),
//!   so there are at most two, each touches its walk's head, and when there are two their sizes
//!   are exactly the numbers each walk still has to place (and every pinned number left lies in
//!   the upward one);
//! * **dead ends**: a free cell with one free neighbour (counting the heads) can only be a path
//!   end, so there are at most as many as walks still open;
//! * **candidates**: a number only goes where the ladder's fixpoint at the root left it.
//!
//! This is the method of the write-up's raw walk engine, written again here (it shares no code
//! with `census/walk.rs`, which cross-checks it), on top of the ladder's root deductions.

use super::bits::Bits;
use super::board::Geometry;

/// Why a walk stopped early.
pub enum WalkStop {
    /// The answer cap was reached.
    Cap,
    /// The node cap was reached.
    Nodes,
}

/// A walk over a board whose pinned numbers (`pinned[v] = Some(cell)`, 0-based v) and
/// per-cell candidates (`cand[c]`, 0-based numbers) come from the root ladder.
pub struct Walk<'a> {
    geo: &'a Geometry,
    n: usize,
    pinned: Vec<Option<usize>>,
    pinned_cells: Bits,
    /// The smallest pinned number above v (0-based), with its cell.
    next_pinned: Vec<Option<(usize, usize)>>,
    cand: Vec<Bits>,
    /// The walk runs on the reversed numbering (v ↔ N−1−v), so that the downward walk is the
    /// shorter of the two free ends.
    mirror: bool,
    /// The anchor: the smallest pinned number and its cell (None on a board with none).
    anchor: Option<(usize, usize)>,
    cell_of: Vec<usize>,
    free: Bits,
    /// Static coverage. The stretch from a pinned v to the next pinned w reaches the cells y with
    /// d(cell of v, y) + d(y, cell of w) ≤ w − v; the stretch after the last pinned number, its
    /// ball. `later_cover[v]` is the union over the pinned numbers above v; `down_cover` is the
    /// ball of the anchor (the downward walk's reach).
    later_cover: Vec<Bits>,
    down_cover: Bits,
    pub nodes: u64,
    pub node_cap: u64,
    pub cap: u64,
    pub answers: Vec<Vec<u32>>,
}

impl<'a> Walk<'a> {
    pub fn new(geo: &'a Geometry, cand: &[Bits], cap: u64, node_cap: u64) -> Walk<'a> {
        let n = geo.n;
        let single = |b: &Bits| (b.count() == 1).then(|| b.min().unwrap());
        let lo = cand.iter().filter_map(single).min();
        let hi = cand.iter().filter_map(single).max();
        let mirror = matches!((lo, hi), (Some(a), Some(b)) if n - 1 - b < a);
        let cand: Vec<Bits> = if mirror {
            cand.iter()
                .map(|b| {
                    let mut m = Bits::EMPTY;
                    for v in b.iter() {
                        m.set(n - 1 - v);
                    }
                    m
                })
                .collect()
        } else {
            cand.to_vec()
        };
        let mut pinned = vec![None; n];
        let mut pinned_cells = Bits::EMPTY;
        for (c, b) in cand.iter().enumerate() {
            if b.count() == 1 {
                let v = b.min().unwrap();
                pinned[v] = Some(c);
                pinned_cells.set(c);
            }
        }
        let mut next_pinned = vec![None; n];
        let mut nxt = None;
        for v in (0..n).rev() {
            next_pinned[v] = nxt;
            if let Some(c) = pinned[v] {
                nxt = Some((v, c));
            }
        }
        let anchor = (0..n).find_map(|v| pinned[v].map(|c| (v, c)));
        let mut seg_cover = vec![Bits::EMPTY; n];
        for v in 0..n {
            let Some(cv) = pinned[v] else { continue };
            for y in 0..n {
                let ok = match next_pinned[v] {
                    Some((w, cw)) => geo.distance(cv, y) + geo.distance(y, cw) <= w - v,
                    None => geo.distance(cv, y) < n - v,
                };
                if ok {
                    seg_cover[v].set(y);
                }
            }
        }
        let mut later_cover = vec![Bits::EMPTY; n];
        let mut acc = Bits::EMPTY;
        for v in (0..n).rev() {
            later_cover[v] = acc;
            if pinned[v].is_some() {
                acc = acc.or(seg_cover[v]);
            }
        }
        let mut down_cover = Bits::EMPTY;
        if let Some((a, p)) = anchor {
            for y in 0..n {
                if geo.distance(p, y) <= a {
                    down_cover.set(y);
                }
            }
        }
        Walk {
            geo,
            n,
            pinned,
            pinned_cells,
            next_pinned,
            cand,
            mirror,
            anchor,
            cell_of: vec![usize::MAX; n],
            free: Bits::first(n),
            later_cover,
            down_cover,
            nodes: 0,
            node_cap,
            cap,
            answers: Vec::new(),
        }
    }

    /// Count the answers (up to the cap).
    pub fn run(&mut self) -> Result<(), WalkStop> {
        match self.anchor {
            Some((a, p)) => {
                self.place(a, p);
                if self.feasible_up(a, p) {
                    self.up(a, p)?;
                }
                self.unplace(a, p);
                Ok(())
            }
            None => {
                // Nothing pinned: the cell of 1 is a branch of its own.
                for s in 0..self.n {
                    if !self.cand[s].has(0) {
                        continue;
                    }
                    self.tick()?;
                    self.anchor = Some((0, s));
                    self.place(0, s);
                    if self.feasible_up(0, s) {
                        self.up(0, s)?;
                    }
                    self.unplace(0, s);
                }
                self.anchor = None;
                Ok(())
            }
        }
    }

    fn tick(&mut self) -> Result<(), WalkStop> {
        self.nodes += 1;
        if self.nodes > self.node_cap {
            return Err(WalkStop::Nodes);
        }
        Ok(())
    }

    fn place(&mut self, v: usize, c: usize) {
        self.cell_of[v] = c;
        self.free.clear(c);
    }

    fn unplace(&mut self, v: usize, c: usize) {
        self.cell_of[v] = usize::MAX;
        self.free.set(c);
    }

    /// May number v go to cell c (free, a candidate, and on its pinned cell if it has one)?
    fn admits(&self, v: usize, c: usize) -> bool {
        if !self.free.has(c) || !self.cand[c].has(v) {
            return false;
        }
        match self.pinned[v] {
            Some(p) => p == c,
            None => !self.pinned_cells.has(c),
        }
    }

    fn record(&mut self) -> Result<(), WalkStop> {
        let mut vals = vec![0u32; self.n];
        for (v, &c) in self.cell_of.iter().enumerate() {
            vals[c] = if self.mirror {
                (self.n - v) as u32
            } else {
                v as u32 + 1
            };
        }
        self.answers.push(vals);
        if self.answers.len() as u64 >= self.cap {
            return Err(WalkStop::Cap);
        }
        Ok(())
    }

    /// Upward from number v at cell x.
    fn up(&mut self, v: usize, x: usize) -> Result<(), WalkStop> {
        if v + 1 == self.n {
            let (a, p) = self.anchor.expect("an anchor is set while walking");
            return if a == 0 {
                self.record()
            } else {
                self.down(a, p)
            };
        }
        for y in self.ordered(x, v + 1) {
            self.tick()?;
            self.place(v + 1, y);
            if self.feasible_up(v + 1, y) {
                self.up(v + 1, y)?;
            }
            self.unplace(v + 1, y);
        }
        Ok(())
    }

    /// Downward from number v at cell x (the upward walk is complete).
    fn down(&mut self, v: usize, x: usize) -> Result<(), WalkStop> {
        if v == 0 {
            return self.record();
        }
        for y in self.ordered(x, v - 1) {
            self.tick()?;
            self.place(v - 1, y);
            if self.feasible_down(y) {
                self.down(v - 1, y)?;
            }
            self.unplace(v - 1, y);
        }
        Ok(())
    }

    /// The cells next to `x` that may hold number `v`, fewest free neighbours first (Warnsdorff's
    /// rule: a cell about to be cut off is taken while it still can be). The order only changes
    /// how soon answers are met, not which are counted.
    fn ordered(&self, x: usize, v: usize) -> Vec<usize> {
        let mut c: Vec<(u32, usize)> = self.geo.nbrs[x]
            .iter()
            .copied()
            .filter(|&y| self.admits(v, y))
            .map(|y| (self.geo.nmask[y].and(self.free).count(), y))
            .collect();
        c.sort_unstable();
        c.into_iter().map(|(_, y)| y).collect()
    }

    /// The cells of `free` connected to `seed` (both within `free`).
    fn flood(&self, seed: Bits, free: Bits) -> Bits {
        let mut s = seed.and(free);
        loop {
            let t = s.or(self.geo.dilate(s).and(free));
            if t == s {
                return s;
            }
            s = t;
        }
    }

    /// Free cells with at most one free neighbour once `heads` count as free: how many, and
    /// whether one has none at all.
    fn dead_ends(&self, heads: Bits) -> (u32, bool) {
        let open = self.free.or(heads);
        let mut ends = 0;
        for c in self.free.iter() {
            match self.geo.nmask[c].and(open).count() {
                0 => return (ends, true),
                1 => ends += 1,
                _ => {}
            }
        }
        (ends, false)
    }

    /// Whether the anchor is a pinned number (its cover was precomputed), not a trial start.
    fn anchor_is_fixed(&self) -> bool {
        self.anchor.is_some_and(|(a, p)| self.pinned[a] == Some(p))
    }

    /// After placing number v at x on the upward walk.
    fn feasible_up(&self, v: usize, x: usize) -> bool {
        if let Some((w, cy)) = self.next_pinned[v]
            && self.geo.distance(x, cy) > w - v
        {
            return false;
        }
        let free = self.free;
        if free.is_empty() {
            return true;
        }
        let (a, p) = self.anchor.expect("an anchor is set while walking");
        let up_left = self.n - 1 - v; // numbers v+1..n-1 still to place
        // Coverage: every free cell must be within reach of a stretch still to walk: the
        // current one (from x to the next pinned number, or to the end), a later one, or the
        // downward walk; and no walk may be the only reach of more cells than it has numbers.
        let mut cur = Bits::EMPTY;
        let cur_len = match self.next_pinned[v] {
            Some((w, cy)) => {
                for y in free.iter() {
                    if self.geo.distance(x, y) + self.geo.distance(y, cy) <= w - v {
                        cur.set(y);
                    }
                }
                w - v - 1
            }
            None => {
                for y in free.iter() {
                    if self.geo.distance(x, y) <= up_left {
                        cur.set(y);
                    }
                }
                up_left
            }
        };
        let later = self.later_cover[v];
        let down = if a > 0 && self.anchor_is_fixed() {
            self.down_cover
        } else {
            Bits::EMPTY
        };
        if !free.and_not(cur.or(later).or(down)).is_empty() {
            return false;
        }
        if free.and(cur).and_not(later.or(down)).count() as usize > cur_len
            || free.and(down).and_not(later.or(cur)).count() as usize > a
        {
            return false;
        }
        let down_left = a; // numbers 0..a-1
        let mut heads = Bits::EMPTY;
        if up_left > 0 {
            heads.set(x);
        }
        if down_left > 0 {
            heads.set(p);
        }
        let open_walks = u32::from(up_left > 0) + u32::from(down_left > 0);
        let (ends, isolated) = self.dead_ends(heads);
        if isolated || ends > open_walks {
            return false;
        }
        let f = if up_left > 0 {
            self.flood(self.geo.nmask[x], free)
        } else {
            Bits::EMPTY
        };
        let b = if down_left > 0 {
            self.flood(self.geo.nmask[p], free)
        } else {
            Bits::EMPTY
        };
        if f.or(b) != free {
            return false; // a pocket neither walk can reach
        }
        if up_left > 0 && f.is_empty() || down_left > 0 && b.is_empty() {
            return false;
        }
        if f.intersects(&b) {
            return true; // one component shared by both walks
        }
        // Two components: each walk fills its own exactly; pinned numbers left are all above v.
        f.count() as usize == up_left
            && b.count() as usize == down_left
            && self.pinned_cells.and(free).and_not(f).is_empty()
    }

    /// After placing number v at x on the downward walk (numbers 0..v-1 left, none pinned).
    fn feasible_down(&self, x: usize) -> bool {
        let free = self.free;
        if free.is_empty() {
            return true;
        }
        let (ends, isolated) = self.dead_ends(Bits::single(x));
        if isolated || ends > 1 {
            return false;
        }
        self.flood(self.geo.nmask[x], free) == free
    }
}
