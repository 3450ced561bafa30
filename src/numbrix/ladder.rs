//! Candidates, rungs and the ladder.
//!
//! The state holds cell×number candidates in both directions (the numbers a cell may hold, the
//! cells a number may sit in). A rung is a deduction function in a Tatham-style table
//! ([`LADDER`]); each is switchable on its own ([`Rungs`]). [`climb`] runs the enabled rungs in
//! ladder order, going back to the bottom after every rung that removed something, until none
//! does (a fixpoint), the board is solved, or a contradiction shows. Per-rung work is recorded
//! in [`Work`].
//!
//! Numbers are stored 0-based internally (number v is index v−1).

#![allow(clippy::needless_range_loop)]

use super::bits::Bits;
use super::board::{Board, Geometry};

/// The rungs, in ladder order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rung {
    /// Bijection bookkeeping: a cell with one number left holds it; a number with one cell left
    /// sits there.
    Pin = 0,
    /// Arc consistency on the chain: the cell of v neighbours a home of v−1 and one of v+1.
    Link = 1,
    /// The distance bound: the cell of v is within |v−u| steps of some home of u. Redundant
    /// after link (kept off the ladder by default; measured only).
    Ruler = 2,
    /// Distinctness of windows: numbers a…b need b−a+1 distinct cells; read both ways.
    Block = 3,
    /// Path-degree counting on the drawing: forced edges, runs, no cycles, connectivity.
    Edge = 4,
    /// Try a number in a cell, climb the rungs below, remove it on contradiction.
    Probe = 5,
}

pub const RUNG_COUNT: usize = 6;

/// The Tatham-style table: every rung with its name and one-line description.
pub const LADDER: [(Rung, &str, &str); RUNG_COUNT] = [
    (
        Rung::Pin,
        "pin",
        "bijection bookkeeping: a number with one cell left sits there, a cell with one number left holds it",
    ),
    (
        Rung::Link,
        "link",
        "chain rule: the cell of v must neighbour a home of v-1 and a home of v+1",
    ),
    (
        Rung::Ruler,
        "ruler",
        "distance bound: the cell of v lies within |v-u| steps of a home of u",
    ),
    (
        Rung::Block,
        "block",
        "distinctness: numbers a..b need b-a+1 distinct cells (and b-a+1 cells confined to a..b take them all)",
    ),
    (
        Rung::Edge,
        "edge",
        "path degrees: every cell but the two ends uses two edges; forced edges glue into runs; no run closes a cycle; the survivors keep the board connected",
    ),
    (
        Rung::Probe,
        "probe",
        "probe: placing any other number here leads the rungs below to a contradiction",
    ),
];

impl Rung {
    pub fn all() -> [Rung; RUNG_COUNT] {
        [
            Rung::Pin,
            Rung::Link,
            Rung::Ruler,
            Rung::Block,
            Rung::Edge,
            Rung::Probe,
        ]
    }
    pub fn name(self) -> &'static str {
        LADDER[self as usize].1
    }
    pub fn describe(self) -> &'static str {
        LADDER[self as usize].2
    }
    pub fn parse(s: &str) -> Option<Rung> {
        Rung::all().into_iter().find(|r| r.name() == s)
    }
}

/// A set of enabled rungs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rungs(pub u8);

