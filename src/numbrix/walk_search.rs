//! The search that decides sparse boards: the path is walked number by number from the smallest
//! pinned number up to N, then from it down to 1, one cell per node, with these prunings:
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
//! * **candidates**: a number only goes where the ladder's fixpoint at the root left it;
//! * **the ladder check** ([`super::ladder_check`]): every eighth placement the ladder's search
//!   rungs are climbed on the walk's state; a dead state is left, and a live one's fixpoint
//!   narrows the candidates until the next check.
//!
//! This is the method of the write-up's raw walk engine, written again here (it shares no code
//! with `census/walk.rs`, which cross-checks it), on top of the ladder's root deductions.

use super::bits::Bits;
use super::board::Geometry;
use super::degrees::Degrees;
use super::ladder_check::LadderCheck;

/// (row, column) of every cell, row-major.
fn row_col(geo: &Geometry) -> Vec<(u16, u16)> {
    (0..geo.n)
        .map(|c| ((c / geo.cols) as u16, (c % geo.cols) as u16))
        .collect()
}

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
    /// The placements since the root, (number, cell), for the ladder check.
    trail: Vec<(usize, usize)>,
    /// The ladder check (None: switched off).
    pub ladder: Option<LadderCheck>,
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
            rc: row_col(geo),
            has_left: (0..n).filter(|&c| c % geo.cols > 0).collect(),
            has_right: (0..n).filter(|&c| c % geo.cols + 1 < geo.cols).collect(),
            trail: Vec::with_capacity(n),
            ladder: Some(LadderCheck::new(geo, &cand)),
            cand,
        }
    }

    /// Switch the ladder check ([`super::ladder_check`]) off or on (on by default).
    pub fn with_ladder(mut self, on: bool) -> Self {
        self.ladder = on.then(|| LadderCheck::new(self.geo, &self.cand));
        self
    }

    /// The ladder check after a placement.
    fn ladder_ok(&mut self) -> bool {
        match &mut self.ladder {
            Some(l) => l.live(&self.trail, |&p| p),
            None => true,
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
        self.trail.push((v, c));
    }

    fn unplace(&mut self, v: usize, c: usize) {
        self.cell_of[v] = usize::MAX;
        self.free.set(c);
        self.trail.pop();
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
            if self.feasible_up(v + 1, y) && self.ladder_ok() {
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
            if self.feasible_down(y) && self.ladder_ok() {
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
        let ladder_cv = self
            .ladder
            .as_ref()
            .and_then(|l| l.cands(&self.trail, |&p| p));
        let mut c: Vec<(u32, u64, usize)> = self.geo.nbrs[x]
            .iter()
            .copied()
            .filter(|&y| self.admits(v, y) && ladder_cv.is_none_or(|cv| cv[y].has(v)))
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

/// The first-answer search: the runs of the path between consecutive pinned numbers are filled
/// one at a time, the run with the least Manhattan slack ((w−u) − d(u, w) for pinned u < w)
/// first, the free runs before the first and after the last pinned number last. Each run is
/// walked from one of its ends, one number per node, with these prunings after every step:
///
/// * the run being walked still reaches its far end (distance and chessboard parity);
/// * every placed number whose neighbouring number is still unplaced has a free neighbour for
///   each (its "ports");
/// * a free cell with fewer than two neighbours among free cells and ports can only be a free
///   end of the path (number 1 or N, unplaced, of the right colour);
/// * every free component is filled by whole runs: each run still open must have both its ends
///   next to one component, and the runs that can only go to a component fit in it while the
///   runs that can go there are enough to fill it;
/// * every free cell is within reach of an open run, and no run is the only reach of more cells
///   of a colour than it has numbers of that colour.
///
/// And the ladder check ([`super::ladder_check`]): every eighth placement the ladder's search
/// rungs are climbed on the state; a dead one is left at once.
///
/// Its only use is to meet *an* answer fast (the order is free to be heuristic): the decision
/// checks the answer on the board, and every count it reports (0, 1) comes from the exhaustive
/// [`Walk`].
pub struct RunFill<'a> {
    geo: &'a Geometry,
    n: usize,
    cand: &'a [Bits],
    /// Cell of each number (0-based), or `usize::MAX`.
    pos: Vec<usize>,
    /// Number of each cell, or `usize::MAX`.
    num: Vec<usize>,
    free: Bits,
    /// Cells of placed numbers with an unplaced neighbouring number.
    ports: Bits,
    /// The runs: the placed numbers bounding each (None at a free path end).
    runs: Vec<(Option<usize>, Option<usize>)>,
    /// Run indices in filling order.
    order: Vec<usize>,
    /// Walk the run upward from its lower end (else downward from its upper end).
    up: Vec<bool>,
    /// Each run's reach (recomputed when its ends move).
    reach: Vec<Bits>,
    colour0: Bits,
    /// Colour of number 0 (the parity law from any pinned number).
    colour_of_0: usize,
    rc: Vec<(u16, u16)>,
    has_left: Bits,
    has_right: Bits,
    tie: u64,
    pub nodes: u64,
    pub node_cap: u64,
    pub answer: Option<Vec<u32>>,
    /// The ladder check (None: switched off).
    pub ladder: Option<LadderCheck>,
    /// The degree test (None: switched off).
    degrees: Option<Degrees>,
    /// Per port: its degree in the test and the free neighbours that may take its numbers.
    deg_nb: Vec<Bits>,
    deg_need: Vec<u8>,
    /// Split the search when the free cells fall apart (see [`RunFill::dfs`]).
    split: bool,
    /// The cells that are candidates for the first and for the last number.
    cand_end: [Bits; 2],
    /// After the last feasible state: the free cells' components (when more than one) and the
    /// component each open run must go whole into (usize::MAX: more than one is possible).
    comps: Vec<Bits>,
    run_comp: Vec<usize>,
    /// Placements since the root (number, cell, run, walked up, run ends before, reach before).
    trail: Vec<Placed>,
}

/// The degree test's demands in a run filling's state: free cells take two edges, ports one
/// per unplaced neighbouring number, on the free cells that are candidates for it.
struct FillDemands<'a> {
    free: Bits,
    ports: Bits,
    port_need: &'a [u8],
    port_ok: &'a [Bits],
    slots: [(u8, Bits); 2],
    sides: [usize; 2],
}

impl super::degrees::Demands for FillDemands<'_> {
    #[inline]
    fn need(&self, a: usize) -> u8 {
        if self.free.has(a) {
            2
        } else if self.ports.has(a) {
            self.port_need[a]
        } else {
            0
        }
    }
    #[inline]
    fn edge(&self, a: usize, b: usize) -> bool {
        match (self.free.has(a), self.free.has(b)) {
            (true, true) => true,
            (true, false) => self.ports.has(b) && self.port_ok[b].has(a),
            (false, true) => self.ports.has(a) && self.port_ok[a].has(b),
            (false, false) => false,
        }
    }
    fn slots(&self) -> [(u8, Bits); 2] {
        self.slots
    }
    fn sides(&self) -> [usize; 2] {
        self.sides
    }
}

/// One placement of the run filling, enough to undo it.
#[derive(Clone, Copy)]
struct Placed {
    v: usize,
    y: usize,
    r: usize,
    ends: (Option<usize>, Option<usize>),
    reach: Bits,
}

impl<'a> RunFill<'a> {
    /// None when the root candidates pin no number (a blank board: the plain [`Walk`] takes it)
    /// or pin two cells to one number. `tie` varies the run directions, the order among runs of
    /// equal slack and the next-cell order; 0 is the plain heuristic order.
    pub fn new(geo: &'a Geometry, cand: &'a [Bits], node_cap: u64, tie: u64) -> Option<Self> {
        let n = geo.n;
        let mut pos = vec![usize::MAX; n];
        let mut free = Bits::first(n);
        for (c, b) in cand.iter().enumerate() {
            if b.count() == 1 {
                let v = b.min().unwrap();
                if pos[v] != usize::MAX {
                    return None;
                }
                pos[v] = c;
                free.clear(c);
            }
        }
        let pinned: Vec<usize> = (0..n).filter(|&v| pos[v] != usize::MAX).collect();
        let &first = pinned.first()?;
        let colour_of_0 = (geo.colour(pos[first]) + first) & 1;
        let mut runs = Vec::new();
        if first > 0 {
            runs.push((None, Some(first)));
        }
        for w in pinned.windows(2) {
            if w[1] > w[0] + 1 {
                runs.push((Some(w[0]), Some(w[1])));
            } else if !geo.adjacent(pos[w[0]], pos[w[1]]) {
                return None;
            }
        }
        let &last = pinned.last().unwrap();
        if last + 1 < n {
            runs.push((Some(last), None));
        }
        let mut num = vec![usize::MAX; n];
        for (v, &c) in pos.iter().enumerate() {
            if c != usize::MAX {
                num[c] = v;
            }
        }
        let mut f = RunFill {
            geo,
            n,
            cand,
            pos,
            num,
            free,
            ports: Bits::EMPTY,
            up: vec![true; runs.len()],
            reach: vec![Bits::EMPTY; runs.len()],
            order: Vec::new(),
            runs,
            colour0: (0..n).filter(|&c| geo.colour(c) == 0).collect(),
            colour_of_0,
            rc: row_col(geo),
            has_left: (0..n).filter(|&c| c % geo.cols > 0).collect(),
            has_right: (0..n).filter(|&c| c % geo.cols + 1 < geo.cols).collect(),
            tie,
            nodes: 0,
            node_cap,
            answer: None,
            ladder: Some(LadderCheck::new(geo, cand)),
            degrees: Some(Degrees::new(geo)),
            deg_nb: vec![Bits::EMPTY; n],
            deg_need: vec![0; n],
            split: true,
            cand_end: [
                (0..n).filter(|&c| cand[c].has(0)).collect(),
                (0..n).filter(|&c| cand[c].has(n - 1)).collect(),
            ],
            comps: Vec::new(),
            run_comp: Vec::new(),
            trail: Vec::new(),
        };
        f.run_comp = vec![usize::MAX; f.runs.len()];
        for &v in &pinned {
            f.update_port(v);
        }
        // Filling order: interior runs by slack, then the free end runs (shorter first).
        let mut keyed: Vec<(usize, u64, usize)> = (0..f.runs.len())
            .map(|r| {
                let slack = match f.runs[r] {
                    (Some(u), Some(w)) => (w - u).saturating_sub(f.d(f.pos[u], f.pos[w])),
                    _ => n + f.len(r),
                };
                (slack, f.mix(r as u64 + 1), r)
            })
            .collect();
        keyed.sort_unstable();
        f.order = keyed.into_iter().map(|k| k.2).collect();
        for r in 0..f.runs.len() {
            f.up[r] = match f.runs[r] {
                (None, _) => false,
                (_, None) => true,
                (Some(u), Some(w)) => {
                    if tie == 0 {
                        let du = f.geo.nmask[f.pos[u]].and(f.free).count();
                        let dw = f.geo.nmask[f.pos[w]].and(f.free).count();
                        du <= dw
                    } else {
                        f.mix(1_000 + r as u64) & 1 == 0
                    }
                }
            };
            f.reach[r] = f.reach_of(r);
        }
        Some(f)
    }

    /// Switch the ladder check ([`super::ladder_check`]) off or on (on by default).
    pub fn with_ladder(mut self, on: bool) -> Self {
        if !on {
            self.ladder = None;
        }
        self
    }

    /// Switch the degree test and the split into independent components off or on (both on by
    /// default; for measuring what each is worth).
    pub fn with_checks(mut self, degrees: bool, split: bool) -> Self {
        if !degrees {
            self.degrees = None;
        }
        self.split = split;
        self
    }

    #[inline]
    fn d(&self, a: usize, b: usize) -> usize {
        let ((ra, ca), (rb, cb)) = (self.rc[a], self.rc[b]);
        (ra.abs_diff(rb) + ca.abs_diff(cb)) as usize
    }

    /// A fixed mix of (tie, x); x itself for tie 0.
    fn mix(&self, x: u64) -> u64 {
        if self.tie == 0 {
            return x;
        }
        let mut z = self.tie.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Numbers still unplaced in run r.
    fn len(&self, r: usize) -> usize {
        let (lo, hi) = self.runs[r];
        hi.unwrap_or(self.n) - lo.map_or(0, |u| u + 1)
    }

    /// The cells run r can still reach (free or not).
    fn reach_of(&self, r: usize) -> Bits {
        // Distances walked through free cells: balls around the placed ends.
        let free = self.free;
        let balls = |c: usize, k: usize| -> Vec<Bits> {
            let mut v = Vec::with_capacity(k + 1);
            v.push(Bits::single(c));
            for i in 1..=k {
                let prev = v[i - 1];
                let next = prev.or(self.geo.dilate(prev).and(free));
                v.push(next);
            }
            v
        };
        match self.runs[r] {
            (Some(u), Some(w)) => {
                let span = w - u; // steps from the cell of u to the cell of w
                let a = balls(self.pos[u], span - 1);
                let b = balls(self.pos[w], span - 1);
                let mut reach = Bits::EMPTY;
                for i in 1..span {
                    let shell = a[i].and_not(a[i - 1]);
                    reach = reach.or(shell.and(b[span - i]));
                }
                reach.and(free)
            }
            (Some(u), None) => {
                let k = self.n - 1 - u;
                let mut s = Bits::single(self.pos[u]);
                for _ in 0..k {
                    let t = s.or(self.geo.dilate(s).and(free));
                    if t == s {
                        break;
                    }
                    s = t;
                }
                s.and(free)
            }
            (None, Some(w)) => {
                let mut s = Bits::single(self.pos[w]);
                for _ in 0..w {
                    let t = s.or(self.geo.dilate(s).and(free));
                    if t == s {
                        break;
                    }
                    s = t;
                }
                s.and(free)
            }
            (None, None) => unreachable!("a run has a placed end"),
        }
    }

    /// Whether number v is placed and misses a neighbouring number: keep `ports` in step.
    fn update_port(&mut self, v: usize) {
        let c = self.pos[v];
        if c == usize::MAX {
            return;
        }
        let missing = (v > 0 && self.pos[v - 1] == usize::MAX)
            || (v + 1 < self.n && self.pos[v + 1] == usize::MAX);
        if missing {
            self.ports.set(c);
        } else {
            self.ports.clear(c);
        }
    }

    fn set_ports_around(&mut self, v: usize) {
        if v > 0 {
            self.update_port(v - 1);
        }
        self.update_port(v);
        if v + 1 < self.n {
            self.update_port(v + 1);
        }
    }

    /// Look for an answer: Ok(true) found (in `answer`), Ok(false) none in the tree.
    pub fn run(&mut self) -> Result<bool, WalkStop> {
        if !self.feasible(usize::MAX) {
            return Ok(false);
        }
        let all = self.order.clone();
        self.dfs(&all)
    }

    /// The cells next to the end of run r walked upward (`up`) or downward that may take its
    /// next number: free, a candidate for it, and still within reach of the far end.
    fn steps(&self, r: usize, up: bool, exact2: Bits, out: &mut Vec<(u32, u64, usize)>) -> usize {
        let (lo, hi) = self.runs[r];
        let (v, x, far) = if up {
            let u = lo.unwrap();
            (u + 1, self.pos[u], hi.map(|w| (w - u - 1, self.pos[w])))
        } else {
            let w = hi.unwrap();
            (w - 1, self.pos[w], lo.map(|u| (w - u - 1, self.pos[u])))
        };
        out.clear();
        // The candidates of the ladder's last fixpoint on this trail, when it has one.
        let ladder_cv = self
            .ladder
            .as_ref()
            .and_then(|l| l.cands(&self.trail, |p| (p.v, p.y)));
        for &y in &self.geo.nbrs[x] {
            if !self.free.has(y) || !self.cand[y].has(v) {
                continue;
            }
            if ladder_cv.is_some_and(|cv| !cv[y].has(v)) {
                continue;
            }
            if let Some((k, z)) = far {
                let d = self.d(y, z);
                if d > k || (k - d) & 1 == 1 {
                    continue;
                }
            }
            if exact2.has(y) && self.num[x] != usize::MAX {
                let w = self.num[x];
                let need = usize::from(w > 0 && self.pos[w - 1] == usize::MAX)
                    + usize::from(w + 1 < self.n && self.pos[w + 1] == usize::MAX);
                if need == 1 {
                    // y must be next to x on the path: the only step.
                    out.clear();
                    out.push((0, 0, y));
                    return v;
                }
            }
            // Fewest free neighbours first (Warnsdorff); odd restarts a plain shuffled order.
            let deg = if self.tie & 1 == 1 {
                0
            } else {
                self.geo.nmask[y].and(self.free).count()
            };
            out.push((deg, self.mix(((v as u64) << 16) | y as u64), y));
        }
        v
    }

    /// Fill the runs of `active` (in filling order); Ok(true) when they are all complete (the
    /// answer is recorded once every run is), Ok(false) when no filling of them exists in this
    /// state. On Ok(true) the placements stay (on the trail); on Ok(false) the state is as it
    /// was.
    ///
    /// When the free cells have fallen apart into components and each open run of `active` must
    /// go whole into one of them, the components are independent: each one's runs are filled
    /// on their own, smallest component first, and if one has no filling the whole state has
    /// none (no other filling of the components before it can help, so the search does not
    /// go back into them).
    fn dfs(&mut self, active: &[usize]) -> Result<bool, WalkStop> {
        if active.iter().all(|&r| self.len(r) == 0) {
            if (0..self.runs.len()).all(|r| self.len(r) == 0) {
                let mut vals = vec![0u32; self.n];
                for (v, &c) in self.pos.iter().enumerate() {
                    vals[c] = v as u32 + 1;
                }
                self.answer = Some(vals);
            }
            return Ok(true);
        }
        let open = |r: &&usize| self.len(**r) > 0;
        if self.split
            && self.comps.len() > 1
            && active
                .iter()
                .filter(open)
                .all(|&r| self.run_comp[r] != usize::MAX)
        {
            let mut groups: Vec<(u32, usize, Vec<usize>)> = Vec::new(); // (size, comp, runs)
            for &r in active.iter().filter(|&&r| self.len(r) > 0) {
                let c = self.run_comp[r];
                match groups.iter_mut().find(|g| g.1 == c) {
                    Some(g) => g.2.push(r),
                    None => groups.push((self.comps[c].count(), c, vec![r])),
                }
            }
            if groups.len() > 1 {
                groups.sort_unstable();
                let mark = self.trail.len();
                for (_, _, runs) in &groups {
                    // The components and their runs as this state has them.
                    if !self.dfs(runs)? {
                        self.undo_to(mark);
                        return Ok(false);
                    }
                }
                return Ok(true);
            }
        }
        // The run end with the fewest next cells (ties: the filling order), walked one step.
        let mut best: Option<(usize, usize, usize, bool)> = None; // (options, rank, run, up)
        let mut kids = Vec::with_capacity(4);
        let exact2 = self.open_degrees().2;
        for (rank, &r) in active.iter().enumerate() {
            if self.len(r) == 0 {
                continue;
            }
            let (lo, hi) = self.runs[r];
            for up in [true, false] {
                if up && lo.is_none() || !up && hi.is_none() {
                    continue;
                }
                if up != self.up[r] {
                    continue;
                }
                self.steps(r, up, exact2, &mut kids);
                // Ties: the least slack left, then the filling order.
                let slack = match self.runs[r] {
                    (Some(u), Some(w)) => w - u - self.d(self.pos[u], self.pos[w]),
                    _ => self.n + self.len(r),
                };
                let rank = slack * 1_000 + rank;
                let key = (kids.len(), rank, r, up);
                if best.is_none_or(|b| (key.0, key.1) < (b.0, b.1)) {
                    best = Some(key);
                }
            }
            if best.is_some_and(|b| b.0 == 0) {
                return Ok(false);
            }
        }
        let (_, _, r, up) = best.expect("an open run");
        let v = self.steps(r, up, exact2, &mut kids);
        kids.sort_unstable();
        for (_, _, y) in kids {
            self.nodes += 1;
            if self.nodes > self.node_cap {
                return Err(WalkStop::Nodes);
            }
            self.place(v, y, r, up);
            if self.feasible(r) && self.ladder_ok() && self.dfs(active)? {
                return Ok(true);
            }
            self.undo_to(self.trail.len() - 1);
        }
        Ok(false)
    }

    /// The ladder check after a placement ([`super::ladder_check`]).
    fn ladder_ok(&mut self) -> bool {
        match &mut self.ladder {
            Some(l) => l.live(&self.trail, |p| (p.v, p.y)),
            None => true,
        }
    }

    /// Number v on cell y, extending run r at its upper (`up`) or lower end.
    fn place(&mut self, v: usize, y: usize, r: usize, up: bool) {
        self.trail.push(Placed {
            v,
            y,
            r,
            ends: self.runs[r],
            reach: self.reach[r],
        });
        self.pos[v] = y;
        self.num[y] = v;
        self.free.clear(y);
        if up {
            self.runs[r].0 = Some(v);
        } else {
            self.runs[r].1 = Some(v);
        }
        self.set_ports_around(v);
        self.reach[r] = self.reach_of(r);
    }

    /// Undo the placements after the first `mark` of the trail, latest first.
    fn undo_to(&mut self, mark: usize) {
        while self.trail.len() > mark {
            let p = self.trail.pop().expect("a placement");
            self.pos[p.v] = usize::MAX;
            self.num[p.y] = usize::MAX;
            self.ports.clear(p.y);
            self.free.set(p.y);
            self.runs[p.r] = p.ends;
            self.set_ports_around(p.v);
            self.reach[p.r] = p.reach;
        }
    }

    /// Colours a free cell may have to be a free end of the path (bit k: colour k).
    fn end_colours(&self) -> u8 {
        let mut m = 0u8;
        if self.pos[0] == usize::MAX {
            m |= 1 << self.colour_of_0;
        }
        if self.pos[self.n - 1] == usize::MAX {
            m |= 1 << ((self.colour_of_0 + self.n - 1) & 1);
        }
        m
    }

    /// Per free cell, its neighbours among free cells and ports: the cells with at least one,
    /// at least two, and exactly two that cannot be a path end (both must be its path
    /// neighbours: next to a port, such a cell takes a number next to the port's).
    fn open_degrees(&self) -> (Bits, Bits, Bits) {
        let free = self.free;
        let open = free.or(self.ports);
        let cols = self.geo.cols;
        let all = Bits::first(self.n);
        let u = open.shift_down(cols).and(all);
        let d = open.shift_up(cols).and(all);
        let l = open.shift_up(1).and(self.has_left);
        let r = open.shift_down(1).and(self.has_right);
        let any = u.or(d).or(l).or(r);
        let ud = u.and(d);
        let lr = l.and(r);
        let two = ud.or(lr).or(u.or(d).and(l.or(r)));
        let three = ud.and(l.or(r)).or(lr.and(u.or(d)));
        let ends = self.end_colours();
        let mut endable = Bits::EMPTY;
        if ends & 1 == 1 {
            endable = endable.or(self.colour0);
        }
        if ends & 2 == 2 {
            endable = endable.or(all.and_not(self.colour0));
        }
        let exact2 = free.and(two).and_not(three).and_not(endable);
        (free.and(any), free.and(two), exact2)
    }

    /// Number of colour-0 numbers in lo..=hi.
    fn colour0_numbers(&self, lo: usize, hi: usize) -> usize {
        if lo > hi {
            return 0;
        }
        // Number u is on colour 0 iff (colour_of_0 + u) is even.
        let first = if (self.colour_of_0 + lo) & 1 == 0 {
            lo
        } else {
            lo + 1
        };
        if first > hi { 0 } else { (hi - first) / 2 + 1 }
    }

    /// The prunings after run `r` moved (`usize::MAX`: at the root).
    fn feasible(&mut self, r: usize) -> bool {
        if r != usize::MAX
            && let (Some(u), Some(w)) = self.runs[r]
        {
            let d = self.d(self.pos[u], self.pos[w]);
            if d > w - u || (w - u - d) & 1 == 1 {
                return false;
            }
        }
        let free = self.free;
        if free.is_empty() {
            self.comps.clear();
            return true;
        }
        let (any, two, exact2) = self.open_degrees();
        if any != free {
            return false;
        }
        // Ports: a free neighbour for each unplaced neighbouring number, and no more free
        // neighbours that must be next to it on the path than that.
        for c in self.ports.iter() {
            let nb = self.geo.nmask[c];
            let v = self.num[c];
            let need = u32::from(v > 0 && self.pos[v - 1] == usize::MAX)
                + u32::from(v + 1 < self.n && self.pos[v + 1] == usize::MAX);
            if nb.and(free).count() < need || nb.and(exact2).count() > need {
                return false;
            }
        }
        // Dead ends among free cells (ports count as open): free ends of the path.
        let dead = free.and_not(two);
        if !dead.is_empty() {
            let end_colours = self.end_colours();
            let ends = end_colours.count_ones() as usize
                + usize::from(
                    self.pos[0] == usize::MAX
                        && self.pos[self.n - 1] == usize::MAX
                        && (self.colour_of_0 + self.n - 1) & 1 == self.colour_of_0,
                );
            let mut k = 0;
            for c in dead.iter() {
                if end_colours >> self.geo.colour(c) & 1 == 0 {
                    return false;
                }
                k += 1;
                if k > ends {
                    return false;
                }
            }
        }
        // Coverage and exclusive reach, colour by colour.
        let open_runs: Vec<usize> = (0..self.runs.len()).filter(|&q| self.len(q) > 0).collect();
        let m = open_runs.len();
        let mut prefix = Vec::with_capacity(m + 1);
        prefix.push(Bits::EMPTY);
        for (i, &q) in open_runs.iter().enumerate() {
            let p = prefix[i].or(self.reach[q]);
            prefix.push(p);
        }
        if !free.and_not(prefix[m]).is_empty() {
            return false;
        }
        let mut suffix = Bits::EMPTY;
        for i in (0..m).rev() {
            let q = open_runs[i];
            let others = prefix[i].or(suffix);
            let mine = free.and(self.reach[q]);
            let own = mine.and_not(others);
            let (lo, hi) = self.runs[q];
            let (a, b) = (lo.map_or(0, |u| u + 1), hi.unwrap_or(self.n) - 1);
            let c0 = self.colour0_numbers(a, b);
            let c1 = b + 1 - a - c0;
            if own.and(self.colour0).count() as usize > c0
                || own.and_not(self.colour0).count() as usize > c1
            {
                return false;
            }
            // ... and every run reaches enough cells of each colour for its own numbers.
            if (mine.and(self.colour0).count() as usize) < c0
                || (mine.and_not(self.colour0).count() as usize) < c1
            {
                return false;
            }
            suffix = suffix.or(self.reach[q]);
        }
        // Components: each open run goes whole into one next to both its ends.
        let mut comps: Vec<(Bits, Bits)> = Vec::new(); // (component, its dilation)
        let mut rest = free;
        while let Some(c) = rest.min() {
            let mut s = Bits::single(c);
            loop {
                let t = s.or(self.geo.dilate(s).and(free));
                if t == s {
                    break;
                }
                s = t;
            }
            rest = rest.and_not(s);
            comps.push((s, self.geo.dilate(s)));
        }
        if comps.len() > 1 && !self.components_fit(&comps, &open_runs) {
            return false;
        }
        if comps.len() <= 1 {
            self.comps.clear();
        }
        self.degrees_fit()
    }

    /// The degree test ([`Degrees`]): free cells take two path neighbours (a free path end
    /// one), ports one per unplaced neighbouring number, on cells that are candidates for it.
    fn degrees_fit(&mut self) -> bool {
        let Some(mut deg) = self.degrees.take() else {
            return true;
        };
        let free = self.free;
        for x in self.ports.iter() {
            let v = self.num[x];
            let lo = v > 0 && self.pos[v - 1] == usize::MAX;
            let hi = v + 1 < self.n && self.pos[v + 1] == usize::MAX;
            self.deg_need[x] = u8::from(lo) + u8::from(hi);
            let mut ok = Bits::EMPTY;
            for y in self.geo.nmask[x].and(free).iter() {
                if lo && self.cand[y].has(v - 1) || hi && self.cand[y].has(v + 1) {
                    ok.set(y);
                }
            }
            self.deg_nb[x] = ok;
        }
        let mut slots = [(0u8, Bits::EMPTY); 2];
        for (k, end) in [0, self.n - 1].into_iter().enumerate() {
            if self.pos[end] == usize::MAX && self.n > 1 {
                let c = (self.colour_of_0 + end) & 1;
                slots[c].0 += 1;
                let of_colour = if c == 0 {
                    free.and(self.colour0)
                } else {
                    free.and_not(self.colour0)
                };
                slots[c].1 = slots[c].1.or(self.cand_end[k].and(of_colour));
            }
        }
        let mut sides = [0usize; 2];
        sides[0] = 2 * free.and(self.colour0).count() as usize;
        sides[1] = 2 * free.and_not(self.colour0).count() as usize;
        for x in self.ports.iter() {
            sides[self.geo.colour(x)] += self.deg_need[x] as usize;
        }
        let ok = deg.feasible(&FillDemands {
            free,
            ports: self.ports,
            port_need: &self.deg_need,
            port_ok: &self.deg_nb,
            slots,
            sides,
        });
        self.degrees = Some(deg);
        ok
    }

    /// Components: each open run goes whole into one next to both its ends.
    fn components_fit(&mut self, comps: &[(Bits, Bits)], open_runs: &[usize]) -> bool {
        let mut forced = vec![0usize; comps.len()];
        let mut possible = vec![0usize; comps.len()];
        for &q in open_runs {
            let (lo, hi) = self.runs[q];
            let a = lo.map(|u| self.pos[u]);
            let b = hi.map(|w| self.pos[w]);
            let mut which = usize::MAX;
            let mut k = 0;
            for (i, (_, dil)) in comps.iter().enumerate() {
                if a.is_none_or(|a| dil.has(a)) && b.is_none_or(|b| dil.has(b)) {
                    which = i;
                    k += 1;
                    possible[i] += self.len(q);
                }
            }
            match k {
                0 => return false,
                1 => forced[which] += self.len(q),
                _ => which = usize::MAX,
            }
            self.run_comp[q] = which;
        }
        self.comps.clear();
        self.comps.extend(comps.iter().map(|c| c.0));
        comps.iter().enumerate().all(|(i, (s, _))| {
            let size = s.count() as usize;
            forced[i] <= size && size <= possible[i]
        })
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
                if std::env::var("SPARSE_FILL").is_ok() {
                    let t0 = std::time::Instant::now();
                    let mut st = crate::numbrix::ladder::State::new(&b).unwrap();
                    let mut work = crate::numbrix::ladder::Work::default();
                    crate::numbrix::ladder::climb(
                        &ctx,
                        &mut st,
                        Rungs::DECIDE.without(crate::numbrix::ladder::Rung::Probe),
                        &mut work,
                    );
                    let (a, used) =
                        crate::numbrix::search::first_answer(&ctx, &b, &mut st.cv, 999_999);
                    times.push(t0.elapsed().as_secs_f64() * 1e3);
                    nodes.push(used);
                    if a.is_none() {
                        unknown += 1;
                    }
                    continue;
                }
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

    /// The run filling never prunes every answer of a board that has one: on 360 random reveals
    /// of 5×5–10×10 boards (sparse to a third of the cells), started plain (tie 0) and shuffled
    /// (tie 1), it never finds its tree empty, it meets an answer within 200,000 nodes on all but
    /// a few (under 5%), and every answer passes the board's own answer test.
    #[test]
    fn run_filling_meets_valid_answers_on_reveals() {
        use crate::numbrix::ladder::{Rung, State, Work, climb};
        let (mut met, mut capped) = (0, 0);
        for s in 5..=10usize {
            let n = s * s;
            let ctx = Ctx::new(s, s);
            for t in 0..60u64 {
                let k = [
                    (n as f64 * 0.075).round() as usize,
                    (n as f64 * 0.1125).round() as usize,
                    (n as f64 * 0.15).round() as usize,
                    n / 5,
                    n / 3,
                    1,
                ][t as usize % 6]
                    .max(1);
                let b = reveal(s, s, k, 5_003 * n as u64 + t);
                let mut st = State::new(&b).unwrap();
                let root = climb(
                    &ctx,
                    &mut st,
                    Rungs::DECIDE.without(Rung::Probe),
                    &mut Work::default(),
                );
                if root != crate::numbrix::ladder::Outcome::Stalled {
                    continue;
                }
                for tie in [0, 1] {
                    let mut f = super::RunFill::new(&ctx.geo, &st.cv, 200_000, tie)
                        .expect("a reveal pins a number");
                    match f.run() {
                        Ok(true) => {
                            let a = f.answer.take().unwrap();
                            assert!(b.is_answer(&a), "{s}x{s}\n{}", b.format());
                            met += 1;
                        }
                        Ok(false) => {
                            panic!("every answer pruned (tie {tie}) on {s}x{s}\n{}", b.format())
                        }
                        Err(_) => capped += 1,
                    }
                }
            }
        }
        // A single run without restarts may stall on a few boards (restarts are the decision's).
        assert!(met > 500 && capped * 20 < met, "{met} met, {capped} capped");
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

    /// The root state of board `b` after the ladder's search rungs, when they leave it stalled
    /// (neither solved nor dead).
    fn stalled_root(
        ctx: &Ctx,
        b: &crate::numbrix::board::Board,
    ) -> Option<crate::numbrix::ladder::State> {
        use crate::numbrix::ladder::{Outcome, Rung, State, Work, climb};
        let mut st = State::new(b).ok()?;
        let rungs = Rungs::DECIDE.without(Rung::Probe);
        (climb(ctx, &mut st, rungs, &mut Work::default()) == Outcome::Stalled).then_some(st)
    }

    /// The ladder check inside the run filling keeps every answer and pays: on sparse reveals of
    /// 8×8–10×10 answers, with the check on, the filling never finds its tree empty and every
    /// answer it meets passes the board's answer test; the check finds dead states, and the
    /// fillings that meet an answer both with and without it take fewer nodes with it. Debug
    /// builds also check at every use that a kept ladder state belongs to the current trail.
    #[test]
    fn ladder_check_keeps_answers_and_cuts_nodes() {
        let (mut dead, mut with, mut without, mut both) = (0u64, 0u64, 0u64, 0);
        for s in 8..=10usize {
            let n = s * s;
            let ctx = Ctx::new(s, s);
            for t in 0..40u64 {
                let k = ((n as f64) * 0.15 * [0.5, 0.75][t as usize % 2]).round() as usize;
                let b = reveal(s, s, k, 90_001 * n as u64 + t);
                let Some(st) = stalled_root(&ctx, &b) else {
                    continue;
                };
                for tie in [0, 1] {
                    let mut on = super::RunFill::new(&ctx.geo, &st.cv, 100_000, tie).unwrap();
                    let r_on = on.run();
                    assert!(
                        !matches!(r_on, Ok(false)),
                        "every answer pruned\n{}",
                        b.format()
                    );
                    if let Ok(true) = r_on {
                        assert!(b.is_answer(on.answer.as_ref().unwrap()));
                    }
                    dead += on.ladder.as_ref().unwrap().dead;
                    let mut off = super::RunFill::new(&ctx.geo, &st.cv, 100_000, tie)
                        .unwrap()
                        .with_ladder(false);
                    let r_off = off.run();
                    if r_on.is_ok() && r_off.is_ok() {
                        both += 1;
                        with += on.nodes;
                        without += off.nodes;
                    }
                }
            }
        }
        assert!(dead > 0, "the ladder check never found a dead state");
        assert!(both > 100, "{both} fillings met an answer both ways");
        assert!(
            with < without,
            "{with} nodes with the check, {without} without"
        );
    }

    /// The root's failed-literal pass keeps every answer and pays: on sparse reveals of 6×6–8×8
    /// answers, it drops candidates on most boards, the narrowed root is a fixpoint of the
    /// ladder's search rungs, complete walks (counts up to 200) from the narrowed candidates find
    /// exactly the answers of the walks from the root's, and take fewer nodes in all.
    #[test]
    fn root_probe_keeps_answers_and_cuts_nodes() {
        use crate::numbrix::ladder::{Outcome, Rung, State, Work, climb};
        use crate::numbrix::search::probe_root;
        let (mut narrowed, mut walks, mut with, mut without) = (0, 0, 0u64, 0u64);
        for s in 6..=8usize {
            let n = s * s;
            let ctx = Ctx::new(s, s);
            for t in 0..20u64 {
                let k = [n / 12, n / 10, n / 8][t as usize % 3].max(2);
                let b = reveal(s, s, k, 50_021 * n as u64 + t);
                let Some(st) = stalled_root(&ctx, &b) else {
                    continue;
                };
                let (cand, spent) = probe_root(&ctx, &st.cv, u64::MAX);
                assert!(spent > 0);
                let Some(cand) = cand else { continue };
                narrowed += 1;
                let mut again = State::of_cands(&cand);
                let rungs = Rungs::DECIDE.without(Rung::Probe);
                let outcome = climb(&ctx, &mut again, rungs, &mut Work::default());
                assert!(!matches!(outcome, Outcome::Dead(_)), "{}", b.format());
                assert_eq!(again.cv, cand, "not a fixpoint\n{}", b.format());
                for c in 0..n {
                    assert!(cand[c].and_not(st.cv[c]).is_empty(), "a candidate added");
                }
                let mut before = super::Walk::new(&ctx.geo, &st.cv, 200, 2_000_000);
                let mut after = super::Walk::new(&ctx.geo, &cand, 200, 2_000_000);
                if before.run().is_err() || after.run().is_err() {
                    continue; // 200 answers or more: not a complete walk
                }
                let (mut x, mut y) = (before.answers.clone(), after.answers.clone());
                x.sort();
                y.sort();
                assert!(!x.is_empty());
                assert_eq!(x, y, "{s}x{s}\n{}", b.format());
                walks += 1;
                without += before.nodes;
                with += after.nodes;
            }
        }
        assert!(narrowed > 30, "{narrowed} roots narrowed");
        assert!(walks > 20, "{walks} complete walks");
        assert!(
            with < without,
            "{with} nodes narrowed, {without} from the root"
        );
    }

    /// The walk search counts exactly with the ladder check as without it: on reveals of 5×5–8×8
    /// answers, complete walks (counts up to 500) with and without the check find the same
    /// answers; the check finds dead states and the walks with it take fewer nodes in all.
    #[test]
    fn walk_counts_alike_with_and_without_the_ladder_check() {
        let (mut dead, mut with, mut without, mut walks) = (0u64, 0u64, 0u64, 0);
        for s in 5..=8usize {
            let n = s * s;
            let ctx = Ctx::new(s, s);
            for t in 0..30u64 {
                let k = [n / 10, n / 8, n / 6][t as usize % 3].max(2);
                let b = reveal(s, s, k, 70_003 * n as u64 + t);
                let Some(st) = stalled_root(&ctx, &b) else {
                    continue;
                };
                let mut on =
                    super::Walk::with_order(&ctx.geo, &st.cv, 500, 2_000_000, t % 2 == 1, 0);
                let mut off =
                    super::Walk::with_order(&ctx.geo, &st.cv, 500, 2_000_000, t % 2 == 1, 0)
                        .with_ladder(false);
                let (r_on, r_off) = (on.run(), off.run());
                if r_on.is_err() || r_off.is_err() {
                    continue; // 500 answers or more: not a complete walk
                }
                let (mut a, mut b2) = (on.answers.clone(), off.answers.clone());
                a.sort();
                b2.sort();
                assert_eq!(a, b2, "{s}x{s}\n{}", b.format());
                dead += on.ladder.as_ref().unwrap().dead;
                with += on.nodes;
                without += off.nodes;
                walks += 1;
            }
        }
        assert!(walks > 60, "{walks} complete walks");
        assert!(dead > 0, "the ladder check never found a dead state");
        assert!(
            with < without,
            "{with} nodes with the check, {without} without"
        );
    }
}
