//! Cage tables: the cage rung's enumeration answered from bit sets.
//!
//! A search node only narrows candidates, so every filling a cage can still take at any node
//! is one of the fillings it takes under the root's candidates. A table lists those fillings
//! once, and keeps for each position and value the set of fillings that put that value there
//! (one bit per filling). Under a node's candidates the fillings left are the intersection,
//! over the positions, of the union of their candidates' sets; a value is supported when some
//! filling left puts it at its position, a value is needed on a line when every filling left
//! puts it there, and an operation is reached when some filling left reaches the target with
//! it. These are exactly what an enumeration under the same candidates finds (a test compares
//! the two on random states), computed with word-wise AND and OR instead of a fresh walk: the
//! table propagator of constraint solvers ("compact table", Demeulenaere, Hartert, Lecoutre,
//! Perez, Perron, Régin and Schaus, CP 2016), here without its reversible state, since the
//! search copies its states: a table keeps its latest queries instead and starts a new one
//! from the latest whose candidates hold its own.

use super::board::{Board, MAX_CAGE, Op};
use super::solver::MemoVal;

/// One cage's fillings under fixed base candidates.
pub(super) struct CageTable {
    size: usize,
    /// Values are 1..=n: a position's sets are `n + 1` apart (value 0 unused).
    stride: usize,
    /// 64-bit words per set.
    words: usize,
    /// The candidates the table was built under; a query under candidates outside them is
    /// refused.
    base: [u16; MAX_CAGE],
    /// Per position and value (`(p · stride + v) · words`): the fillings with `v` at `p`.
    sets: Vec<u64>,
    /// Per operation bit (0: + for a hidden cage, the written operation for a shown one;
    /// 1: × for a hidden cage): the fillings reaching the target with it.
    ops: [Vec<u64>; 2],
    hidden: bool,
    /// Per cage line: the positions on it.
    line_pos: [u16; 2 * MAX_CAGE],
    nlines: usize,
    /// The latest queries' fillings left, to start later queries inside them from.
    snaps: [Snap; SNAPS],
    /// Queries so far (the ages of `snaps`).
    clock: u64,
}

/// How many queries a table keeps (see [`CageTable::query`]).
const SNAPS: usize = 8;

/// A query with no kept query to start from and candidates whose share of the base's
/// combinations (the product over positions of their candidates' share) is below this is
/// left to the enumeration.
const SCRATCH_SHARE: f64 = 1.0 / 64.0;

/// One query's result kept by a [`CageTable`].
#[derive(Default)]
struct Snap {
    /// 0 while unused, else the table's clock at the query.
    age: u64,
    cand: [u16; MAX_CAGE],
    ops: u8,
    /// The fillings left: the words listed in `nz` (those holding some); the others are
    /// left over from earlier queries and never read.
    live: Vec<u64>,
    nz: Vec<u32>,
}

impl CageTable {
    /// The table of cage `i` (three cells or more) under `base`, unless listing its fillings
    /// finds more than `max_fillings` of them or takes more than `max_work` steps (each call
    /// of the walk, and each filling's cells, one step).
    pub(super) fn build(
        b: &Board,
        i: usize,
        base: &[u16; MAX_CAGE],
        max_fillings: usize,
        max_work: u64,
    ) -> Result<CageTable, TableLimit> {
        let cage = &b.cages[i];
        let size = cage.cells.len();
        debug_assert!(size >= 3);
        let hidden = b.cage_hidden(i);
        let (want_add, want_mul) = if hidden {
            (true, true)
        } else {
            (cage.op == Op::Add, cage.op == Op::Mul)
        };
        let pl = &b.cage_pos_lines[i];
        let nlines = b.cage_lines[i].len();
        let mut w = Walk {
            size,
            pl,
            base,
            t: cage.target,
            want_add,
            want_mul,
            hidden,
            sufmin: [0; MAX_CAGE + 1],
            sufmax: [0; MAX_CAGE + 1],
            vals: [0; MAX_CAGE],
            used: [0; 2 * MAX_CAGE],
            out: Vec::new(),
            marks: Vec::new(),
            max: max_fillings,
            work: 0,
            max_work,
            over: None,
        };
        for k in (0..size).rev() {
            let c = base[k];
            let (lo, hi) = if c == 0 {
                (0, 0)
            } else {
                (c.trailing_zeros() as u64, 15 - c.leading_zeros() as u64)
            };
            w.sufmin[k] = w.sufmin[k + 1] + lo;
            w.sufmax[k] = w.sufmax[k + 1] + hi;
        }
        w.walk(0, 0, 1);
        if let Some(limit) = w.over {
            return Err(limit);
        }
        let count = w.marks.len();
        let words = count.div_ceil(64).max(1);
        let stride = b.n + 1;
        let mut sets = vec![0u64; size * stride * words];
        let mut ops = [vec![0u64; words], vec![0u64; words]];
        for (f, &m) in w.marks.iter().enumerate() {
            let (wi, bit) = (f / 64, 1u64 << (f % 64));
            for p in 0..size {
                let v = w.out[f * size + p] as usize;
                sets[(p * stride + v) * words + wi] |= bit;
            }
            for (j, o) in ops.iter_mut().enumerate() {
                if m >> j & 1 != 0 {
                    o[wi] |= bit;
                }
            }
        }
        let mut line_pos = [0u16; 2 * MAX_CAGE];
        for (p, &(r, c)) in pl.iter().enumerate() {
            line_pos[r as usize] |= 1 << p;
            line_pos[c as usize] |= 1 << p;
        }
        let mut b2 = [0u16; MAX_CAGE];
        b2[..size].copy_from_slice(&base[..size]);
        Ok(CageTable {
            size,
            stride,
            words,
            base: b2,
            sets,
            ops,
            hidden,
            line_pos,
            nlines,
            snaps: Default::default(),
            clock: 0,
        })
    }