impl Rungs {
    pub const NONE: Rungs = Rungs(0);
    /// The default ladder: every rung but the ruler.
    pub const DEFAULT: Rungs = Rungs(0b11_1011);
    /// The default ladder without the probe (what the probe climbs inside).
    pub const NO_PROBE: Rungs = Rungs(0b01_1011);
    /// The ladder for uniqueness decisions under search: pin, link, edge (block and the probe
    /// cost more per node than the branching they save on bank boards).
    pub const DECIDE: Rungs = Rungs(0b01_0011);
    pub fn has(self, r: Rung) -> bool {
        self.0 >> (r as u8) & 1 == 1
    }
    pub fn with(self, r: Rung) -> Rungs {
        Rungs(self.0 | 1 << (r as u8))
    }
    pub fn without(self, r: Rung) -> Rungs {
        Rungs(self.0 & !(1 << (r as u8)))
    }
    pub fn of(rs: &[Rung]) -> Rungs {
        rs.iter().fold(Rungs::NONE, |a, &r| a.with(r))
    }
    /// Parse "pin,link,edge" (or "default", "none").
    pub fn parse(s: &str) -> Result<Rungs, String> {
        match s.trim() {
            "default" => return Ok(Rungs::DEFAULT),
            "all" => return Ok(Rungs(0b11_1111)),
            "decide" => return Ok(Rungs::DECIDE),
            "none" | "" => return Ok(Rungs::NONE),
            _ => {}
        }
        let mut out = Rungs::NONE;
        for part in s.split(',') {
            let r = Rung::parse(part.trim()).ok_or_else(|| {
                format!("unknown rung '{part}' (rungs: pin, link, ruler, block, edge, probe)")
            })?;
            out = out.with(r);
        }
        Ok(out)
    }
    pub fn names(self) -> String {
        let v: Vec<&str> = Rung::all()
            .into_iter()
            .filter(|&r| self.has(r))
            .map(|r| r.name())
            .collect();
        if v.is_empty() {
            "none".into()
        } else {
            v.join(",")
        }
    }
}

/// Work done by the ladder: rung calls, candidate eliminations per rung (the bookkeeping bill,
/// counted inside probes too) and probes (trial placements).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    pub calls: [u64; RUNG_COUNT],
    pub elims: [u64; RUNG_COUNT],
    pub probes: u64,
}

impl Work {
    /// Every cell×number candidate removal, by any rung, including those inside probes.
    pub fn bookkeeping(&self) -> u64 {
        self.elims.iter().sum()
    }
    pub fn add(&mut self, o: &Work) {
        for i in 0..RUNG_COUNT {
            self.calls[i] += o.calls[i];
            self.elims[i] += o.elims[i];
        }
        self.probes += o.probes;
    }
}

/// A contradiction, with the rung's reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dead(pub &'static str);

/// The ladder's verdict on a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Solved,
    Stalled,
    Dead(Dead),
}

/// The fixed context of a board: geometry and size.
#[derive(Clone, Debug)]
pub struct Ctx {
    pub geo: Geometry,
    pub n: usize,
}

impl Ctx {
    pub fn new(rows: usize, cols: usize) -> Ctx {
        let geo = Geometry::new(rows, cols);
        Ctx { n: geo.n, geo }
    }
    pub fn of(board: &Board) -> Ctx {
        Ctx::new(board.rows, board.cols)
    }
}

/// Cell×number candidates, kept in both directions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub n: usize,
    /// cv\[c\]: the numbers (0-based) cell c may hold.
    pub cv: Vec<Bits>,
    /// vc\[v\]: the cells number v (0-based) may sit in.
    pub vc: Vec<Bits>,
    /// Candidate removals so far.
    pub elims: u64,
}

impl State {
    /// Every number everywhere, then the printed numbers placed.
    pub fn new(board: &Board) -> Result<State, Dead> {
        let n = board.n();
        let all = Bits::first(n);
        let mut st = State {
            n,
            cv: vec![all; n],
            vc: vec![all; n],
            elims: 0,
        };
        for (c, &g) in board.givens.iter().enumerate() {
            if g != 0 {
                st.assign(c, g as usize - 1)?;
            }
        }
        st.elims = 0;
        Ok(st)
    }

    /// The state of the candidates `cand` (`cand[c]`: the numbers cell c may hold), read both
    /// ways.
    pub fn of_cands(cand: &[Bits]) -> State {
        let n = cand.len();
        let mut vc = vec![Bits::EMPTY; n];
        for (c, b) in cand.iter().enumerate() {
            for v in b.iter() {
                vc[v].set(c);
            }
        }
        State {
            n,
            cv: cand.to_vec(),
            vc,
            elims: 0,
        }
    }

