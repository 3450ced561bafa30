//! Search on top of the ladder: count answers up to a cap, with a node cap that answers
//! "unknown" (never a guess); and the next-deduction hint.

#![allow(clippy::needless_range_loop)]

use super::bits::Bits;
use super::board::Board;
use super::ladder::{Ctx, Outcome, Rung, Rungs, State, Work, climb, climb_observed};

/// The node budget of restart `k` (0-based) when `left` nodes remain: the Luby unit, or all
/// that is left when less than one and a half units would remain.
fn restart_budget(k: u64, left: u64) -> u64 {
    let budget = WALK_UNIT_NODES.saturating_mul(luby(k + 1));
    if left <= budget + budget / 2 {
        left
    } else {
        budget
    }
}

/// How many answers a board has, as far as the search could tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// Exactly this many (the search finished below the cap).
    Exact(u64),
    /// At least the cap (the search stopped on reaching it).
    AtLeast(u64),
    /// The node cap was hit first; `found` answers were seen so far.
    Unknown { found: u64 },
}

impl Count {
    pub fn is_unique(&self) -> bool {
        matches!(self, Count::Exact(1))
    }
    pub fn describe(&self) -> String {
        match self {
            Count::Exact(k) => format!("{k}"),
            Count::AtLeast(k) => format!(">={k}"),
            Count::Unknown { found } => format!("unknown (>={found}, node cap hit)"),
        }
    }
}

/// The result of a counting search.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub count: Count,
    /// Why there is no answer, when the parity law or the root ladder says so.
    pub reason: Option<String>,
    /// The answers found (at most the cap), row-major 1..n.
    pub answers: Vec<Vec<u32>>,
    /// Search nodes (ladder climbs), including the root.
    pub nodes: u64,
    pub work: Work,
}

/// Search limits.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Stop after this many answers.
    pub cap: u64,
    /// Give up ("unknown") after this many nodes.
    pub node_cap: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            cap: 2,
            node_cap: 1_000_000,
        }
    }
}

enum Stop {
    Cap,
    Nodes,
}

struct Searcher<'a> {
    ctx: &'a Ctx,
    rungs: Rungs,
    limits: Limits,
    nodes: u64,
    answers: Vec<Vec<u32>>,
    work: Work,
}

impl Searcher<'_> {
    fn dfs(&mut self, mut st: State) -> Result<(), Stop> {
        self.nodes += 1;
        if self.nodes > self.limits.node_cap {
            return Err(Stop::Nodes);
        }
        match climb(self.ctx, &mut st, self.rungs, &mut self.work) {
            Outcome::Dead(_) => return Ok(()),
            Outcome::Solved => {
                self.answers.push(st.values());
                if self.answers.len() as u64 >= self.limits.cap {
                    return Err(Stop::Cap);
                }
                return Ok(());
            }
            Outcome::Stalled => {}
        }
        // Branch on the smallest choice: a cell's numbers or a number's cells.
        let mut best_cell = (u32::MAX, 0);
        for (c, b) in st.cv.iter().enumerate() {
            let k = b.count();
            if k > 1 && k < best_cell.0 {
                best_cell = (k, c);
            }
        }
        let mut best_val = (u32::MAX, 0);
        for (v, b) in st.vc.iter().enumerate() {
            let k = b.count();
            if k > 1 && k < best_val.0 {
                best_val = (k, v);
            }
        }
        if best_cell.0 == u32::MAX && best_val.0 == u32::MAX {
            // Fully pinned but the ladder could not confirm it (rungs switched off): verify.
            return Ok(());
        }
        if best_cell.0 <= best_val.0 {
            let c = best_cell.1;
            for v in st.cv[c].iter() {
                let mut t = st.clone();
                if t.assign(c, v).is_ok() {
                    self.dfs(t)?;
                }
            }
        } else {
            let v = best_val.1;
            for c in st.vc[v].iter() {
                let mut t = st.clone();
                if t.assign(c, v).is_ok() {
                    self.dfs(t)?;
                }
            }
        }
        Ok(())
    }
}

/// Count the answers of `board`: the ladder `rungs` to its fixpoint at the root, then the walk
/// search ([`super::walk_search`]) from the root's candidates.
pub fn count(board: &Board, rungs: Rungs, limits: Limits) -> Verdict {
    let ctx = Ctx::of(board);
    count_in(&ctx, board, rungs, limits)
}

