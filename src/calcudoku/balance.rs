//! Line-block balance: a deduction of the search, outside the grading ladder.
//!
//! Every row and every column holds 1..=n once. So over a block of k consecutive rows (or
//! columns) the values sum to k·n(n+1)/2, and the exponent of each prime p ≤ n sums to k times
//! its exponent in n!. Each such total (a *feature*: the value, or the exponent of 2, 3, 5 or 7)
//! is a linear equation over the block's cells, grouped by cage. A cage's total over all its
//! cells lies in a window fixed by its target and the operations it may use (a shown + cage: the
//! target exactly; a shown × cage: the prime's exponent in the target; otherwise the least and
//! greatest total over the fillings its operations allow, without the in-cage line rule; a
//! hidden cage counts only the operations some filling under the current candidates still
//! reaches, as its last enumeration found them, [`State::alive`]), so the
//! part of a cage inside a block is that window minus its part outside. Bounds propagation on the
//! equation (each part between the block's total and the other parts' bounds) removes the
//! values whose feature no longer fits, inside the block and, through the cage's window, outside
//! it. This is the "rule of 45" of Killer Sudoku solvers, for every feature and block at once.
//!
//! The rungs of the ladder see one cage or one line at a time; this sees many cages and lines
//! together, which is what the tail's failed subtrees need. It only removes values (and removes
//! at least as much from fewer candidates), so it is sound wherever it runs; the search runs it
//! after each node's fixpoint, alternating with the fixpoint until neither changes anything.

use super::board::{Board, MAX_CELLS, MAX_ORDER, Op};
use super::solver::State;

/// Features: the value itself, then the exponents of 2, 3, 5 and 7.
const FEATURES: usize = 5;
const PRIMES: [u32; FEATURES] = [0, 2, 3, 5, 7];

fn feature(fi: usize, v: u32) -> i32 {
    if fi == 0 {
        return v as i32;
    }
    // The exponents of 2, 3, 5, 7 come packed a byte each, in the order of `PRIMES[1..]`.
    (super::solver::VALUE_EXPS[v as usize] >> (8 * (fi - 1)) & 0xff) as i32
}

/// Per feature and candidate mask: the least and greatest feature of its values; per feature
/// and feature value, the values that have it.
struct MaskTables {
    lo: [[i8; 1 << (MAX_ORDER + 1)]; FEATURES],
    hi: [[i8; 1 << (MAX_ORDER + 1)]; FEATURES],
    with: [[u16; MAX_ORDER + 1]; FEATURES],
}

fn mask_tables() -> &'static MaskTables {
    static T: std::sync::OnceLock<Box<MaskTables>> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let mut t = Box::new(MaskTables {
            lo: [[0; 1 << (MAX_ORDER + 1)]; FEATURES],
            hi: [[0; 1 << (MAX_ORDER + 1)]; FEATURES],
            with: [[0; MAX_ORDER + 1]; FEATURES],
        });
        for fi in 0..FEATURES {
            for v in 1..=MAX_ORDER as u32 {
                t.with[fi][feature(fi, v) as usize] |= 1 << v;
            }
            for m in 0..1usize << (MAX_ORDER + 1) {
                let vals = (1..=MAX_ORDER as u32).filter(|v| m >> v & 1 == 1);
                let fs: Vec<i32> = vals.map(|v| feature(fi, v)).collect();
                t.lo[fi][m] = fs.iter().copied().min().unwrap_or(0) as i8;
                t.hi[fi][m] = fs.iter().copied().max().unwrap_or(0) as i8;
            }
        }
        t
    })
}