    /// Candidate cell×number pairs left.
    pub fn pairs(&self) -> u64 {
        self.cv.iter().map(|b| b.count() as u64).sum()
    }

    /// Cells with one number left.
    pub fn pinned(&self) -> usize {
        self.cv.iter().filter(|b| b.count() == 1).count()
    }

    pub fn is_solved(&self) -> bool {
        self.cv.iter().all(|b| b.count() == 1)
    }

    /// Row-major values (1-based) of a fully pinned state; 0 where a cell is not pinned.
    pub fn values(&self) -> Vec<u32> {
        self.cv
            .iter()
            .map(|b| {
                if b.count() == 1 {
                    b.min().unwrap() as u32 + 1
                } else {
                    0
                }
            })
            .collect()
    }

    /// Place number v (0-based) in cell c.
    pub fn assign(&mut self, c: usize, v: usize) -> Result<bool, Dead> {
        let a = self.restrict_cell(c, Bits::single(v))?;
        let b = self.restrict_value(v, Bits::single(c))?;
        Ok(a || b)
    }

    /// Number v keeps only the cells in `keep`.
    #[inline]
    pub fn restrict_value(&mut self, v: usize, keep: Bits) -> Result<bool, Dead> {
        let old = self.vc[v];
        let new = old.and(keep);
        if new == old {
            return Ok(false);
        }
        let gone = old.and_not(keep);
        for c in gone.iter() {
            self.cv[c].clear(v);
            if self.cv[c].is_empty() {
                self.vc[v] = new;
                return Err(Dead("a cell has no number left"));
            }
        }
        self.elims += gone.count() as u64;
        self.vc[v] = new;
        if new.is_empty() {
            return Err(Dead("a number has no cell left"));
        }
        Ok(true)
    }

    /// Cell c keeps only the numbers in `keep`.
    #[inline]
    pub fn restrict_cell(&mut self, c: usize, keep: Bits) -> Result<bool, Dead> {
        let old = self.cv[c];
        let new = old.and(keep);
        if new == old {
            return Ok(false);
        }
        let gone = old.and_not(keep);
        for v in gone.iter() {
            self.vc[v].clear(c);
            if self.vc[v].is_empty() {
                self.cv[c] = new;
                return Err(Dead("a number has no cell left"));
            }
        }
        self.elims += gone.count() as u64;
        self.cv[c] = new;
        if new.is_empty() {
            return Err(Dead("a cell has no number left"));
        }
        Ok(true)
    }

    /// Whether a fully pinned state is an answer (a bijection along a path).
    fn pinned_is_path(&self, ctx: &Ctx) -> bool {
        let mut pos = vec![usize::MAX; self.n];
        for (c, b) in self.cv.iter().enumerate() {
            let v = b.min().unwrap();
            if pos[v] != usize::MAX {
                return false;
            }
            pos[v] = c;
        }
        (1..self.n).all(|v| ctx.geo.adjacent(pos[v - 1], pos[v]))
    }
}

// ------------------------------------------------------------------------------------------
// The rungs
// ------------------------------------------------------------------------------------------

/// pin: singles in both directions, to a fixpoint.
pub fn pin(st: &mut State) -> Result<bool, Dead> {
    let mut any = false;
    loop {
        let mut changed = false;
        for c in 0..st.n {
            if st.cv[c].count() == 1 {
                let v = st.cv[c].min().unwrap();
                if st.vc[v].count() > 1 {
                    st.restrict_value(v, Bits::single(c))?;
                    changed = true;
                }
            }
        }
        for v in 0..st.n {
            if st.vc[v].count() == 1 {
                let c = st.vc[v].min().unwrap();
                if st.cv[c].count() > 1 {
                    st.restrict_cell(c, Bits::single(v))?;
                    changed = true;
                }
            }
        }
        if !changed {
            return Ok(any);
        }
        any = true;
    }
}