    /// How many fillings the table lists (set bits of its operation sets).
    #[cfg(test)]
    pub(super) fn fillings(&self) -> usize {
        self.ops[0]
            .iter()
            .zip(self.ops[1].iter())
            .map(|(a, b)| (a | b).count_ones() as usize)
            .sum()
    }

    #[inline]
    fn set(&self, p: usize, v: u32) -> &[u64] {
        let at = (p * self.stride + v as usize) * self.words;
        &self.sets[at..at + self.words]
    }

    /// What [`super::solver`]'s enumeration finds for the cage under `cand` through the
    /// operations `ops` (its `ADD`/`MUL` bits; a shown cage ignores them), or `None` when some
    /// position has a candidate outside the table's base, or when the query is left to the
    /// enumeration (no kept query to start from, and narrow candidates: [`SCRATCH_SHARE`]).
    pub(super) fn query(&mut self, cand: &[u16; MAX_CAGE], ops: u8) -> Option<MemoVal> {
        let size = self.size;
        for p in 0..size {
            if cand[p] & !self.base[p] != 0 {
                return None;
            }
        }
        // Start from the latest kept query whose candidates hold these (an ancestor of this
        // search node, mostly), else from every filling of the operations asked for, or leave
        // narrow candidates to the enumeration, which is quicker there than a walk over every
        // word.
        let src = (0..SNAPS)
            .filter(|&k| {
                let s = &self.snaps[k];
                s.age != 0 && s.ops == ops && (0..size).all(|p| cand[p] & !s.cand[p] == 0)
            })
            .max_by_key(|&k| self.snaps[k].age);
        if src.is_none() {
            let mut share = 1.0f64;
            for p in 0..size {
                share *= cand[p].count_ones() as f64 / self.base[p].count_ones() as f64;
            }
            if share < SCRATCH_SHARE {
                return None;
            }
        }
        let victim = (0..SNAPS)
            .filter(|&k| Some(k) != src)
            .min_by_key(|&k| self.snaps[k].age)
            .expect("two snapshots or more");
        self.clock += 1;
        let mut snap = std::mem::take(&mut self.snaps[victim]);
        snap.age = self.clock;
        snap.ops = ops;
        snap.live.resize(self.words, 0);
        let from = match src {
            Some(k) => {
                let s = &self.snaps[k];
                snap.nz.clear();
                snap.nz.extend_from_slice(&s.nz);
                for &wi in &s.nz {
                    snap.live[wi as usize] = s.live[wi as usize];
                }
                s.cand
            }
            None => {
                let live = &mut snap.live;
                if self.hidden {
                    match ops & 3 {
                        0 => live.fill(0),
                        1 => live.copy_from_slice(&self.ops[0]),
                        2 => live.copy_from_slice(&self.ops[1]),
                        _ => {
                            for ((l, a), m) in live.iter_mut().zip(&self.ops[0]).zip(&self.ops[1]) {
                                *l = a | m;
                            }
                        }
                    }
                } else {
                    live.copy_from_slice(&self.ops[0]);
                }
                snap.nz.clear();
                for (wi, &x) in live.iter().enumerate() {
                    if x != 0 {
                        snap.nz.push(wi as u32);
                    }
                }
                self.base
            }
        };
        snap.cand = *cand;
        let words = self.words;
        let Snap { live, nz, .. } = &mut snap;
        // Narrow by each position whose candidates are fewer than where it started from,
        // fewest first, visiting only the words that still hold fillings.
        let mut order = [0u8; MAX_CAGE];
        let mut no = 0;
        for p in 0..size {
            if cand[p] != from[p] {
                order[no] = p as u8;
                no += 1;
            }
        }
        order[..no].sort_unstable_by_key(|&p| cand[p as usize].count_ones());
        for &p in &order[..no] {
            if nz.is_empty() {
                break;
            }
            let p = p as usize;
            let c = cand[p];
            let mut vs = [0usize; 16];
            let mut nv = 0;
            let mut m = c;
            while m != 0 {
                vs[nv] = (p * self.stride + m.trailing_zeros() as usize) * words;
                nv += 1;
                m &= m - 1;
            }
            let sets = &self.sets;
            nz.retain(|&wi| {
                let wi = wi as usize;
                let mut x = 0u64;
                for &at in &vs[..nv] {
                    x |= sets[at + wi];
                }
                live[wi] &= x;
                live[wi] != 0
            });
        }
        let mut out = MemoVal {
            support: [0; MAX_CAGE],
            need: [u16::MAX; 2 * MAX_CAGE],
            found: !nz.is_empty(),
            alive: 0,
            steps: 0,
        };
        if out.found {
            let meets = |s: &[u64]| nz.iter().any(|&wi| live[wi as usize] & s[wi as usize] != 0);
            for p in 0..size {
                let c = cand[p];
                if c.is_power_of_two() {
                    out.support[p] = c;
                    continue;
                }
                let mut m = c;
                while m != 0 {
                    let v = m.trailing_zeros();
                    m &= m - 1;
                    if meets(self.set(p, v)) {
                        out.support[p] |= 1 << v;
                    }
                }
            }
            for l in 0..self.nlines {
                let on = self.line_pos[l];
                let mut maybe = 0u16;
                let mut o = on;
                while o != 0 {
                    let p = o.trailing_zeros() as usize;
                    o &= o - 1;
                    maybe |= out.support[p];
                }
                let mut need = 0u16;
                let mut m = maybe;
                while m != 0 {
                    let v = m.trailing_zeros();
                    m &= m - 1;
                    // Every filling left puts v at one of the line's positions.
                    let every = nz.iter().all(|&wi| {
                        let wi = wi as usize;
                        let mut x = 0u64;
                        let mut o = on;
                        while o != 0 {
                            let p = o.trailing_zeros() as usize;
                            o &= o - 1;
                            x |= self.sets[(p * self.stride + v as usize) * words + wi];
                        }
                        live[wi] & !x == 0
                    });
                    if every {
                        need |= 1 << v;
                    }
                }
                out.need[l] = need;
            }
            out.alive = if self.hidden {
                let mut a = 0u8;
                for j in 0..2 {
                    if ops >> j & 1 != 0 && meets(&self.ops[j]) {
                        a |= 1 << j;
                    }
                }
                a
            } else {
                1
            };
        }
        self.snaps[victim] = snap;
        Some(out)
    }
}