/// The parity law and the printed numbers' consistency, before any search.
fn root_state(board: &Board) -> Result<State, Verdict> {
    let dead = |reason: String| Verdict {
        count: Count::Exact(0),
        reason: Some(reason),
        answers: Vec::new(),
        nodes: 0,
        work: Work::default(),
    };
    if let Some(reason) = board.parity_violation() {
        return Err(dead(reason));
    }
    State::new(board).map_err(|d| dead(d.0.to_string()))
}

/// [`count`] with a prepared context (benches, studies). One node is the root climb; every
/// further node is one number placed by the walk.
pub fn count_in(ctx: &Ctx, board: &Board, rungs: Rungs, limits: Limits) -> Verdict {
    let mut st = match root_state(board) {
        Ok(s) => s,
        Err(v) => return v,
    };
    let mut work = Work::default();
    // The probe is a solving rung (hints, grades); for counting, the walk search below prunes
    // more per unit of work than the probe does at the root (on a blank 10x10 the probe alone
    // costs a minute).
    let root = rungs.without(super::ladder::Rung::Probe);
    let (count, answers, nodes) = match climb(ctx, &mut st, root, &mut work) {
        Outcome::Dead(_) => (Count::Exact(0), Vec::new(), 1),
        Outcome::Solved => {
            let c = if limits.cap <= 1 {
                Count::AtLeast(1)
            } else {
                Count::Exact(1)
            };
            (c, vec![st.values()], 1)
        }
        Outcome::Stalled => {
            let (count, answers, walked) = if limits.cap == 2 {
                decide_two(ctx, board, &st.cv, limits)
            } else {
                walk_restarts(ctx, &st.cv, limits, Vec::new())
            };
            (count, answers, 1 + walked)
        }
    };
    Verdict {
        count,
        reason: None,
        answers,
        nodes,
        work,
    }
}

/// The unit of the walks' node budgets in [`walk_restarts`] (walk k gets this many times the
/// k-th term of the Luby sequence 1, 1, 2, 1, 1, 2, 4, ...).
pub const WALK_UNIT_NODES: u64 = 512;

pub use crate::engine::restart::luby;

/// The walk search from the root candidates `cand`, with restarts: walk k explores the same tree
/// from the other end on odd k and with tie-break k/2 in its next-cell order, under a node budget
/// of [`WALK_UNIT_NODES`] times the k-th Luby term (many short walks, now and then a long one;
/// the last walk gets what is left of `limits.node_cap - 1`).
/// A walk that finishes has seen the whole tree: its count is exact. Answers found by different
/// walks are pooled (distinct answers of the same board), so a board with two answers is called
/// `2+` as soon as any walks together have met two, however deep a single walk is stuck.
///
/// `known` holds answers already found (by an earlier phase): they join the pool, so that a
/// walk stopped by its budget after meeting another answer still makes two.
pub fn walk_restarts(
    ctx: &Ctx,
    cand: &[Bits],
    limits: Limits,
    known: Vec<Vec<u32>>,
) -> (Count, Vec<Vec<u32>>, u64) {
    use super::walk_search::{Walk, WalkStop};
    let total = limits.node_cap.saturating_sub(1);
    let mut used = 0u64;
    let mut pool: Vec<Vec<u32>> = known;
    let mut k = 0u64;
    loop {
        let b = restart_budget(k, total - used);
        let mut w = Walk::with_order(&ctx.geo, cand, limits.cap, b, k % 2 == 1, k / 2);
        let stop = w.run().err();
        used += w.nodes.min(b);
        match stop {
            None => return (Count::Exact(w.answers.len() as u64), w.answers, used),
            Some(WalkStop::Cap) => {
                return (Count::AtLeast(w.answers.len() as u64), w.answers, used);
            }
            Some(WalkStop::Nodes) => {}
        }
        for a in w.answers {
            if !pool.contains(&a) {
                pool.push(a);
            }
        }
        if pool.len() as u64 >= limits.cap {
            pool.truncate(limits.cap as usize);
            return (Count::AtLeast(limits.cap), pool, used);
        }
        if used >= total {
            return (
                Count::Unknown {
                    found: pool.len() as u64,
                },
                pool,
                used,
            );
        }
        k += 1;
    }
}