/// link: arc consistency on the chain v−1 — v — v+1. One forward and one backward sweep make
/// a chain-shaped network arc consistent.
pub fn link(ctx: &Ctx, st: &mut State) -> Result<bool, Dead> {
    let mut any = false;
    for v in 1..st.n {
        let keep = ctx.geo.dilate(st.vc[v - 1]);
        any |= st.restrict_value(v, keep)?;
    }
    for v in (0..st.n.saturating_sub(1)).rev() {
        let keep = ctx.geo.dilate(st.vc[v + 1]);
        any |= st.restrict_value(v, keep)?;
    }
    Ok(any)
}

/// ruler: the cell of v lies within |v−u| grid steps of some home of u, for every u.
pub fn ruler(ctx: &Ctx, st: &mut State) -> Result<bool, Dead> {
    let n = st.n;
    let all = Bits::first(n);
    let mut any = false;
    for u in 0..n {
        let mut ball = st.vc[u];
        for k in 1..n {
            ball = ball.or(ctx.geo.dilate(ball));
            if ball == all {
                break;
            }
            if u >= k {
                any |= st.restrict_value(u - k, ball)?;
            }
            if u + k < n {
                any |= st.restrict_value(u + k, ball)?;
            }
        }
    }
    Ok(any)
}

/// block: Hall's condition on windows of consecutive numbers, read from the numbers (the homes
/// of a…b) and from the cells (the cells whose numbers all lie in a…b).
pub fn block(st: &mut State) -> Result<bool, Dead> {
    let n = st.n;
    let mut any = false;
    // For every window a..b: `homes` = the cells numbers a..b may sit in; `confined` = the cells
    // whose numbers all lie in a..b. Hall both ways; a tightening only runs when it removes
    // something (homes ≠ confined), so a quiet call costs O(N²) set operations.
    let mut lo = vec![0usize; n];
    let mut by_hi: Vec<Vec<usize>> = vec![Vec::new(); n];
    for c in 0..n {
        lo[c] = st.cv[c].min().unwrap();
        by_hi[st.cv[c].max().unwrap()].push(c);
    }
    for a in 0..n {
        let mut homes = Bits::EMPTY;
        let mut confined = Bits::EMPTY;
        let mut cnt = 0usize;
        for b in a..n {
            let len = b - a + 1;
            if len == n {
                break;
            }
            homes = homes.or(st.vc[b]);
            for &c in &by_hi[b] {
                if lo[c] >= a {
                    confined.set(c);
                    cnt += 1;
                }
            }
            let h = homes.count() as usize;
            if h < len {
                return Err(Dead(
                    "block: a window of numbers has fewer cells than numbers",
                ));
            }
            if cnt > len {
                return Err(Dead(
                    "block: more cells than numbers are confined to a window",
                ));
            }
            if homes == confined {
                continue;
            }
            if h == len {
                let keep = Bits::range(a, b);
                for c in homes.and_not(confined).iter() {
                    any |= st.restrict_cell(c, keep)?;
                }
            }
            if cnt == len && cnt > 0 {
                for v in a..=b {
                    any |= st.restrict_value(v, confined)?;
                }
            }
        }
    }
    Ok(any)
}