/// The depth-first walk listing a cage's fillings for [`CageTable::build`].
struct Walk<'a> {
    size: usize,
    pl: &'a [(u8, u8)],
    base: &'a [u16; MAX_CAGE],
    t: u64,
    want_add: bool,
    want_mul: bool,
    hidden: bool,
    /// Suffix sums of the base candidates' minima and maxima.
    sufmin: [u64; MAX_CAGE + 1],
    sufmax: [u64; MAX_CAGE + 1],
    vals: [u8; MAX_CAGE],
    /// Per cage line: the values the prefix puts on it.
    used: [u16; 2 * MAX_CAGE],
    /// The fillings, `size` values each, and per filling its operation bits.
    out: Vec<u8>,
    marks: Vec<u8>,
    max: usize,
    /// Steps so far, and the most allowed.
    work: u64,
    max_work: u64,
    /// Which limit stopped the walk.
    over: Option<TableLimit>,
}

/// Why [`CageTable::build`] gave up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TableLimit {
    /// More fillings than allowed.
    Fillings,
    /// More steps than allowed.
    Work,
}

impl Walk<'_> {
    fn walk(&mut self, k: usize, sum: u64, prod: u64) {
        if self.over.is_some() {
            return;
        }
        self.work += 1;
        if self.work > self.max_work {
            self.over = Some(TableLimit::Work);
            return;
        }
        let add_ok =
            self.want_add && sum + self.sufmin[k] <= self.t && self.t <= sum + self.sufmax[k];
        let mul_ok = self.want_mul && prod <= self.t && self.t.is_multiple_of(prod);
        if !add_ok && !mul_ok {
            return;
        }
        if k == self.size {
            let mut m = 0u8;
            if add_ok && sum == self.t {
                m |= 1;
            }
            if mul_ok && prod == self.t {
                m |= if self.hidden { 2 } else { 1 };
            }
            if m != 0 {
                if self.marks.len() >= self.max {
                    self.over = Some(TableLimit::Fillings);
                    return;
                }
                self.work += self.size as u64;
                self.out.extend_from_slice(&self.vals[..self.size]);
                self.marks.push(m);
            }
            return;
        }
        let (r, c) = self.pl[k];
        let (r, c) = (r as usize, c as usize);
        let mut m = self.base[k] & !(self.used[r] | self.used[c]);
        while m != 0 {
            let v = m.trailing_zeros();
            m &= m - 1;
            let bit = 1u16 << v;
            self.vals[k] = v as u8;
            self.used[r] |= bit;
            self.used[c] |= bit;
            self.walk(k + 1, sum + v as u64, prod * v as u64);
            self.used[r] &= !bit;
            self.used[c] &= !bit;
        }
    }
}