/// The least and greatest total of feature `fi` over the fillings of `k` cells with values
/// 1..=n that reach `target` with `op` (the in-cage line rule left out: a superset, so sound).
/// None when no filling reaches it.
fn op_window(fi: usize, op: Op, target: u64, k: usize, n: usize) -> Option<(i32, i32)> {
    let merge = |a: Option<(i32, i32)>, x: (i32, i32)| match a {
        None => Some(x),
        Some((l, h)) => Some((l.min(x.0), h.max(x.1))),
    };
    let mut out: Option<(i32, i32)> = None;
    match op {
        Op::Given => {
            if k == 1 && (1..=n as u64).contains(&target) {
                let f = feature(fi, target as u32);
                out = Some((f, f));
            }
        }
        Op::Sub | Op::Div => {
            if k == 2 {
                for a in 1..=n as u64 {
                    for b in 1..=n as u64 {
                        let holds = if op == Op::Sub {
                            a.abs_diff(b) == target
                        } else {
                            a.max(b) == target * a.min(b)
                        };
                        if holds {
                            let f = feature(fi, a as u32) + feature(fi, b as u32);
                            out = merge(out, (f, f));
                        }
                    }
                }
            }
        }
        Op::Add => {
            if target < k as u64 || target > (n * k) as u64 {
                return None;
            }
            let t = target as usize;
            let mut dp: Vec<Option<(i32, i32)>> = vec![None; t + 1];
            dp[0] = Some((0, 0));
            for _ in 0..k {
                let mut next = vec![None; t + 1];
                for (s, w) in dp.iter().enumerate() {
                    let Some((l, h)) = *w else { continue };
                    for v in 1..=n {
                        if s + v > t {
                            break;
                        }
                        let f = feature(fi, v as u32);
                        next[s + v] = merge(next[s + v], (l + f, h + f));
                    }
                }
                dp = next;
            }
            out = dp[t];
        }
        Op::Mul => {
            let mut dp: Vec<(u64, (i32, i32))> = vec![(1, (0, 0))];
            for _ in 0..k {
                let mut next: Vec<(u64, (i32, i32))> = Vec::new();
                for &(p, (l, h)) in &dp {
                    for v in 1..=n as u64 {
                        let q = p * v;
                        if !target.is_multiple_of(q) {
                            continue;
                        }
                        let f = feature(fi, v as u32);
                        match next.iter_mut().find(|e| e.0 == q) {
                            Some(e) => e.1 = (e.1.0.min(l + f), e.1.1.max(h + f)),
                            None => next.push((q, (l + f, h + f))),
                        }
                    }
                }
                dp = next;
            }
            out = dp.iter().find(|e| e.0 == target).map(|e| e.1);
        }
        Op::Any => {
            for &o in Op::hidden_ops(k) {
                if let Some(w) = op_window(fi, o, target, k, n) {
                    out = merge(out, w);
                }
            }
        }
    }
    out
}

type Windows = [(i32, i32); FEATURES];

/// [`op_window`] for every feature, remembered per thread by (operation, target, cells, order).
fn cage_window(op: Op, target: u64, k: usize, n: usize) -> Option<Windows> {
    use std::cell::RefCell;
    use std::collections::HashMap;
    type Cache = HashMap<(Op, u64, usize, usize), Option<Windows>>;
    thread_local! {
        static CACHE: RefCell<Cache> = RefCell::new(HashMap::new());
    }
    CACHE.with(|c| {
        *c.borrow_mut().entry((op, target, k, n)).or_insert_with(|| {
            let mut w = [(0, 0); FEATURES];
            for (fi, wf) in w.iter_mut().enumerate() {
                *wf = op_window(fi, op, target, k, n)?;
            }
            Some(w)
        })
    })
}

/// The cells of one cage on one line.
#[derive(Clone, Copy)]
struct Seg {
    cage: u8,
    start: u16,
    end: u16,
}

/// The balance tables of one board: each cage's window per feature, and the cages that touch
/// each row and each column.
pub struct Balance {
    features: usize,
    /// Per feature: the total over one line (the feature summed over 1..=n).
    line_total: [i32; FEATURES],
    /// Per cage, per mask of the operations still reached ([`State::alive`], low four
    /// bits), and per feature: the window of the cage's total.
    window: Vec<[Windows; 16]>,
    /// Per orientation (rows, columns), line after line: the cages with a cell on the line, in
    /// cage order, each with its cells on that line (`seg_cells[start..end]`); line `l`'s are
    /// `segs[o][line_segs[o][l]..line_segs[o][l + 1]]`.
    segs: [Vec<Seg>; 2],
    line_segs: [[usize; MAX_ORDER + 1]; 2],
    seg_cells: Vec<u8>,
    /// Per orientation and cell: its line (row, column).
    line_of: [[u8; MAX_CELLS]; 2],
    /// Some cage has no filling at all.
    empty: bool,
}