/// Nodes the restarts of [`first_answer`] spend without meeting an answer before the root's
/// failed-literal pass ([`probe_root`]). Nearly every board meets one well before (sparse 12×12
/// reveals: median decision about 1,500 nodes, about one in 700 past this); the pass costs one
/// node per root candidate pair and sweep (a few thousand pairs on a sparse 12×12 root), and
/// each of its nodes is a climb, dearer than a placement of the walks.
/// Measured on 2,700 unselected sparse 12×12 reveals: passes at 32,768 nodes cost 10% more
/// nodes in all (most boards probed there met an answer soon anyway); at 131,072 the totals
/// stay within 0.2% and the boards that had hit the node cap are decided.
pub const PROBE_AFTER_NODES: u64 = 131_072;

/// The failed-literal pass at the root: each candidate number of each open cell (cells with the
/// fewest candidates first) is placed in turn and the ladder's search rungs (pin, link, edge)
/// climbed; a placement they find dead is dropped from the root, and the root climbed again to
/// its fixpoint. Sweeps repeat until one drops nothing or `budget` nodes are spent (one node per
/// placement tried). Returns the narrowed candidates — None when nothing was dropped, or when
/// the root itself turned out dead (only a complete walk calls a tree empty) — and the nodes
/// spent. The rungs only drop candidates no answer uses, so every answer of `cand` survives.
///
/// The ladder's own probe ([`super::ladder::Rung::Probe`]) does the same inside a climb, going
/// back to the bottom rung after each drop (quadratic on a sparse board); this pass keeps
/// sweeping instead, and is run only on boards whose restarts have not met an answer soon.
pub fn probe_root(ctx: &Ctx, cand: &[Bits], budget: u64) -> (Option<Vec<Bits>>, u64) {
    let rungs = Rungs::DECIDE.without(Rung::Probe);
    let mut st = State::of_cands(cand);
    let mut work = Work::default();
    let mut used = 0u64;
    let mut dropped = false;
    loop {
        let mut swept = false;
        for (_, c) in super::ladder::probe_order(&st) {
            for v in st.cv[c].iter() {
                if used >= budget {
                    return (dropped.then_some(st.cv), used);
                }
                used += 1;
                let mut t = st.clone();
                let dead = t.assign(c, v).is_err()
                    || matches!(climb(ctx, &mut t, rungs, &mut work), Outcome::Dead(_));
                if !dead {
                    continue;
                }
                let keep = st.cv[c].and_not(Bits::single(v));
                let live = st.restrict_cell(c, keep).is_ok()
                    && !matches!(climb(ctx, &mut st, rungs, &mut work), Outcome::Dead(_));
                if !live {
                    return (None, used);
                }
                dropped = true;
                swept = true;
            }
        }
        if !swept {
            return (dropped.then_some(st.cv), used);
        }
    }
}

/// The first answer of the decision: restarts of the run filling
/// ([`super::walk_search::RunFill`]: the runs between pinned numbers filled tightest first)
/// alternating with restarts of the walk search ([`super::walk_search::Walk`], as in
/// [`walk_restarts`]), each engine's k-th restart under [`WALK_UNIT_NODES`] times the k-th Luby
/// term, within `total` nodes. Boards on which one engine's order goes astray are often easy for
/// the other. Once [`PROBE_AFTER_NODES`] are spent with no answer met, the root candidates
/// `cand` are narrowed by the failed-literal pass ([`probe_root`], its nodes counted) and the
/// restarts begin again on them, from the first Luby term; the caller's later phases search the
/// narrowed candidates too (they hold every answer). Returns an answer of the board (checked
/// with [`Board::is_answer`]) and the nodes spent; None when a walk proved the tree empty, a run
/// filling found its tree empty, or the budget ran out (the caller's exhaustive walk then
/// decides).
pub fn first_answer(
    ctx: &Ctx,
    board: &Board,
    cand: &mut Vec<Bits>,
    total: u64,
) -> (Option<Vec<u32>>, u64) {
    use super::walk_search::{RunFill, Walk, WalkStop};
    let mut used = 0u64;
    let mut fill = true; // the root pins a number (else the walks alone)
    let mut j = 0u64;
    let mut probed = false;
    while used < total {
        if !probed && used >= PROBE_AFTER_NODES {
            probed = true;
            let (narrowed, spent) = probe_root(ctx, cand, total - used);
            used += spent;
            if let Some(c) = narrowed {
                *cand = c;
                fill = true;
                j = 0;
            }
            continue;
        }
        let walk_turn = j % 2 == 1 || !fill;
        let k = if fill { j / 2 } else { j };
        j += 1;
        let b = restart_budget(k, total - used);
        if walk_turn {
            let mut w = Walk::with_order(&ctx.geo, cand, 1, b, k % 2 == 1, k / 2);
            let stop = w.run().err();
            used += w.nodes.min(b);
            match stop {
                Some(WalkStop::Cap) => {
                    let a = w.answers.pop().expect("an answer at cap 1");
                    return (board.is_answer(&a).then_some(a), used);
                }
                None => return (None, used),
                Some(WalkStop::Nodes) => {}
            }
            continue;
        }
        let Some(f) = RunFill::new(&ctx.geo, cand, b, k) else {
            fill = false;
            j = 0;
            continue;
        };
        // The first run filling goes without the costlier prunings (most boards are filled
        // within its budget); the later ones take the degree test and the split.
        let mut f = f.with_checks(k > 0, k > 0);
        let r = f.run();
        used += f.nodes.min(b);
        match r {
            Ok(true) => {
                let a = f.answer.take().expect("a found answer");
                return (board.is_answer(&a).then_some(a), used);
            }
            Ok(false) => return (None, used),
            Err(_) => {}
        }
    }
    (None, used)
}

