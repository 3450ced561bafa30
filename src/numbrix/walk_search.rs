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
    /// The stretches after each pinned number, in increasing order: (the pinned number, its
    /// reach `seg_cover`, the last number of the stretch).
    stretches: Vec<(usize, Bits, usize)>,
    /// Cells of chessboard colour 0.
    colour0: Bits,
    pub nodes: u64,
    pub node_cap: u64,
    pub cap: u64,
    pub answers: Vec<Vec<u32>>,
    /// Tie-break of the next-cell order among cells with as many free neighbours (0: by cell
    /// index); restarts use other values to explore other subtrees first.
    tie: u64,
    /// Row and column of each cell (the hot loops make no divisions).
    rc: Vec<(u16, u16)>,
    /// Cells with a neighbour on their left / right (for the bit-parallel neighbour counts).
    has_left: Bits,
    has_right: Bits,
}

impl<'a> Walk<'a> {
    pub fn new(geo: &'a Geometry, cand: &[Bits], cap: u64, node_cap: u64) -> Walk<'a> {
        Walk::with_order(geo, cand, cap, node_cap, false, 0)
    }

    /// [`Walk::new`] walking from the other end when `flip` (the reversed numbering when the
    /// default walks the given one, and back), with tie-break `tie` in the next-cell order. Both
    /// only change the order in which the same tree is explored, not which answers it holds.
    pub fn with_order(
        geo: &'a Geometry,
        cand: &[Bits],
        cap: u64,
        node_cap: u64,
        flip: bool,
        tie: u64,
    ) -> Walk<'a> {
        let n = geo.n;
        let single = |b: &Bits| (b.count() == 1).then(|| b.min().unwrap());
        let lo = cand.iter().filter_map(single).min();
        let hi = cand.iter().filter_map(single).max();
        let mirror = matches!((lo, hi), (Some(a), Some(b)) if n - 1 - b < a) != flip;
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
        let mut stretches = Vec::new();
        for v in 0..n {
            if pinned[v].is_some() {
                let last = next_pinned[v].map_or(n - 1, |(w, _)| w - 1);
                stretches.push((v, seg_cover[v], last));
            }
        }
        let mut colour0 = Bits::EMPTY;
        for c in 0..n {
            if geo.colour(c) == 0 {
                colour0.set(c);
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
            stretches,
            colour0,
            nodes: 0,
            node_cap,
            cap,
            answers: Vec::new(),
            tie,
            rc: (0..n)
                .map(|c| ((c / geo.cols) as u16, (c % geo.cols) as u16))
                .collect(),
            has_left: (0..n)
                .filter(|&c| c % geo.cols > 0)
                .fold(Bits::EMPTY, |mut b, c| {
                    b.set(c);
                    b
                }),
            has_right: (0..n).filter(|&c| c % geo.cols + 1 < geo.cols).fold(
                Bits::EMPTY,
                |mut b, c| {
                    b.set(c);
                    b
                },
            ),
        }
    }

    #[inline]
    fn d(&self, a: usize, b: usize) -> usize {
        let ((ra, ca), (rb, cb)) = (self.rc[a], self.rc[b]);
        (ra.abs_diff(rb) + ca.abs_diff(cb)) as usize
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
    /// how soon answers are met, not which are counted. Odd restarts (`tie` odd) use a plain
    /// shuffled order instead.
    fn ordered(&self, x: usize, v: usize) -> Vec<usize> {
        let mut c: Vec<(u32, u64, usize)> = self.geo.nbrs[x]
            .iter()
            .copied()
            .filter(|&y| self.admits(v, y))
            .map(|y| {
                // Odd tie-breaks drop the free-neighbour count: a plain shuffled order.
                let deg = if self.tie & 1 == 1 {
                    0
                } else {
                    self.geo.nmask[y].and(self.free).count()
                };
                (deg, self.tie_key(y), y)
            })
            .collect();
        c.sort_unstable();
        c.into_iter().map(|(_, _, y)| y).collect()
    }

    /// The tie-break key of cell `y`: its index for tie 0, else a fixed mix of (tie, y).
    fn tie_key(&self, y: usize) -> u64 {
        if self.tie == 0 {
            return y as u64;
        }
        let mut z = self.tie.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ y as u64;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
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
    /// whether one has none at all, or is a pinned number that is not an end of the path
    /// (such a cell needs a neighbour on each side), or a blank cell whose colour no free end
    /// of the path has (`end_colours`: bit k set when a blank end of colour k is still open).
    fn dead_ends(&self, heads: Bits, end_colours: u8) -> (u32, bool) {
        let open = self.free.or(heads);
        let n = self.n;
        let cols = self.geo.cols;
        let all = Bits::first(n);
        // Per cell, whether its neighbour in each direction is open: bit-parallel counts.
        let up = open.shift_down(cols).and(all); // the cell above c is open
        let down = open.shift_up(cols).and(all);
        let left = open.shift_up(1).and(self.has_left);
        let right = open.shift_down(1).and(self.has_right);
        let any = up.or(down).or(left).or(right);
        let two = up
            .and(down)
            .or(up.and(left))
            .or(up.and(right))
            .or(down.and(left))
            .or(down.and(right))
            .or(left.and(right));
        if !self.free.and_not(any).is_empty() {
            return (0, true);
        }
        let dead = self.free.and_not(two);
        let mut ends = 0;
        for c in dead.iter() {
            if self.pinned_cells.has(c) {
                if self.pinned[self.n - 1] != Some(c) && self.pinned[0] != Some(c) {
                    return (ends, true);
                }
            } else if end_colours >> self.geo.colour(c) & 1 == 0 {
                return (ends, true);
            }
            ends += 1
        }
        (ends, false)
    }

    /// The colours a blank cell may have to end the path (bit k: colour k): the upward walk's
    /// last number when it is not pinned, and number 0 when the downward walk is still open.
    fn end_colours(&self, up_open: bool, down_open: bool) -> u8 {
        let (a, p) = self.anchor.expect("an anchor is set while walking");
        let colour_of = |u: usize| (self.geo.colour(p) + a + u) & 1;
        let mut m = 0u8;
        if up_open && self.pinned[self.n - 1].is_none() {
            m |= 1 << colour_of(self.n - 1);
        }
        if down_open && self.pinned[0].is_none() {
            m |= 1 << colour_of(0);
        }
        m
    }

    /// Whether the anchor is a pinned number (its cover was precomputed), not a trial start.
    fn anchor_is_fixed(&self) -> bool {
        self.anchor.is_some_and(|(a, p)| self.pinned[a] == Some(p))
    }

    /// After placing number v at x on the upward walk.
    fn feasible_up(&self, v: usize, x: usize) -> bool {
        if let Some((w, cy)) = self.next_pinned[v]
            && self.d(x, cy) > w - v
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
                    if self.d(x, y) + self.d(y, cy) <= w - v {
                        cur.set(y);
                    }
                }
                w - v - 1
            }
            None => {
                for y in free.iter() {
                    if self.d(x, y) <= up_left {
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
        if !self.stretches_can_share(v, x, cur, down) {
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
        let (ends, isolated) = self.dead_ends(heads, self.end_colours(up_left > 0, down_left > 0));
        if isolated || ends > open_walks {
            return false;
        }
        let f = if up_left > 0 {
            self.flood(self.geo.nmask[x], free)
        } else {
            Bits::EMPTY
        };
        let b = if down_left == 0 {
            Bits::EMPTY
        } else if self.geo.nmask[p].intersects(&f)
            && self.geo.nmask[p].and(free).and_not(f).is_empty()
        {
            // Every free neighbour of the anchor lies in the head's flood: the anchor's flood is
            // a part of it, and the tests below answer as they would with it.
            f
        } else {
            self.flood(self.geo.nmask[p], free)
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

    /// The stretches still to walk must share the free blank cells out: each such cell takes a
    /// number of one stretch that reaches it, of its own chessboard colour, and each stretch
    /// takes exactly as many cells of each colour as it has numbers of that colour. Checked as
    /// Hall's condition on every run of consecutive stretches (downward walk, current stretch,
    /// later ones, in number order): the cells that only the run reaches, colour by colour, are
    /// at most the run's numbers of that colour.
    fn stretches_can_share(&self, v: usize, x: usize, cur: Bits, down: Bits) -> bool {
        let (a, p) = self.anchor.expect("an anchor is set while walking");
        // Number u sits on a cell of colour 0 iff u ≡ par (mod 2) (the parity law from the anchor).
        let par = (a + self.geo.colour(p)) & 1;
        let colour0_numbers = |lo: usize, hi: usize| -> u32 {
            if lo > hi {
                return 0;
            }
            let first = if lo & 1 == par { lo } else { lo + 1 };
            if first > hi {
                0
            } else {
                ((hi - first) / 2 + 1) as u32
            }
        };
        let _ = x;
        // (reach, numbers of colour 0, numbers of colour 1)
        let mut runs: Vec<(Bits, u32, u32)> = Vec::with_capacity(self.stretches.len() + 2);
        let mut push = |cover: Bits, lo: usize, hi: usize| {
            if lo <= hi {
                let c0 = colour0_numbers(lo, hi);
                runs.push((cover, c0, (hi + 1 - lo) as u32 - c0));
            }
        };
        if !down.is_empty() && a > 0 {
            push(down, 0, a - 1);
        }
        let cur_last = self.next_pinned[v].map_or(self.n - 1, |(w, _)| w - 1);
        push(cur, v + 1, cur_last);
        let from = self.stretches.partition_point(|s| s.0 <= v);
        for &(w, cover, last) in &self.stretches[from..] {
            push(cover, w + 1, last);
        }
        let m = runs.len();
        let blank = self.free.and_not(self.pinned_cells);
        let b0 = blank.and(self.colour0);
        let b1 = blank.and_not(self.colour0);
        // prefix[i] = union of runs[..i]; suffix[j] = union of runs[j..].
        let mut prefix = vec![Bits::EMPTY; m + 1];
        let mut suffix = vec![Bits::EMPTY; m + 1];
        for i in 0..m {
            prefix[i + 1] = prefix[i].or(runs[i].0);
        }
        for j in (0..m).rev() {
            suffix[j] = suffix[j + 1].or(runs[j].0);
        }
        for i in 0..m {
            let (mut c0, mut c1) = (0u32, 0u32);
            for j in i..m {
                c0 += runs[j].1;
                c1 += runs[j].2;
                let outside = prefix[i].or(suffix[j + 1]);
                if b0.and_not(outside).count() > c0 || b1.and_not(outside).count() > c1 {
                    return false;
                }
            }
        }
        true
    }

    /// After placing number v at x on the downward walk (numbers 0..v-1 left, none pinned).
    fn feasible_down(&self, x: usize) -> bool {
        let free = self.free;
        if free.is_empty() {
            return true;
        }
        let (ends, isolated) = self.dead_ends(Bits::single(x), self.end_colours(false, true));
        if isolated || ends > 1 {
            return false;
        }
        self.flood(self.geo.nmask[x], free) == free
    }
}

#[cfg(test)]
mod tests {
    use crate::numbrix::census::walk::count_solutions;
    use crate::numbrix::generate::board_of;
    use crate::numbrix::ladder::{Ctx, Rungs};
    use crate::numbrix::path;
    use crate::numbrix::search::{Count, Limits, count_in};
    use crate::numbrix::second;
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// A random reveal of `k` numbers of a sampled rows×cols answer.
    fn reveal(rows: usize, cols: usize, k: usize, seed: u64) -> crate::numbrix::board::Board {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let ans = path::random_answer(rows, cols, 16, &mut rng);
        let mut order: Vec<usize> = (0..ans.len()).collect();
        order.shuffle(&mut rng);
        let mut mask = vec![false; ans.len()];
        for &c in &order[..k] {
            mask[c] = true;
        }
        board_of(&Ctx::new(rows, cols), &ans, &mask)
    }

    /// Node and time profile of the sparse decision (run by hand with `--ignored --nocapture`;
    /// SPARSE_PROFILE="size boards" picks the size and the board count).
    #[test]
    #[ignore]
    fn sparse_profile() {
        let spec = std::env::var("SPARSE_PROFILE").unwrap_or_else(|_| "10 50".into());
        let mut it = spec.split_whitespace().map(|x| x.parse::<usize>().unwrap());
        let (s, boards) = (it.next().unwrap(), it.next().unwrap());
        let ctx = Ctx::new(s, s);
        for f in [1.0, 0.75, 0.5] {
            let k = ((s * s) as f64 * 0.15 * f).round() as usize;
            let mut times = Vec::new();
            let mut nodes = Vec::new();
            let mut unknown = 0;
            for t in 0..boards as u64 {
                let b = reveal(s, s, k, 7_000 + t);
                if std::env::var("SPARSE_FIRST").is_ok() {
                    let t0 = std::time::Instant::now();
                    let lim = Limits {
                        cap: 1,
                        ..Limits::default()
                    };
                    let v1 = count_in(&ctx, &b, Rungs::DECIDE, lim);
                    times.push(t0.elapsed().as_secs_f64() * 1e3);
                    nodes.push(v1.nodes);
                    continue;
                }
                if std::env::var("SPARSE_PHASES").is_ok() {
                    let t0 = std::time::Instant::now();
                    let lim = Limits {
                        cap: 1,
                        ..Limits::default()
                    };
                    let v1 = count_in(&ctx, &b, Rungs::DECIDE, lim);
                    let t1 = t0.elapsed().as_secs_f64() * 1e3;
                    let loc = v1.answers.first().map(|a| {
                        second::second_answer(&ctx.geo, &b, a, 50_000)
                            .second
                            .is_some()
                    });
                    let t2 = t0.elapsed().as_secs_f64() * 1e3;
                    let v = count_in(&ctx, &b, Rungs::DECIDE, Limits::default());
                    eprintln!(
                        "  first {:?} {} nodes {t1:.2} ms; local {loc:?} {:.2} ms; full {:?} {} nodes",
                        v1.count,
                        v1.nodes,
                        t2 - t1,
                        v.count,
                        v.nodes
                    );
                }
                let t0 = std::time::Instant::now();
                let v = count_in(&ctx, &b, Rungs::DECIDE, Limits::default());
                times.push(t0.elapsed().as_secs_f64() * 1e3);
                nodes.push(v.nodes);
                if matches!(v.count, Count::Unknown { .. }) {
                    unknown += 1;
                    if std::env::var("SPARSE_RAW").is_ok() {
                        let t1 = std::time::Instant::now();
                        let raw = count_solutions(s, s, &b.givens, 2);
                        eprintln!("unknown; raw engine {raw} in {:?}", t1.elapsed());
                    }
                }
            }
            times.sort_by(f64::total_cmp);
            nodes.sort_unstable();
            let q = |p: f64| ((boards - 1) as f64 * p) as usize;
            eprintln!(
                "{s}x{s} f={f}: ms median {:.2} p90 {:.2} max {:.2}; nodes median {} p90 {} max {}; unknown {unknown}",
                times[q(0.5)],
                times[q(0.9)],
                times[boards - 1],
                nodes[q(0.5)],
                nodes[q(0.9)],
                nodes[boards - 1]
            );
        }
    }

    /// The walk search (with its restarts) and the raw walk engine of the census (which shares
    /// no code with it) give the same count, capped at 6, on 400 random reveals of 4×4–7×7
    /// boards from 0 printed numbers to a third of the cells.
    #[test]
    fn walk_search_agrees_with_raw_engine_on_small_boards() {
        let mut checked = 0;
        let mut seen = [0usize; 3]; // boards with 0, 1, 2+ answers
        for (rows, cols) in [
            (4, 4),
            (4, 5),
            (5, 5),
            (4, 6),
            (5, 6),
            (6, 6),
            (6, 7),
            (7, 7),
        ] {
            let n = rows * cols;
            let ctx = Ctx::new(rows, cols);
            for t in 0..50u64 {
                let k = [0, 1, 2, 3, n / 10, n / 8, n / 6, n / 5, n / 4, n / 3][t as usize % 10];
                let b = reveal(rows, cols, k, 31 * n as u64 + t);
                let lim = Limits {
                    cap: 6,
                    node_cap: 5_000_000,
                };
                let w = count_in(&ctx, &b, Rungs::DECIDE, lim);
                let wc = match w.count {
                    Count::Exact(k) | Count::AtLeast(k) => k,
                    Count::Unknown { .. } => panic!("unknown on {rows}x{cols}\n{}", b.format()),
                };
                let raw = count_solutions(rows, cols, &b.givens, 6);
                assert_eq!(wc, raw, "{rows}x{cols}\n{}", b.format());
                assert_eq!(w.answers.len() as u64, wc);
                for (i, a) in w.answers.iter().enumerate() {
                    assert!(b.is_answer(a));
                    assert!(!w.answers[..i].contains(a), "an answer counted twice");
                }
                seen[(wc as usize).min(2)] += 1;
                checked += 1;
            }
        }
        assert_eq!(checked, 400);
        // Reveals of an answer always have one; both unique and ambiguous boards are met.
        assert_eq!(seen[0], 0);
        assert!(seen[1] > 20 && seen[2] > 20, "{seen:?}");
    }

    /// The decision at cap 2 (first answer, second answer next to it, else the walk again)
    /// agrees with the raw walk engine on 480 random reveals of 4×4–8×8 boards from 0 printed
    /// numbers to a third of the cells; every "2+" carries two distinct answers of the board,
    /// every "1" its answer.
    #[test]
    fn decision_at_cap_two_agrees_with_raw_engine() {
        let mut seen = [0usize; 3];
        let mut local = 0;
        for (rows, cols) in [
            (4, 4),
            (4, 5),
            (5, 5),
            (5, 6),
            (6, 6),
            (6, 7),
            (7, 7),
            (8, 8),
        ] {
            let n = rows * cols;
            let ctx = Ctx::new(rows, cols);
            for t in 0..60u64 {
                let k = [0, 1, 2, 3, n / 10, n / 8, n / 6, n / 5, n / 4, n / 3][t as usize % 10];
                let b = reveal(rows, cols, k, 977 * n as u64 + t);
                let v = count_in(&ctx, &b, Rungs::DECIDE, Limits::default());
                let raw = count_solutions(rows, cols, &b.givens, 2);
                let got = match v.count {
                    Count::Exact(1) => 1,
                    Count::AtLeast(2) => 2,
                    other => panic!("{other:?} on {rows}x{cols}\n{}", b.format()),
                };
                assert_eq!(got, raw, "{rows}x{cols}\n{}", b.format());
                assert_eq!(v.answers.len() as u64, got);
                for a in &v.answers {
                    assert!(b.is_answer(a));
                }
                if got == 2 {
                    assert_ne!(v.answers[0], v.answers[1]);
                    // Second answers read next to the first (no walk needed for them).
                    let g = b.geometry();
                    if second::second_answer(&g, &b, &v.answers[0], 50_000)
                        .second
                        .is_some()
                    {
                        local += 1;
                    }
                }
                seen[got as usize] += 1;
            }
        }
        assert!(seen[1] > 20 && seen[2] > 200, "{seen:?}");
        assert!(local > 0);
    }

    /// Every second answer the local scan returns, from any answer of a random reveal, is an
    /// answer of the board other than the first, and exists only where the raw walk engine
    /// counts two or more.
    #[test]
    fn local_second_answers_are_valid_and_distinct() {
        let mut hits = 0;
        for (rows, cols) in [(4, 4), (5, 5), (5, 6), (6, 6), (7, 7)] {
            let n = rows * cols;
            let ctx = Ctx::new(rows, cols);
            for t in 0..60u64 {
                let k = [
                    1,
                    2,
                    n / 10,
                    n / 8,
                    n / 6,
                    n / 5,
                    n / 4,
                    n / 3,
                    n / 2,
                    2 * n / 3,
                ][t as usize % 10];
                let b = reveal(rows, cols, k, 4_099 * n as u64 + t);
                let v = count_in(
                    &ctx,
                    &b,
                    Rungs::DECIDE,
                    Limits {
                        cap: 1,
                        node_cap: 5_000_000,
                    },
                );
                let a = &v.answers[0];
                let g = b.geometry();
                let raw = count_solutions(rows, cols, &b.givens, 2);
                if let Some(s) = second::second_answer(&g, &b, a, 1_000_000).second {
                    assert!(b.is_answer(&s) && &s != a, "{rows}x{cols}\n{}", b.format());
                    assert_eq!(raw, 2, "{rows}x{cols}\n{}", b.format());
                    hits += 1;
                }
            }
        }
        assert!(hits > 100, "{hits}");
    }
}