impl Balance {
    pub fn new(b: &Board) -> Balance {
        let n = b.n;
        let features = 1 + PRIMES[1..].iter().filter(|&&p| p as usize <= n).count();
        let mut line_total = [0; FEATURES];
        for (fi, t) in line_total.iter_mut().enumerate().take(features) {
            *t = (1..=n as u32).map(|v| feature(fi, v)).sum();
        }
        let mut empty = false;
        let mut window = Vec::with_capacity(b.cages.len());
        for (i, cage) in b.cages.iter().enumerate() {
            let (k, t) = (cage.cells.len(), cage.target);
            let hidden = b.cage_hidden(i);
            let op = if hidden { Op::Any } else { cage.op };
            let Some(all) = cage_window(op, t, k, n) else {
                empty = true;
                window.push([[(0, 0); FEATURES]; 16]);
                continue;
            };
            let mut per_mask = [all; 16];
            if hidden {
                let ops = Op::hidden_ops(k);
                for (m, w) in per_mask.iter_mut().enumerate().skip(1) {
                    let mut u: Option<Windows> = None;
                    for (j, &o) in ops.iter().enumerate() {
                        if m >> j & 1 == 0 {
                            continue;
                        }
                        let Some(x) = cage_window(o, t, k, n) else {
                            continue;
                        };
                        u = Some(match u {
                            None => x,
                            Some(mut y) => {
                                for (a, b) in y.iter_mut().zip(x.iter()) {
                                    *a = (a.0.min(b.0), a.1.max(b.1));
                                }
                                y
                            }
                        });
                    }
                    // No filling of those operations: the cage's enumeration fails the
                    // node anyway, so the full window serves.
                    *w = u.unwrap_or(all);
                }
            }
            window.push(per_mask);
        }
        let mut line_of = [[0u8; MAX_CELLS]; 2];
        let [rows, cols] = &mut line_of;
        for (c, (r, k)) in rows.iter_mut().zip(cols.iter_mut()).enumerate().take(n * n) {
            (*r, *k) = ((c / n) as u8, (c % n) as u8);
        }
        let mut segs = [Vec::new(), Vec::new()];
        let mut line_segs = [[0; MAX_ORDER + 1]; 2];
        let mut seg_cells = Vec::new();
        for (o, (segs, starts)) in segs.iter_mut().zip(line_segs.iter_mut()).enumerate() {
            for (l, start_l) in starts.iter_mut().enumerate().take(n) {
                *start_l = segs.len();
                for (i, cage) in b.cages.iter().enumerate() {
                    let start = seg_cells.len() as u16;
                    seg_cells.extend(
                        cage.cells
                            .iter()
                            .filter(|&&c| line_of[o][c as usize] as usize == l),
                    );
                    let end = seg_cells.len() as u16;
                    if end > start {
                        segs.push(Seg {
                            cage: i as u8,
                            start,
                            end,
                        });
                    }
                }
            }
            starts[n] = segs.len();
        }
        Balance {
            features,
            line_total,
            window,
            segs,
            line_segs,
            seg_cells,
            line_of,
            empty,
        }
    }