/// edge: path-degree counting on the drawing of possible edges.
pub fn edge(ctx: &Ctx, st: &mut State) -> Result<bool, Dead> {
    let n = st.n;
    if n == 1 {
        return Ok(false);
    }
    let geo = &ctx.geo;
    let last = n - 1;
    let ends = Bits::single(0).or(Bits::single(last));
    // Possible edges: some v, v+1 across them.
    let mut poss = vec![Bits::EMPTY; n];
    for c in 0..n {
        for &d in &geo.nbrs[c] {
            if d > c
                && (st.cv[c].shift_up(1).intersects(&st.cv[d])
                    || st.cv[d].shift_up(1).intersects(&st.cv[c]))
            {
                poss[c].set(d);
                poss[d].set(c);
            }
        }
    }
    let mut forced = vec![Bits::EMPTY; n];
    let bounds: Vec<(u32, u32)> = (0..n)
        .map(|c| {
            let can_end = st.cv[c].intersects(&ends);
            let must_end = st.cv[c].and_not(ends).is_empty();
            if must_end {
                (1, 1)
            } else if can_end {
                (1, 2)
            } else {
                (2, 2)
            }
        })
        .collect();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    loop {
        let mut changed = false;
        for c in 0..n {
            let (lo, hi) = bounds[c];
            let deg = poss[c].count();
            let f = forced[c].count();
            if deg < lo {
                return Err(Dead("edge: a cell has fewer possible edges than it needs"));
            }
            if f > hi {
                return Err(Dead("edge: a cell has more forced edges than it may use"));
            }
            if deg == lo && forced[c] != poss[c] {
                for d in poss[c].and_not(forced[c]).iter() {
                    forced[c].set(d);
                    forced[d].set(c);
                }
                changed = true;
            } else if f == hi && poss[c] != forced[c] {
                for d in poss[c].and_not(forced[c]).iter() {
                    poss[c].clear(d);
                    poss[d].clear(c);
                }
                changed = true;
            }
        }
        // Runs of forced edges: no cycle; an edge joining the two ends of a run is unused.
        for (i, p) in parent.iter_mut().enumerate() {
            *p = i;
        }
        for c in 0..n {
            if forced[c].count() > 2 {
                return Err(Dead("edge: a cell has more than two forced edges"));
            }
            for d in forced[c].iter() {
                if d > c {
                    let (a, b) = (find(&mut parent, c), find(&mut parent, d));
                    if a == b {
                        return Err(Dead("edge: forced edges close a cycle"));
                    }
                    parent[a] = b;
                }
            }
        }
        for c in 0..n {
            if forced[c].count() == 1 {
                for d in poss[c].and_not(forced[c]).iter() {
                    if forced[d].count() == 1 && find(&mut parent, c) == find(&mut parent, d) {
                        poss[c].clear(d);
                        poss[d].clear(c);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Connectivity of what survives.
    let mut seen = Bits::single(0);
    let mut stack = vec![0usize];
    while let Some(c) = stack.pop() {
        for d in poss[c].and_not(seen).iter() {
            seen.set(d);
            stack.push(d);
        }
    }
    if seen.count() as usize != n {
        return Err(Dead(
            "edge: the surviving edges leave the board disconnected",
        ));
    }
    // Back to candidates.
    let mut any = false;
    for c in 0..n {
        let mut keep = Bits::first(n);
        if poss[c].count() == 1 {
            keep = keep.and(ends);
        }
        let mut up = Bits::single(last);
        let mut down = Bits::single(0);
        for d in poss[c].iter() {
            up = up.or(st.cv[d].shift_down(1));
            down = down.or(st.cv[d].shift_up(1));
        }
        keep = keep.and(up).and(down);
        any |= st.restrict_cell(c, keep)?;
    }
    // Runs: consecutive numbers along the run, one way or the other.
    let mut done = Bits::EMPTY;
    let mut seq = Vec::new();
    for s in 0..n {
        if forced[s].count() != 1 || done.has(s) {
            continue;
        }
        seq.clear();
        let (mut prev, mut cur) = (usize::MAX, s);
        loop {
            seq.push(cur);
            done.set(cur);
            let next = forced[cur].iter().find(|&d| d != prev);
            match next {
                Some(d) => {
                    prev = cur;
                    cur = d;
                }
                None => break,
            }
        }
        let k = seq.len();
        let mut asc = Bits::first(n);
        let mut desc = Bits::first(n);
        for j in 0..k {
            asc = asc.and(st.cv[seq[j]].shift_down(j));
            desc = desc.and(st.cv[seq[k - 1 - j]].shift_down(j));
        }
        for j in 0..k {
            let keep = asc.shift_up(j).or(desc.shift_up(k - 1 - j));
            any |= st.restrict_cell(seq[j], keep)?;
        }
    }
    Ok(any)
}

/// The open cells (two numbers or more) as (count, cell), fewest numbers first: the order in
/// which the probes try cells.
pub fn probe_order(st: &State) -> Vec<(u32, usize)> {
    let mut order: Vec<(u32, usize)> = (0..st.n)
        .filter_map(|c| {
            let k = st.cv[c].count();
            (k > 1).then_some((k, c))
        })
        .collect();
    order.sort_unstable();
    order
}

/// probe: for cells with the fewest numbers first, try each number, climb the enabled rungs
/// below the probe, and remove the number on contradiction. Returns after the first removal so
/// the cheap rungs run again.
pub fn probe(ctx: &Ctx, st: &mut State, rungs: Rungs, work: &mut Work) -> Result<bool, Dead> {
    let inner = rungs.without(Rung::Probe);
    for (_, c) in probe_order(st) {
        for v in st.cv[c].iter() {
            work.probes += 1;
            let mut t = st.clone();
            let dead = match t.assign(c, v) {
                Err(_) => true,
                Ok(_) => matches!(climb(ctx, &mut t, inner, work), Outcome::Dead(_)),
            };
            if dead {
                let keep = st.cv[c].and_not(Bits::single(v));
                st.restrict_cell(c, keep)?;
                return Ok(true);
            }
        }
    }
    Ok(false)
}

fn run_rung(
    r: Rung,
    ctx: &Ctx,
    st: &mut State,
    rungs: Rungs,
    work: &mut Work,
) -> Result<bool, Dead> {
    match r {
        Rung::Pin => pin(st),
        Rung::Link => link(ctx, st),
        Rung::Ruler => ruler(ctx, st),
        Rung::Block => block(st),
        Rung::Edge => edge(ctx, st),
        Rung::Probe => probe(ctx, st, rungs, work),
    }
}

/// Climb the enabled rungs to a fixpoint.
pub fn climb(ctx: &Ctx, st: &mut State, rungs: Rungs, work: &mut Work) -> Outcome {
    climb_observed(ctx, st, rungs, work, &mut |_, _| false)
}

/// Run one rung once (for benches and studies), recording its work.
pub fn run_once(
    r: Rung,
    ctx: &Ctx,
    st: &mut State,
    rungs: Rungs,
    work: &mut Work,
) -> Result<bool, Dead> {
    let before = st.elims;
    work.calls[r as usize] += 1;
    let res = run_rung(r, ctx, st, rungs, work);
    work.elims[r as usize] += st.elims - before;
    res
}

/// [`climb`], calling `observe(rung, state)` after every rung that removed something; the climb
/// stops (reporting `Stalled`) as soon as `observe` returns true.
pub fn climb_observed(
    ctx: &Ctx,
    st: &mut State,
    rungs: Rungs,
    work: &mut Work,
    observe: &mut dyn FnMut(Rung, &State) -> bool,
) -> Outcome {
    let order = Rung::all();
    let mut i = 0;
    while i < order.len() {
        let r = order[i];
        if !rungs.has(r) {
            i += 1;
            continue;
        }
        match run_once(r, ctx, st, rungs, work) {
            Err(d) => return Outcome::Dead(d),
            Ok(true) => {
                if observe(r, st) {
                    return Outcome::Stalled;
                }
                if st.is_solved() {
                    break;
                }
                i = 0;
            }
            Ok(false) => i += 1,
        }
    }
    if st.is_solved() {
        if st.pinned_is_path(ctx) {
            Outcome::Solved
        } else {
            Outcome::Dead(Dead("the pinned numbers do not form a path"))
        }
    } else {
        Outcome::Stalled
    }
}