/// Node budget of the scan for a second answer next to the first ([`super::second`]).
pub const LOCAL_NODES: u64 = 50_000;

/// The decision at cap 2 (one answer, or two): a first answer A from [`first_answer`] (the run
/// filling and the walk search, restarted in turns; if neither meets one, the walk search with
/// restarts decides alone, to an answer or to an exact 0); then a second answer looked for next to A ([`super::second::second_answer`]: another
/// path through the cells of a few consecutive runs between printed numbers), which decides
/// "2+" with no search of the whole board; only if none is found, the walk search again with A
/// pooled, to a second answer or to exhaustion (an exact count). All three phases share the
/// node cap.
pub fn decide_two(
    ctx: &Ctx,
    board: &Board,
    cand: &[Bits],
    limits: Limits,
) -> (Count, Vec<Vec<u32>>, u64) {
    let first = Limits {
        cap: 1,
        node_cap: limits.node_cap,
    };
    let total = limits.node_cap.saturating_sub(1);
    // The root candidates, as the first phase may narrow them (they keep every answer).
    let mut cand = cand.to_vec();
    let (found, filled) = first_answer(ctx, board, &mut cand, total);
    let (a, used) = match found {
        Some(a) => (a, filled),
        None => {
            // No answer met: the walk search decides (an empty tree is only ever called empty
            // by a complete walk of its own).
            let first = Limits {
                cap: 1,
                node_cap: first.node_cap.saturating_sub(filled),
            };
            let (count, answers, used) = walk_restarts(ctx, &cand, first, Vec::new());
            match count {
                Count::AtLeast(_) => (
                    answers.into_iter().next().expect("an answer at cap 1"),
                    filled + used,
                ),
                // No answer (exhaustive), or none found within the node cap.
                other => return (other, answers, filled + used),
            }
        }
    };
    let left = total.saturating_sub(used);
    let local = super::second::second_answer(&ctx.geo, board, &a, LOCAL_NODES.min(left));
    let used = used + local.nodes;
    if let Some(b) = local.second {
        return (Count::AtLeast(2), vec![a, b], used);
    }
    let rest = Limits {
        cap: 2,
        // walk_restarts spends node_cap - 1 (the root climb is the first node).
        node_cap: total.saturating_sub(used) + 1,
    };
    let (count, answers, walked) = walk_restarts(ctx, &cand, rest, vec![a]);
    (count, answers, used + walked)
}

/// The ladder's own search (an independent decision procedure, kept to cross-check the walk):
/// the ladder `rungs` at every node, branching on the smallest choice of a cell's numbers or a
/// number's cells.
pub fn count_ladder_search(ctx: &Ctx, board: &Board, rungs: Rungs, limits: Limits) -> Verdict {
    let st = match root_state(board) {
        Ok(s) => s,
        Err(v) => return v,
    };
    let mut s = Searcher {
        ctx,
        rungs,
        limits,
        nodes: 0,
        answers: Vec::new(),
        work: Work::default(),
    };
    let stop = s.dfs(st).err();
    let found = s.answers.len() as u64;
    let count = match stop {
        None => Count::Exact(found),
        Some(Stop::Cap) => Count::AtLeast(found),
        Some(Stop::Nodes) => Count::Unknown { found },
    };
    Verdict {
        count,
        reason: None,
        answers: s.answers,
        nodes: s.nodes,
        work: s.work,
    }
}