    /// Propagate every block and feature once. Some(true) if values were removed, None on a
    /// contradiction (a block whose parts cannot reach its total, or a cell left empty).
    ///
    /// A feature's pass reads the candidates only through each cell's least and greatest
    /// feature. So a feature whose bounds equal ones recorded in `quiet` as removing nothing
    /// would remove nothing again and is skipped; every feature that removes nothing is
    /// recorded. The result is the same as with an empty `quiet`.
    pub fn propagate(&self, b: &Board, st: &mut State, quiet: &mut Quiet) -> Option<bool> {
        if self.empty {
            return None;
        }
        let n = b.n;
        let nn = n * n;
        let t = mask_tables();
        let mut changed = false;
        let mut lo = [0i32; MAX_CELLS];
        let mut hi = [0i32; MAX_CELLS];
        let mut cl = [0i32; MAX_CELLS];
        let mut ch = [0i32; MAX_CELLS];
        let mut inl = [0i32; MAX_CELLS];
        let mut inh = [0i32; MAX_CELLS];
        // Per cage in the block: the least and greatest total of its part inside it.
        let mut pl = [0i32; MAX_CELLS];
        let mut ph = [0i32; MAX_CELLS];
        let mut seen = [u32::MAX; MAX_CELLS];
        let mut touched = [0usize; MAX_CELLS];
        let mut nt;
        // A fresh stamp per block start marks the cages already in `touched`.
        let mut pass = 0u32;
        let nc = b.cages.len();
        let mut wm = [0u8; MAX_CELLS];
        for (m, &a) in wm.iter_mut().zip(st.alive.iter()).take(nc) {
            *m = a & 15;
        }
        if quiet.alive[..nc] != wm[..nc] {
            quiet.known = 0;
            quiet.alive = wm;
        }
        for fi in 0..self.features {
            let mut same = quiet.known >> fi & 1 == 1;
            for c in 0..nn {
                let m = st.cands[c] as usize;
                let (l, h) = (t.lo[fi][m], t.hi[fi][m]);
                same &= quiet.lo[fi][c] == l && quiet.hi[fi][c] == h;
                quiet.lo[fi][c] = l;
                quiet.hi[fi][c] = h;
                lo[c] = l as i32;
                hi[c] = h as i32;
            }
            if same {
                continue;
            }
            quiet.known &= !(1 << fi);
            let changed_before = changed;
            changed = false;
            for (i, cage) in b.cages.iter().enumerate() {
                let (mut a, mut z) = (0, 0);
                for &c in &cage.cells {
                    a += lo[c as usize];
                    z += hi[c as usize];
                }
                cl[i] = a;
                ch[i] = z;
            }
            // Each cage's window of this feature under its operations still reached.
            let mut win = [(0i32, 0i32); MAX_CELLS];
            for (w, (ws, &m)) in win.iter_mut().zip(self.window.iter().zip(wm.iter())) {
                *w = ws[m as usize][fi];
            }
            for orient in 0..2 {
                let line_of = &self.line_of[orient];
                // Per segment (a cage's cells on a line): the bounds of its cells.
                let segs = &self.segs[orient];
                let mut sl = [0i32; MAX_CELLS];
                let mut sh = [0i32; MAX_CELLS];
                for (k, seg) in segs.iter().enumerate() {
                    for &c in &self.seg_cells[seg.start as usize..seg.end as usize] {
                        sl[k] += lo[c as usize];
                        sh[k] += hi[c as usize];
                    }
                }
                for a0 in 0..n {
                    nt = 0;
                    pass += 1;
                    let stamp = pass;
                    // The sums of the parts' bounds over the cages in `touched`, kept as the
                    // block grows by one line: only the cages on the new line change parts.
                    let (mut slo, mut shi) = (0i32, 0i32);
                    // At least every part's width in the block (widths set as it grew).
                    let mut wmax = i32::MIN;
                    for a1 in a0..n {
                        for k in self.line_segs[orient][a1]..self.line_segs[orient][a1 + 1] {
                            let i = segs[k].cage as usize;
                            if seen[i] != stamp {
                                seen[i] = stamp;
                                inl[i] = 0;
                                inh[i] = 0;
                                touched[nt] = i;
                                nt += 1;
                            } else {
                                slo -= pl[i];
                                shi -= ph[i];
                            }
                            inl[i] += sl[k];
                            inh[i] += sh[k];
                            // The part inside the block: its cells' bounds, and the window
                            // less the most and least its cells outside can take.
                            let (wl, wh) = win[i];
                            pl[i] = inl[i].max(wl - (ch[i] - inh[i]));
                            ph[i] = inh[i].min(wh - (cl[i] - inl[i]));
                            slo += pl[i];
                            shi += ph[i];
                            wmax = wmax.max(ph[i] - pl[i]);
                        }
                        if orient == 1 && a0 == 0 && a1 == n - 1 {
                            continue; // the whole board, already seen as rows
                        }
                        let total = (a1 - a0 + 1) as i32 * self.line_total[fi];
                        if slo > total || shi < total {
                            return None;
                        }
                        let (gap_lo, gap_hi) = (total - slo, shi - total);
                        let gap = gap_lo.min(gap_hi);
                        // No part wider than the gap (`wmax` bounds every part's width since
                        // the block began): nothing to narrow.
                        if wmax <= gap {
                            continue;
                        }
                        for &i in &touched[..nt] {
                            let (l, h) = (pl[i], ph[i]);
                            if h - l <= gap {
                                continue;
                            }
                            let (wl, wh) = win[i];
                            let (ol, oh) = (cl[i] - inl[i], ch[i] - inh[i]);
                            // The cage's part inside the block, and its part outside.
                            let (a, z) = ((h - gap_hi).max(l), (l + gap_lo).min(h));
                            let (oa, oz) = ((wl - z).max(ol), (wh - a).min(oh));
                            for &c in &b.cages[i].cells {
                                let c = c as usize;
                                let l = line_of[c] as usize;
                                let l_in = l >= a0 && l <= a1;
                                let (wlo, whi) = if l_in {
                                    (a - (inh[i] - hi[c]), z - (inl[i] - lo[c]))
                                } else {
                                    (oa - (oh - hi[c]), oz - (ol - lo[c]))
                                };
                                if lo[c] >= wlo && hi[c] <= whi {
                                    continue;
                                }
                                let mut keep = 0u16;
                                for f in wlo.max(0)..=whi.min(MAX_ORDER as i32) {
                                    keep |= t.with[fi][f as usize];
                                }
                                changed |= st.narrow(b, c, keep)?;
                            }
                        }
                    }
                }
            }
            if !changed {
                quiet.known |= 1 << fi;
            }
            changed |= changed_before;
        }
        Some(changed)
    }
}

/// Per feature: cell bounds under which [`Balance::propagate`] removed nothing (valid for the
/// features whose bit is set in `known`).
#[derive(Clone)]
pub struct Quiet {
    known: u8,
    /// The cages' operation masks the bounds were recorded under.
    alive: [u8; MAX_CELLS],
    lo: [[i8; MAX_CELLS]; FEATURES],
    hi: [[i8; MAX_CELLS]; FEATURES],
}

impl Quiet {
    /// Record nothing (for a node that did not run the balance).
    pub fn forget(&mut self) {
        self.known = 0;
    }
}

impl Default for Quiet {
    fn default() -> Self {
        Quiet {
            known: 0,
            alive: [0; MAX_CELLS],
            lo: [[0; MAX_CELLS]; FEATURES],
            hi: [[0; MAX_CELLS]; FEATURES],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calcudoku::generate::seeded_board;
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Windows by brute force: every filling of k cells with 1..=n that the operation(s) allow.
    fn brute_window(fi: usize, op: Op, target: u64, k: usize, n: usize) -> Option<(i32, i32)> {
        let mut out: Option<(i32, i32)> = None;
        let mut vals = vec![1u8; k];
        loop {
            if crate::calcudoku::board::op_holds(op, target, &vals) {
                let f: i32 = vals.iter().map(|&v| feature(fi, v as u32)).sum();
                out = Some(match out {
                    None => (f, f),
                    Some((l, h)) => (l.min(f), h.max(f)),
                });
            }
            let mut j = 0;
            while j < k && vals[j] as usize == n {
                vals[j] = 1;
                j += 1;
            }
            if j == k {
                return out;
            }
            vals[j] += 1;
        }
    }

    #[test]
    fn windows_match_brute_force() {
        for n in [4usize, 6, 9] {
            for k in 1..=4 {
                for op in [Op::Add, Op::Mul, Op::Sub, Op::Div, Op::Given, Op::Any] {
                    for target in 1..=60u64 {
                        for fi in 0..FEATURES {
                            assert_eq!(
                                op_window(fi, op, target, k, n),
                                brute_window(fi, op, target, k, n),
                                "n {n} k {k} {op:?} {target} feature {fi}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// Balance never removes a value of the answer: on states that keep the answer (cells
    /// pinned to it, random removals of other values) it neither fails nor removes an answer
    /// value, and it does remove values on some of them.
    #[test]
    #[allow(clippy::needless_range_loop)]
    fn never_removes_an_answer_value() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut pruned = 0u64;
        let mut narrowed = 0u64;
        for trial in 0..600u64 {
            let n = 4 + (trial % 6) as usize;
            let max_cage = 2 + (trial % 7) as usize;
            let hide = trial % 3 == 0;
            let (b, answer) = seeded_board(n, max_cage, hide, trial);
            let bal = Balance::new(&b);
            let mut st = State::new(&b);
            for c in 0..n * n {
                let a = answer[c] as u32;
                if rng.random_bool(0.3) {
                    st.cands[c] = 1 << a;
                } else {
                    for v in 1..=n as u32 {
                        if v != a && rng.random_bool(0.4) {
                            st.cands[c] &= !(1 << v);
                        }
                    }
                }
            }
            // Every other state has its cages enumerated first, so the windows of hidden cages
            // come from the operations their fillings still reach.
            if trial % 2 == 1 {
                let rungs =
                    crate::calcudoku::solver::Rungs::only(crate::calcudoku::solver::Rung::Cage);
                let mut ctx = crate::calcudoku::solver::Ctx::new();
                crate::calcudoku::solver::fixpoint(&b, &mut st, rungs, &mut ctx)
                    .expect("the answer is a filling of every cage");
                narrowed += st.alive[..b.cages.len()]
                    .iter()
                    .enumerate()
                    .filter(|&(i, &a)| {
                        b.cage_hidden(i)
                            && a != (1u8 << Op::hidden_ops(b.cages[i].cells.len()).len()) - 1
                    })
                    .count() as u64;
            }
            let before: u32 = st.cands[..n * n].iter().map(|m| m.count_ones()).sum();
            let mut quiet = Quiet::default();
            loop {
                match bal.propagate(&b, &mut st, &mut quiet) {
                    None => panic!("trial {trial}: a contradiction on a state with the answer"),
                    Some(false) => break,
                    Some(true) => {}
                }
            }
            for c in 0..n * n {
                assert!(
                    st.cands[c] >> answer[c] & 1 == 1,
                    "trial {trial}: cell {c} lost the answer's value"
                );
            }
            let after: u32 = st.cands[..n * n].iter().map(|m| m.count_ones()).sum();
            pruned += (before - after) as u64;
        }
        assert!(pruned > 0, "the test states gave balance nothing to remove");
        assert!(
            narrowed > 100,
            "{narrowed} hidden cages with an operation ruled out"
        );
    }
    /// Skipping the features recorded as quiet changes nothing: a child state (its parent's
    /// fixpoint with more values removed) propagated from the parent's record ends exactly
    /// where a propagation with no record ends, and the records do get used.
    #[test]
    #[allow(clippy::needless_range_loop)]
    fn quiet_record_changes_no_result() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let mut skipped = 0u64;
        // Propagate to the balance's fixpoint, keeping the record across calls or starting
        // every call from an empty one (nothing ever skipped).
        let to_fixpoint = |b: &Board, st: &mut State, q: &mut Quiet, keep: bool| {
            let bal = Balance::new(b);
            loop {
                if !keep {
                    *q = Quiet::default();
                }
                match bal.propagate(b, st, q) {
                    None => return false,
                    Some(false) => return true,
                    Some(true) => {}
                }
            }
        };
        for trial in 0..400u64 {
            let n = 5 + (trial % 5) as usize;
            let (b, answer) = seeded_board(n, 2 + (trial % 7) as usize, trial % 2 == 0, trial);
            let mut st = State::new(&b);
            for c in 0..n * n {
                if rng.random_bool(0.25) {
                    st.cands[c] = 1 << answer[c];
                }
            }
            let mut q = Quiet::default();
            assert!(to_fixpoint(&b, &mut st, &mut q, true));
            for _child in 0..3 {
                let mut child = st.clone();
                for c in 0..n * n {
                    for v in 1..=n as u32 {
                        if v != answer[c] as u32 && rng.random_bool(0.1) {
                            child.cands[c] &= !(1 << v);
                        }
                    }
                }
                let known = q.known;
                let mut with_record = child.clone();
                let mut qc = q.clone();
                let a = to_fixpoint(&b, &mut with_record, &mut qc, true);
                let mut plain = child.clone();
                let z = to_fixpoint(&b, &mut plain, &mut Quiet::default(), false);
                assert_eq!(a, z, "trial {trial}");
                assert_eq!(with_record.cands, plain.cands, "trial {trial}");
                if known != 0 {
                    skipped += 1;
                }
            }
        }
        assert!(
            skipped > 100,
            "records were used on {skipped} children only"
        );
    }
}