/// Whether the ladder alone (no search) finishes the board.
pub fn ladder_finishes(ctx: &Ctx, board: &Board, rungs: Rungs, work: &mut Work) -> bool {
    if board.parity_violation().is_some() {
        return false;
    }
    match State::new(board) {
        Ok(mut st) => climb(ctx, &mut st, rungs, work) == Outcome::Solved,
        Err(_) => false,
    }
}

/// The next deduction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hint {
    /// A blank cell the ladder can fill, the rung that pinned it and why.
    Place {
        cell: usize,
        value: u32,
        rung: Rung,
        reason: String,
    },
    /// The board has no answer.
    NoAnswer(String),
    /// Every cell is printed already.
    Complete,
    /// The ladder stalls before pinning any new cell: only search goes further.
    Stalled { pairs: u64 },
}

/// The next cell the ladder pins (printed cells excluded), with its rung and reason.
pub fn hint(board: &Board, rungs: Rungs) -> Hint {
    if let Some(r) = board.parity_violation() {
        return Hint::NoAnswer(r);
    }
    if board.clue_count() == board.n() {
        return if board.is_answer(&board.givens) {
            Hint::Complete
        } else {
            Hint::NoAnswer("the printed numbers do not form a path".into())
        };
    }
    let ctx = Ctx::of(board);
    let mut st = match State::new(board) {
        Ok(s) => s,
        Err(d) => return Hint::NoAnswer(d.0.into()),
    };
    let mut known: Vec<bool> = st.cv.iter().map(|b| b.count() == 1).collect();
    let mut found: Option<(usize, u32, Rung)> = None;
    let mut work = Work::default();
    let outcome = climb_observed(&ctx, &mut st, rungs, &mut work, &mut |r, s| {
        for c in 0..s.n {
            if !known[c] && s.cv[c].count() == 1 {
                found = Some((c, s.cv[c].min().unwrap() as u32 + 1, r));
                return true;
            }
        }
        // Track cells pinned by a rung in the same call as others, in cell order.
        for c in 0..s.n {
            known[c] |= s.cv[c].count() == 1;
        }
        false
    });
    if let Some((cell, value, rung)) = found {
        let g = ctx.geo;
        let reason = explain(board, &g, cell, value, rung);
        return Hint::Place {
            cell,
            value,
            rung,
            reason,
        };
    }
    match outcome {
        Outcome::Dead(d) => Hint::NoAnswer(d.0.into()),
        _ => Hint::Stalled { pairs: st.pairs() },
    }
}

fn explain(
    board: &Board,
    g: &super::board::Geometry,
    cell: usize,
    value: u32,
    rung: Rung,
) -> String {
    let name = g.name(cell);
    let n = board.n() as u32;
    match rung {
        Rung::Pin => format!(
            "pin: {value} has no other cell left, or {name} has no other number left (bijection bookkeeping)"
        ),
        Rung::Link => {
            // The chain neighbours of `value`: one at a path end, two elsewhere.
            let homes = match (value > 1, value < n) {
                (true, true) => format!("a home of {} and a home of {}", value - 1, value + 1),
                (false, true) => format!("a home of {} (1 starts the path)", value + 1),
                (true, false) => format!("a home of {} ({n} ends the path)", value - 1),
                (false, false) => "nothing (a one-cell board)".to_string(),
            };
            format!(
                "link: {name} must neighbour {homes} for {value}, and no other number survives there (chain rule)"
            )
        }
        Rung::Ruler => format!("ruler: every other number of {name} is out of walking distance"),
        Rung::Block => format!(
            "block: a window of consecutive numbers needs exactly its own cells, leaving {name} only {value}"
        ),
        Rung::Edge => format!(
            "edge: the path's degree count forces the edges at {name}, and the run they glue into leaves only {value}"
        ),
        Rung::Probe => {
            format!("probe: every other number at {name} leads the lower rungs to a contradiction")
        }
    }
}

/// Cells (row-major) of a 0-based cell set, for messages.
pub fn cells_of(b: Bits) -> Vec<usize> {
    b.iter().collect()
}
