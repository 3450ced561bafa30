//! Candidates, the six rungs, the ladder, node-capped search and hints.
//!
//! Candidates are bitmasks: bit `v` set means value `v` (1..=n) is still possible. The rungs
//! form a table of deduction functions in the style of Simon Tatham's solvers ([`RUNGS`]); the
//! ladder runs the enabled ones lowest first and restarts from the bottom whenever one makes
//! progress, until none does.

use super::board::{Board, MAX_CAGE, MAX_CELLS, MAX_ORDER, Op, cell_name, line_cells, line_name};
use super::table::{CageTable, TableLimit};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rung {
    Cage = 0,
    Single = 1,
    Hidden = 2,
    Must = 3,
    Subset = 4,
    Probe = 5,
}

pub const RUNG_COUNT: usize = 6;
pub const ALL_RUNGS: [Rung; RUNG_COUNT] = [
    Rung::Cage,
    Rung::Single,
    Rung::Hidden,
    Rung::Must,
    Rung::Subset,
    Rung::Probe,
];

impl Rung {
    pub fn name(self) -> &'static str {
        RUNGS[self as usize].name
    }
    pub fn from_name(s: &str) -> Option<Rung> {
        ALL_RUNGS.iter().copied().find(|r| r.name() == s)
    }
}

impl std::fmt::Display for Rung {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of enabled rungs (bit i = rung i).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rungs(pub u8);

impl Rungs {
    pub const ALL: Rungs = Rungs(0b11_1111);
    pub const NONE: Rungs = Rungs(0);
    pub fn only(r: Rung) -> Rungs {
        Rungs(1 << r as u8)
    }
    pub fn with(self, r: Rung) -> Rungs {
        Rungs(self.0 | 1 << r as u8)
    }
    pub fn without(self, r: Rung) -> Rungs {
        Rungs(self.0 & !(1 << r as u8))
    }
    pub fn has(self, r: Rung) -> bool {
        self.0 >> r as u8 & 1 != 0
    }
    /// The enabled rungs strictly below `r`.
    pub fn below(self, r: Rung) -> Rungs {
        Rungs(self.0 & ((1u8 << r as u8) - 1))
    }
    /// Parse `all`, `none`, `default` (= all) or a comma list of rung names.
    pub fn parse(s: &str) -> Result<Rungs, String> {
        match s.trim() {
            "all" | "default" => return Ok(Rungs::ALL),
            "none" | "" => return Ok(Rungs::NONE),
            _ => {}
        }
        let mut r = Rungs::NONE;
        for part in s.split(',') {
            let p = part.trim();
            let rung = Rung::from_name(p).ok_or_else(|| {
                format!("unknown rung '{p}' (rungs: cage, single, hidden, must, subset, probe)")
            })?;
            r = r.with(rung);
        }
        Ok(r)
    }
    pub fn names(self) -> String {
        let v: Vec<&str> = ALL_RUNGS
            .iter()
            .filter(|&&r| self.has(r))
            .map(|r| r.name())
            .collect();
        if v.is_empty() {
            "none".into()
        } else {
            v.join(",")
        }
    }
}

/// What one rung did: candidates removed, cells it settled (left with one candidate), and
/// actions that changed something.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RungStat {
    pub removed: u64,
    pub settled: u64,
    pub fired: u64,
}

pub type RungStats = [RungStat; RUNG_COUNT];

/// Why a rung or the ladder stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Some cell, line or cage has no possibility left.
    Contradiction,
    /// Hint mode: one deduction was made and described.
    Hint,
}

/// One deduction, for `hint`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    pub rung: Rung,
    pub reason: String,
}

/// Bookkeeping shared by the rungs: per-rung stats, the current rung, hint mode.
pub struct Ctx {
    pub stats: RungStats,
    pub hint: Option<Hint>,
    hint_mode: bool,
    rung: usize,
    /// Enumeration results of large cages by their cells' candidates, for one board (set by
    /// [`solve_with`], which owns the context for that board alone).
    memo: Option<Box<Memo>>,
    /// Where the last contradiction was met, if one was: a cage (its index; a cell emptied or
    /// no filling left) or a line (`LINE_FAIL` + line: a value with no place, too few values
    /// for a set of cells). Search weighs its branching by these failures.
    fail_at: Option<u8>,
}

/// `Ctx::fail_at` of line `l` is `LINE_FAIL + l` (cage indices stay below it).
const LINE_FAIL: u8 = 128;

/// No position (see `Enum::first_unsup`).
const NO_POS: usize = usize::MAX;

/// Cages of at least this many cells have their enumerations remembered.
const MEMO_MIN_CAGE: usize = 5;
/// The memo is cleared when it reaches this many entries.
const MEMO_MAX: usize = 1 << 17;

/// A memo key: the cage, the operations enumerated and its cells' candidates.
#[derive(Clone, Copy, PartialEq, Eq)]
struct MemoKey(u8, u8, [u16; MAX_CAGE]);

impl std::hash::Hash for MemoKey {
    /// One word for the hasher instead of 34 bytes: the candidates (10 bits each at most)
    /// folded with the cage and operations. Equal keys fold alike; the map compares whole keys.
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let mut x = (self.0 as u64) << 8 | self.1 as u64;
        for &c in &self.2 {
            x = x.rotate_left(10) ^ c as u64;
        }
        h.write_u64(x);
    }
}

/// What a cage's enumeration finds: per position the values some filling puts there, per cage
/// line the values every filling puts on it, whether a filling exists, and the operations
/// some filling reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MemoVal {
    pub(super) support: [u16; MAX_CAGE],
    pub(super) need: [u16; 2 * MAX_CAGE],
    pub(super) found: bool,
    /// The operations some filling reaches (see [`State::alive`]).
    pub(super) alive: u8,
    /// The enumeration's recursive steps (0 when read from a table).
    pub(super) steps: u32,
}

#[derive(Default)]
struct Memo {
    map: std::collections::HashMap<MemoKey, MemoVal>,
    /// Per cage: the operations ([`ADD`], [`MUL`]) some filling reaches with every value still
    /// possible (filled in at the first enumeration). A hidden cage of three cells or more
    /// whose target no sum (or no product) reaches skips that enumeration at every node: with
    /// fewer candidates it would find nothing either.
    ops: Vec<u8>,
    /// States known to be fixpoints of the rungs below probe (see [`Witnesses`]).
    wit: Witnesses,
    /// The root's candidates (all cells), once the search has them: every state the memo
    /// serves is inside them, so cage tables are built under them.
    root: Vec<u16>,
    /// Per cage: its table (see [`super::table`]), or the work of its enumerations so far.
    tables: Vec<TableSlot>,
}

/// A cage's table in [`Memo::tables`].
enum TableSlot {
    /// Not built yet: the work of the cage's enumerations so far (their steps, each at least
    /// one), and the work at which the next attempt is made.
    Waiting(u64, u64),
    Ready(Box<CageTable>),
    /// Too many fillings to list.
    Never,
}

/// Cages of at least this many cells get a table ([`super::table`]) once their enumerations
/// have cost [`TABLE_FIRST_WORK`] steps and listing their fillings costs no more steps than a
/// [`TABLE_WORK_SHARE`]th of what their enumerations have so far (an attempt stops there, and
/// the next is made when the enumerations have cost twice as much), so that a table never
/// costs much more than the enumerations it replaces; tables of more than
/// [`TABLE_MAX_FILLINGS`] fillings are not built. The constants were chosen on the 9×9 cages
/// 1–6 and 1–8 hidden sets (docs/calcudoku-tail.md).
const TABLE_MIN_CAGE: usize = 4;
const TABLE_FIRST_WORK: u64 = 1 << 12;
const TABLE_WORK_SHARE: u64 = 4;
const TABLE_MAX_FILLINGS: usize = 1 << 18;

/// Witnesses for the probe's trials. A state the rungs below probe leave alone, with no
/// contradiction and either unsettled somewhere or an answer, is a *fixpoint*. A trial
/// "cell = v" from a state `st` ends in the greatest fixpoint below `st` with the cell set to
/// v (the fixpoint does not depend on the rungs' order, see [`fixpoint`]); so when a known
/// fixpoint `w` has the cell settled to v and `w ⊆ st` (each cell's candidates in `w` among
/// those in `st`), the trial ends in a state holding `w`: it does not fail, finds nothing, and
/// is skipped. The search's nodes (after their own work, without probe) and the trials that do
/// not fail are such fixpoints; the store keeps, per (cell, value), the latest one that has
/// the cell settled to that value. Only states with no operation chosen by the search are
/// kept (a chosen operation is a constraint of the node, not of the board).
#[derive(Default)]
struct Witnesses {
    /// The rungs the kept states are fixpoints of.
    rungs: Option<Rungs>,
    states: Vec<[u16; MAX_CELLS]>,
    /// Per cell · 16 + value: 1 + the index in `states` of its witness, or 0.
    of: Vec<u32>,
}

impl Witnesses {
    /// Keep `st`, a fixpoint of `rungs` (see [`Witnesses`]), as the witness of every value it
    /// settles.
    fn add(&mut self, b: &Board, st: &State, rungs: Rungs) {
        if st.op_chosen != 0 {
            return;
        }
        if self.rungs != Some(rungs) {
            self.rungs = Some(rungs);
            self.states.clear();
            self.of.clear();
        }
        let nn = b.n * b.n;
        if self.of.is_empty() {
            self.of = vec![0; nn * 16];
        }
        let idx = self.states.len() as u32 + 1;
        let mut any = false;
        for (c, &m) in st.cands[..nn].iter().enumerate() {
            if m.is_power_of_two() {
                self.of[c * 16 + m.trailing_zeros() as usize] = idx;
                any = true;
            }
        }
        if any {
            self.states.push(st.cands);
        }
    }

    /// Does a kept fixpoint of `rungs` settle `cell` to `v` within `st` (so that the trial
    /// "cell = v" from `st` finds nothing)?
    fn covers(&self, b: &Board, st: &State, rungs: Rungs, cell: usize, v: u32) -> bool {
        if self.rungs != Some(rungs) || st.op_chosen != 0 || self.of.is_empty() {
            return false;
        }
        let k = self.of[cell * 16 + v as usize];
        if k == 0 {
            return false;
        }
        let w = &self.states[k as usize - 1];
        let nn = b.n * b.n;
        w[..nn]
            .iter()
            .zip(st.cands[..nn].iter())
            .fold(0u16, |acc, (&x, &y)| acc | (x & !y))
            == 0
    }
}

/// Bits of [`Memo::ops`].
const ADD: u8 = 1;
const MUL: u8 = 2;

impl Memo {
    /// Cage `i`'s enumeration under `cand` through `ops` from its table, building the table
    /// once its enumerations have cost enough (see [`TABLE_MIN_CAGE`]); `None` where there is
    /// no table (yet), `cand` is not inside it, or the table leaves `cand` to the enumeration.
    fn tabled(&mut self, b: &Board, i: usize, cand: &[u16; MAX_CAGE], ops: u8) -> Option<MemoVal> {
        let size = b.cages[i].cells.len();
        if size < TABLE_MIN_CAGE || self.root.is_empty() {
            return None;
        }
        if self.tables.is_empty() {
            self.tables = (0..b.cages.len())
                .map(|_| TableSlot::Waiting(0, TABLE_FIRST_WORK))
                .collect();
        }
        if let TableSlot::Waiting(work, next) = self.tables[i] {
            if work < next {
                return None;
            }
            let mut base = [0u16; MAX_CAGE];
            for (x, &c) in base.iter_mut().zip(b.cages[i].cells.iter()) {
                *x = self.root[c as usize];
            }
            let most = work / TABLE_WORK_SHARE;
            self.tables[i] = match CageTable::build(b, i, &base, TABLE_MAX_FILLINGS, most) {
                Ok(t) => TableSlot::Ready(Box::new(t)),
                Err(TableLimit::Fillings) => TableSlot::Never,
                Err(TableLimit::Work) => TableSlot::Waiting(work, work.saturating_mul(2)),
            };
        }
        match &mut self.tables[i] {
            TableSlot::Ready(t) => t.query(cand, ops),
            _ => None,
        }
    }

    /// Count an enumeration of cage `i` that took `steps` towards building its table.
    fn enumerated(&mut self, i: usize, steps: u32) {
        if let Some(TableSlot::Waiting(work, _)) = self.tables.get_mut(i) {
            *work += steps as u64 + 1;
        }
    }

    fn ops(&mut self, b: &Board, i: usize) -> u8 {
        if self.ops.is_empty() {
            let full = [full_mask(b.n); MAX_CAGE];
            self.ops = (0..b.cages.len())
                .map(|j| {
                    if !b.cage_hidden(j) || b.cages[j].cells.len() < 3 {
                        return ADD | MUL;
                    }
                    [ADD, MUL]
                        .into_iter()
                        .filter(|&op| enumerate(b, j, &full, op).found)
                        .fold(0, |m, op| m | op)
                })
                .collect();
        }
        self.ops[i]
    }
}

impl Ctx {
    pub fn new() -> Ctx {
        Ctx {
            stats: [RungStat::default(); RUNG_COUNT],
            hint: None,
            hint_mode: false,
            rung: 0,
            memo: None,
            fail_at: None,
        }
    }
    pub fn hinting() -> Ctx {
        Ctx {
            hint_mode: true,
            ..Ctx::new()
        }
    }
}

impl Default for Ctx {
    fn default() -> Self {
        Ctx::new()
    }
}

const MAX_CAGE_LINES: usize = 2 * MAX_CELLS;

/// The solver state: candidates plus the cage-enumeration cache.
#[derive(Clone)]
pub struct State {
    pub cands: [u16; MAX_CELLS],
    /// Per cell: the values some filling of its cage uses (valid while the cage is not dirty).
    support: [u16; MAX_CELLS],
    /// Per (cage, line): the values every filling of the cage puts on that line.
    need: [u16; MAX_CAGE_LINES],
    /// Cages whose cells changed since their last enumeration.
    dirty: u128,
    /// Cages whose cells changed since the cage rung last applied their support.
    stale: u128,
    /// Settled cells the single rung has already propagated.
    single_done: u128,
    /// Cages whose needed values (`need`, unchanged since) the must rung has already taken
    /// off their lines: doing it again removes nothing.
    must_done: u128,
    /// Lines (rows 0..n, columns n..2n) the subset rung found nothing in and whose cells have
    /// not changed since (cleared by every removal in the line).
    subset_done: u32,
    /// Lines the hidden rung found nothing in and whose cells have not changed since.
    hidden_done: u32,
    /// Per cage with a hidden sign: bit j set while some filling under the candidates (as of
    /// the cage's last enumeration) reaches the target with `Op::hidden_ops(size)[j]`; all
    /// bits set before the first. Other cages: bit 0 while a filling exists. It only loses
    /// bits as candidates shrink, so a stale value is a superset of the live one.
    pub alive: [u8; MAX_CELLS],
    /// Hidden cages of three cells or more whose operation the search has chosen (bit per
    /// cage); the choice is `MUL` where `op_mul` has the cage's bit, else `ADD`. Their
    /// enumerations reach the target through the chosen operation only.
    op_chosen: u128,
    op_mul: u128,
}

#[inline]
fn bits(mut m: u16) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let b = m.trailing_zeros();
            m &= m - 1;
            Some(b)
        }
    })
}

/// `{2,5}` for a candidate mask.
pub fn mask_text(m: u16) -> String {
    let v: Vec<String> = bits(m).map(|b| b.to_string()).collect();
    v.join(",")
}

pub fn full_mask(n: usize) -> u16 {
    ((1u32 << (n + 1)) - 2) as u16
}

impl State {
    pub fn new(b: &Board) -> State {
        let mut cands = [0u16; MAX_CELLS];
        let full = full_mask(b.n);
        for c in cands.iter_mut().take(b.n * b.n) {
            *c = full;
        }
        let all: u128 = if b.cages.len() == 128 {
            u128::MAX
        } else {
            (1u128 << b.cages.len()) - 1
        };
        State {
            cands,
            support: [0; MAX_CELLS],
            need: [0; MAX_CAGE_LINES],
            dirty: all,
            stale: all,
            single_done: 0,
            must_done: 0,
            subset_done: 0,
            hidden_done: 0,
            alive: [u8::MAX; MAX_CELLS],
            op_chosen: 0,
            op_mul: 0,
        }
    }

    /// The operations ([`ADD`], [`MUL`]) the search still allows hidden cage `i` of three cells
    /// or more.
    #[inline]
    fn ops_allowed(&self, i: usize) -> u8 {
        let bit = 1u128 << i;
        if self.op_chosen & bit == 0 {
            ADD | MUL
        } else if self.op_mul & bit != 0 {
            MUL
        } else {
            ADD
        }
    }

    /// Let hidden cage `i` (three cells or more) reach its target only through `op` ([`ADD`]
    /// or [`MUL`]), and mark it for the rungs to look at again.
    fn choose_op(&mut self, i: usize, op: u8) {
        let bit = 1u128 << i;
        self.op_chosen |= bit;
        if op == MUL {
            self.op_mul |= bit;
        } else {
            self.op_mul &= !bit;
        }
        self.dirty |= bit;
        self.stale |= bit;
    }

    /// Set a cell to one value (for search branches and probes). No stats are recorded.
    pub fn assign(&mut self, b: &Board, cell: usize, v: u32) {
        self.set_cands(b, cell, 1 << v);
    }

    /// Give a cell new candidates and mark its cage and lines for the rungs to look at again.
    #[inline]
    fn set_cands(&mut self, b: &Board, cell: usize, m: u16) {
        self.cands[cell] = m;
        let bit = 1u128 << b.cage_of[cell];
        self.dirty |= bit;
        self.stale |= bit;
        let lb = line_bits(b.n, cell);
        self.subset_done &= !lb;
        self.hidden_done &= !lb;
    }

    /// Keep only `keep` of a cell's candidates (for deductions outside the rungs): Some(true)
    /// if values were removed, None if none would be left. No stats are recorded.
    #[inline]
    pub fn narrow(&mut self, b: &Board, cell: usize, keep: u16) -> Option<bool> {
        let old = self.cands[cell];
        let new = old & keep;
        if new == old {
            return Some(false);
        }
        if new == 0 {
            return None;
        }
        self.set_cands(b, cell, new);
        Some(true)
    }

    pub fn solved(&self, b: &Board) -> bool {
        self.cands[..b.n * b.n].iter().all(|c| c.is_power_of_two())
    }

    /// The grid of a solved state (0 where a cell is not settled).
    pub fn grid(&self, b: &Board) -> Vec<u8> {
        self.cands[..b.n * b.n]
            .iter()
            .map(|&c| {
                if c.is_power_of_two() {
                    c.trailing_zeros() as u8
                } else {
                    0
                }
            })
            .collect()
    }
}

/// Per order and cell: the bits of the cell's row (0..n) and column (n..2n).
const LINE_BITS: [[u32; MAX_CELLS]; MAX_ORDER + 1] = {
    let mut t = [[0u32; MAX_CELLS]; MAX_ORDER + 1];
    let mut n = 1;
    while n <= MAX_ORDER {
        let mut c = 0;
        while c < n * n {
            t[n][c] = 1u32 << (c / n) | 1u32 << (n + c % n);
            c += 1;
        }
        n += 1;
    }
    t
};

/// The line bits (for `subset_done` and `hidden_done`) of a cell's row and column.
#[inline]
fn line_bits(n: usize, cell: usize) -> u32 {
    LINE_BITS[n][cell]
}

#[inline]
fn restrict(
    b: &Board,
    st: &mut State,
    ctx: &mut Ctx,
    cell: usize,
    keep: u16,
) -> Result<bool, Stop> {
    let old = st.cands[cell];
    match st.narrow(b, cell, keep) {
        Some(false) => return Ok(false),
        None => {
            ctx.fail_at = Some(b.cage_of[cell]);
            return Err(Stop::Contradiction);
        }
        Some(true) => {}
    }
    let new = st.cands[cell];
    let s = &mut ctx.stats[ctx.rung];
    s.removed += (old ^ new).count_ones() as u64;
    if new.is_power_of_two() {
        s.settled += 1;
    }
    Ok(true)
}

/// Close one action of a rung: count it and, in hint mode, stop with its reason.
#[inline]
fn action(ctx: &mut Ctx, changed: bool, reason: impl FnOnce() -> String) -> Result<(), Stop> {
    if changed {
        ctx.stats[ctx.rung].fired += 1;
        if ctx.hint_mode {
            ctx.hint = Some(Hint {
                rung: ALL_RUNGS[ctx.rung],
                reason: reason(),
            });
            return Err(Stop::Hint);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Cage enumeration (shared by the cage and must rungs)
// ---------------------------------------------------------------------------------------------

struct Enum<'a> {
    size: usize,
    pl: &'a [(u8, u8)],
    cand: [u16; MAX_CAGE],
    vals: [u8; MAX_CAGE],
    /// Suffix sums of candidate minima / maxima, suffix product of maxima.
    sufmin: [u32; MAX_CAGE + 1],
    sufmax: [u32; MAX_CAGE + 1],
    sufprod: [u64; MAX_CAGE + 1],
    /// Per position and over suffixes, the most of each prime 2, 3, 5, 7 a product can take
    /// from the candidates (packed by [`prime_exps`]).
    posexp: [u32; MAX_CAGE],
    sufexp: [u32; MAX_CAGE + 1],
    support: [u16; MAX_CAGE],
    need: [u16; 2 * MAX_CAGE],
    /// Per line: the values the prefix `vals[..k]` puts on it (kept by [`Enum::push`] and
    /// [`Enum::pop`]; positions sharing a line hold different values, so each bit has one
    /// owner).
    lm: [u16; 2 * MAX_CAGE],
    /// The first prefix position whose value it does not support yet, or `NO_POS`.
    first_unsup: usize,
    nlines: usize,
    found: bool,
    /// Positions whose support is still short of their candidates.
    open: u16,
    /// Some line still has a value every filling so far puts on it.
    needy: bool,
    /// Calls of the enumeration's recursive steps (a measure of its work).
    steps: u32,
}

impl<'a> Enum<'a> {
    /// An enumeration of `size` positions with their lines (row and column, numbered within
    /// the cage) and candidates; nothing recorded yet. The target bounds are set by
    /// [`Enum::set_bounds`] before enumerating.
    fn new(size: usize, pl: &'a [(u8, u8)], cand: [u16; MAX_CAGE], nlines: usize) -> Self {
        Enum {
            size,
            pl,
            cand,
            vals: [0; MAX_CAGE],
            sufmin: [0; MAX_CAGE + 1],
            sufmax: [0; MAX_CAGE + 1],
            sufprod: [1; MAX_CAGE + 1],
            posexp: [0; MAX_CAGE],
            sufexp: [0; MAX_CAGE + 1],
            support: [0; MAX_CAGE],
            need: [u16::MAX; 2 * MAX_CAGE],
            lm: [0; 2 * MAX_CAGE],
            first_unsup: NO_POS,
            nlines,
            found: false,
            open: ((1u32 << size) - 1) as u16,
            needy: true,
            steps: 0,
        }
    }

    /// Suffix sums of the candidates' minima and maxima and suffix products of the maxima (an
    /// empty candidate set counts as 0).
    fn set_bounds(&mut self) {
        for k in (0..self.size).rev() {
            let c = self.cand[k];
            let (lo, hi) = if c == 0 {
                (0, 0)
            } else {
                (c.trailing_zeros(), 15 - c.leading_zeros())
            };
            self.sufmin[k] = self.sufmin[k + 1] + lo;
            self.sufmax[k] = self.sufmax[k + 1] + hi;
            self.sufprod[k] = self.sufprod[k + 1].saturating_mul(hi as u64);
            let mut most = 0u32;
            for v in bits(c) {
                most = byte_max(most, VALUE_EXPS[v as usize]);
            }
            self.posexp[k] = most;
            self.sufexp[k] = self.sufexp[k + 1] + most;
        }
    }
}

impl Enum<'_> {
    /// Take the value of each settled position from the positions sharing a line with it (no
    /// filling puts it there), repeating while that settles more. The fillings are unchanged.
    /// The settled positions, or `None` when some position has no value left.
    fn propagate_settled(&mut self) -> Option<u16> {
        let mut done = 0u16;
        loop {
            let mut settled = 0u16;
            for k in 0..self.size {
                let c = self.cand[k];
                if c == 0 {
                    return None;
                }
                if c.is_power_of_two() {
                    settled |= 1 << k;
                }
            }
            let fresh = settled & !done;
            if fresh == 0 {
                return Some(settled);
            }
            done = settled;
            let mut f = fresh;
            while f != 0 {
                let p = f.trailing_zeros() as usize;
                f &= f - 1;
                let (r, c) = self.pl[p];
                let v = self.cand[p];
                for k in 0..self.size {
                    if k != p && (self.pl[k].0 == r || self.pl[k].1 == c) {
                        self.cand[k] &= !v;
                    }
                }
            }
        }
    }

    /// The candidates of position `k` that no prefix position sharing a line with it holds.
    #[inline]
    fn avail(&self, k: usize) -> u16 {
        let (r, c) = self.pl[k];
        self.cand[k] & !(self.lm[r as usize] | self.lm[c as usize])
    }

    /// Put `v` at position `k` (the prefix is `vals[..k]`, `v` one of `avail(k)`).
    #[inline]
    fn push(&mut self, k: usize, v: u32) {
        self.vals[k] = v as u8;
        let bit = 1u16 << v;
        let (r, c) = self.pl[k];
        debug_assert!((self.lm[r as usize] | self.lm[c as usize]) & bit == 0);
        self.lm[r as usize] ^= bit;
        self.lm[c as usize] ^= bit;
        if self.first_unsup == NO_POS && self.support[k] & bit == 0 {
            self.first_unsup = k;
        }
    }

    /// Take position `k`'s value off the prefix (the last one pushed).
    #[inline]
    fn pop(&mut self, k: usize) {
        let bit = 1u16 << self.vals[k];
        let (r, c) = self.pl[k];
        self.lm[r as usize] ^= bit;
        self.lm[c as usize] ^= bit;
        if self.first_unsup == k {
            self.first_unsup = NO_POS;
        }
    }

    /// Record the filling `vals` (every position pushed).
    #[inline]
    fn record(&mut self) {
        for k in 0..self.size {
            self.support[k] |= 1u16 << self.vals[k];
        }
        self.first_unsup = NO_POS;
        let mut needy = false;
        for (nd, m) in self.need.iter_mut().zip(self.lm.iter()).take(self.nlines) {
            *nd &= m;
            needy |= *nd != 0;
        }
        self.needy = needy;
        let mut open = self.open;
        let mut o = open;
        while o != 0 {
            let k = o.trailing_zeros() as usize;
            o &= o - 1;
            if self.support[k] == self.cand[k] {
                open &= !(1 << k);
            }
        }
        self.open = open;
        self.found = true;
    }

    /// Can the fillings below the prefix `vals[..k]` still change `support` or `need`? A
    /// filling adds to `support` only through a value its position does not support yet: one
    /// in the prefix, or an unsupported candidate `w` of a later position `j` that no prefix
    /// position sharing a line with `j` holds and that the remaining target still allows
    /// (`reach(j, w_mask)`, a necessary condition). It shrinks `need` of a line only if some
    /// value needed there is not already on that line in the prefix. Skipping subtrees that
    /// can do neither leaves `support` and `need` exactly as the full enumeration would (tests
    /// check this against the plain enumeration and against the unpruned one).
    #[inline]
    fn useful(&self, k: usize, reach: impl Fn(usize, u16) -> bool) -> bool {
        if self.first_unsup != NO_POS {
            return true;
        }
        let lm = &self.lm;
        if self.needy && (0..self.nlines).any(|l| self.need[l] & !lm[l] != 0) {
            return true;
        }
        let mut o = self.open >> k << k;
        while o != 0 {
            let j = o.trailing_zeros() as usize;
            o &= o - 1;
            let unsup = self.avail(j) & !self.support[j];
            if unsup != 0 && reach(j, unsup) {
                return true;
            }
        }
        false
    }

    #[inline]
    fn bounds(&self, j: usize) -> (i32, i32) {
        let c = self.cand[j];
        (c.trailing_zeros() as i32, 15 - c.leading_zeros() as i32)
    }

    /// Enumerate the sum fillings below `vals[..k]`; `PRUNE = false` visits every filling (the
    /// reference the tests compare the pruned enumeration with).
    fn add<const PRUNE: bool>(&mut self, k: usize, rem: i32) {
        self.steps += 1;
        if k == self.size {
            if rem == 0 {
                self.record();
            }
            return;
        }
        let (smin, smax) = (self.sufmin[k] as i32, self.sufmax[k] as i32);
        if PRUNE
            && !self.useful(k, |j, unsup| {
                // w at position j leaves rem - w for the other later positions.
                let (lo_j, hi_j) = self.bounds(j);
                let wlo = (rem - (smax - hi_j)).max(1);
                let whi = (rem - (smin - lo_j)).min(15);
                wlo <= whi && unsup & (((1u32 << (whi + 1)) - (1u32 << wlo)) as u16) != 0
            })
        {
            return;
        }
        // v leaves rem - v for the later positions, within their sums' bounds [lo, hi].
        let (lo, hi) = (self.sufmin[k + 1] as i32, self.sufmax[k + 1] as i32);
        let (vlo, vhi) = ((rem - hi).max(0), (rem - lo).min(15));
        if vlo > vhi {
            return;
        }
        let range = ((1u32 << (vhi + 1)) - (1u32 << vlo)) as u16;
        for v in bits(self.avail(k) & range) {
            let r = rem - v as i32;
            self.push(k, v);
            self.add::<PRUNE>(k + 1, r);
            self.pop(k);
        }
    }

    /// Value `v` (one of [`Enum::mul_vals`]) at position `k` of a product enumeration with `rem`
    /// left (`ex` = `prime_exps(rem)`): what is left after it and its exponents, or `None` when
    /// (`PRUNE`) it leaves primes the later positions cannot supply.
    #[inline]
    fn mul_step<const PRUNE: bool>(
        &self,
        k: usize,
        rem: u64,
        ex: u32,
        v: u32,
    ) -> Option<(u64, u32)> {
        let ex2 = ex - VALUE_EXPS[v as usize];
        if PRUNE && !exps_fit(ex2, self.sufexp[k + 1]) {
            return None;
        }
        Some((rem / v as u64, ex2))
    }

    /// The values of position `k` that [`Enum::mul_step`] may take: available, dividing `rem`
    /// (their exponents fit in `ex`, `fit` = `fit_mask(ex)`), and leaving no more than the later
    /// positions' largest values make (`rem / v <= sufprod[k + 1]`, that is `v` at least
    /// `rem / sufprod[k + 1]` rounded up).
    #[inline]
    fn mul_vals(&self, k: usize, rem: u64, fit: u16) -> u16 {
        let sp = self.sufprod[k + 1];
        if sp == 0 {
            return 0;
        }
        let lo = rem.div_ceil(sp);
        if lo > 15 {
            return 0;
        }
        self.avail(k) & fit & !((1u16 << lo) - 1)
    }

    /// Does some × filling of positions `k..` reach `rem` (the prefix `vals[..k]` fixed)?
    /// Records nothing. `ex` is `prime_exps(rem)`.
    fn any_mul(&mut self, k: usize, rem: u64, ex: u32) -> bool {
        self.steps += 1;
        if k == self.size {
            return rem == 1;
        }
        for v in bits(self.mul_vals(k, rem, fit_mask(ex))) {
            let Some((r, ex2)) = self.mul_step::<true>(k, rem, ex, v) else {
                continue;
            };
            self.push(k, v);
            let found = self.any_mul(k + 1, r, ex2);
            self.pop(k);
            if found {
                return true;
            }
        }
        false
    }

    /// Enumerate the product fillings below `vals[..k]` (`PRUNE` as for [`Enum::add`]). `ex`
    /// is `prime_exps(rem)`; the pruned enumeration also skips values after which the later
    /// positions cannot supply the primes 2, 3, 5, 7 the rest of the target holds.
    fn mul<const PRUNE: bool>(&mut self, k: usize, rem: u64, ex: u32) {
        self.steps += 1;
        if k == self.size {
            if rem == 1 {
                self.record();
            }
            return;
        }
        let fit = fit_mask(ex);
        if PRUNE
            && !self.useful(k, |j, unsup| {
                // w at position j leaves rem / w for the other later positions.
                let others = self.sufexp[k] - self.posexp[j];
                bits(unsup & fit).any(|w| exps_fit(ex - VALUE_EXPS[w as usize], others))
            })
        {
            return;
        }
        for v in bits(self.mul_vals(k, rem, fit)) {
            let Some((r, ex2)) = self.mul_step::<PRUNE>(k, rem, ex, v) else {
                continue;
            };
            self.push(k, v);
            self.mul::<PRUNE>(k + 1, r, ex2);
            self.pop(k);
        }
    }
}

// Cell values are at most 9, so 2, 3, 5 and 7 are the only primes a product of them holds.
const _: () = assert!(super::board::MAX_ORDER < 11);

/// The exponents of 2, 3, 5 and 7 in `x`, one byte each (so that packed exponents compare and
/// subtract bytewise), or `None` when `x` is 0, holds another prime, or holds one of these more
/// than 127 times: no product of cell values is then `x`. A product enumeration tests whether
/// a value divides what is left by these exponents alone.
#[inline]
const fn prime_exps(mut x: u64) -> Option<u32> {
    if x == 0 {
        return None;
    }
    let primes = [2u64, 3, 5, 7];
    let mut packed = 0u32;
    let mut i = 0;
    while i < 4 {
        let mut e = 0u32;
        while x.is_multiple_of(primes[i]) {
            x /= primes[i];
            e += 1;
        }
        if e > 127 {
            return None;
        }
        packed |= e << (8 * i);
        i += 1;
    }
    if x == 1 { Some(packed) } else { None }
}

/// [`prime_exps`] of the values below 16, 0 where it has none (0, 11 and 13: no cell holds
/// them, cell values being at most 9).
pub(super) const VALUE_EXPS: [u32; 16] = {
    let mut t = [0u32; 16];
    let mut v = 0;
    while v < 16 {
        if let Some(e) = prime_exps(v as u64) {
            t[v] = e;
        }
        v += 1;
    }
    t
};

/// Bytewise maximum of two packed exponent sets.
#[inline]
fn byte_max(a: u32, b: u32) -> u32 {
    let mut out = 0u32;
    for i in 0..4 {
        let sh = 8 * i;
        out |= ((a >> sh) & 0xff).max((b >> sh) & 0xff) << sh;
    }
    out
}

/// Does every exponent of `need` fit under the same prime's exponent in `have` (both packed,
/// each byte below 128)?
#[inline]
const fn exps_fit(need: u32, have: u32) -> bool {
    const HIGH: u32 = 0x8080_8080;
    ((have | HIGH) - need) & HIGH == HIGH
}

/// [`fit_mask`] by exponents of 2, 3, 5 and 7 capped at what a value below 16 holds (3, 2, 1,
/// 1): index `e2 + 4 e3 + 12 e5 + 24 e7`.
const FIT_MASKS: [u16; 48] = {
    let mut t = [0u16; 48];
    let mut i = 0;
    while i < 48 {
        let have = (i % 4) | ((i / 4 % 3) << 8) | ((i / 12 % 2) << 16) | ((i / 24) << 24);
        let mut v = 0;
        while v < 16 {
            if exps_fit(VALUE_EXPS[v], have as u32) {
                t[i] |= 1 << v;
            }
            v += 1;
        }
        i += 1;
    }
    t
};

/// The values `v` below 16 with `exps_fit(VALUE_EXPS[v], ex)`: those dividing the number whose
/// packed exponents are `ex`.
#[inline]
fn fit_mask(ex: u32) -> u16 {
    let e2 = (ex & 0xff).min(3);
    let e3 = (ex >> 8 & 0xff).min(2);
    let e5 = (ex >> 16 & 0xff).min(1);
    let e7 = (ex >> 24).min(1);
    FIT_MASKS[(e2 + 4 * e3 + 12 * e5 + 24 * e7) as usize]
}

#[inline]
fn pair_holds(op: Op, t: u64, a: u32, b: u32) -> bool {
    let (a, b) = (a as u64, b as u64);
    match op {
        Op::Add => a + b == t,
        Op::Mul => a * b == t,
        Op::Sub => a.abs_diff(b) == t,
        Op::Div => {
            let (hi, lo) = (a.max(b), a.min(b));
            hi % lo == 0 && hi / lo == t
        }
        Op::Given | Op::Any => false,
    }
}

/// The support and per-line needed values of cage `i`'s fillings under the candidates `cand`
/// of its positions; a hidden cage of three cells or more only through the operations in
/// `ops` ([`ADD`], [`MUL`]).
fn enumerate(b: &Board, i: usize, cand: &[u16; MAX_CAGE], ops: u8) -> MemoVal {
    let cage = &b.cages[i];
    let size = cage.cells.len();
    let nlines = b.cage_lines[i].len();
    let mut e = Enum::new(size, &b.cage_pos_lines[i], *cand, nlines);
    let t = cage.target;
    let mut alive = 0u8;
    match size {
        1 => {
            if t < 16 && e.cand[0] >> t & 1 != 0 {
                e.push(0, t as u32);
                e.record();
                e.pop(0);
                alive = 1;
            }
        }
        2 => {
            // Cells of a two-cell cage are adjacent, so they share a line: values differ.
            let ops: &[Op] = if b.cage_hidden(i) {
                Op::hidden_ops(2)
            } else {
                std::slice::from_ref(&cage.op)
            };
            for x in bits(e.cand[0]) {
                for y in bits(e.cand[1] & !(1 << x)) {
                    let mut m = 0u8;
                    for (j, &op) in ops.iter().enumerate() {
                        if pair_holds(op, t, x, y) {
                            m |= 1 << j;
                        }
                    }
                    if m != 0 {
                        alive |= m;
                        e.push(0, x);
                        e.push(1, y);
                        e.record();
                        e.pop(1);
                        e.pop(0);
                    }
                }
            }
        }
        _ => {
            // Settled positions hold their value in every filling: take it from the positions
            // sharing a line with them and out of the target, and enumerate the others.
            let Some(settled) = e.propagate_settled() else {
                return result(&e, 0);
            };
            let (do_add, do_mul) = if b.cage_hidden(i) {
                (ops & ADD != 0, ops & MUL != 0)
            } else {
                (cage.op == Op::Add, cage.op == Op::Mul)
            };
            let mut idx = [0usize; MAX_CAGE];
            let mut pl = [(0u8, 0u8); MAX_CAGE];
            let mut on_line = [0u16; 2 * MAX_CAGE];
            let (mut sum, mut prod, mut m) = (0u64, 1u64, 0usize);
            for k in 0..size {
                let (r, c) = e.pl[k];
                if settled >> k & 1 != 0 {
                    let v = e.cand[k];
                    sum += v.trailing_zeros() as u64;
                    prod *= v.trailing_zeros() as u64;
                    on_line[r as usize] |= v;
                    on_line[c as usize] |= v;
                    continue;
                }
                idx[m] = k;
                m += 1;
            }
            // Fewest candidates first, ties in the cage's cell order (a stable sort): fewer
            // dead ends near the root of the walk (docs/calcudoku-tail.md).
            idx[..m].sort_by_key(|&k| e.cand[k].count_ones());
            let mut fcand = [0u16; MAX_CAGE];
            for j in 0..m {
                fcand[j] = e.cand[idx[j]];
                pl[j] = e.pl[idx[j]];
            }
            let mut f = Enum::new(m, &pl, fcand, nlines);
            f.set_bounds();
            if do_add && sum <= t && t - sum <= 16 * 9 {
                f.add::<true>(0, (t - sum) as i32);
                if f.found {
                    alive |= 1;
                }
            }
            let exps = if t.is_multiple_of(prod) {
                prime_exps(t / prod)
            } else {
                None
            };
            if do_mul && let Some(ex) = exps {
                f.mul::<true>(0, t / prod, ex);
                // With fillings of + recorded first, the pruned × enumeration may skip every
                // × filling; whether one exists is then found apart.
                let mul_found = if alive == 0 {
                    f.found
                } else {
                    f.any_mul(0, t / prod, ex)
                };
                if mul_found {
                    alive |= if b.cage_hidden(i) { 2 } else { 1 };
                }
            }
            e.steps += f.steps;
            if f.found {
                e.found = true;
                for k in 0..size {
                    if settled >> k & 1 != 0 {
                        e.support[k] = e.cand[k];
                    }
                }
                for (&k, &sup) in idx.iter().zip(f.support.iter()).take(m) {
                    e.support[k] = sup;
                }
                for ((nd, &fnd), &on) in e
                    .need
                    .iter_mut()
                    .zip(f.need.iter())
                    .zip(on_line.iter())
                    .take(nlines)
                {
                    *nd = fnd | on;
                }
            }
        }
    }
    result(&e, alive)
}

fn result(e: &Enum<'_>, alive: u8) -> MemoVal {
    MemoVal {
        support: e.support,
        need: e.need,
        found: e.found,
        alive,
        steps: e.steps,
    }
}

/// Re-enumerate cage `i` if its cells changed; fill `support` and `need`.
fn ensure(b: &Board, st: &mut State, i: usize, ctx: &mut Ctx) -> Result<(), Stop> {
    if st.dirty >> i & 1 == 0 {
        return Ok(());
    }
    let cage = &b.cages[i];
    let size = cage.cells.len();
    let nlines = b.cage_lines[i].len();
    let off = b.cage_line_off[i] as usize;
    let ops = match ctx.memo.as_deref_mut() {
        Some(memo) => memo.ops(b, i),
        None => ADD | MUL,
    } & st.ops_allowed(i);
    let mut key: Option<MemoKey> = None;
    if size >= MEMO_MIN_CAGE
        && let Some(memo) = ctx.memo.as_deref()
    {
        let mut k = [0u16; MAX_CAGE];
        for (x, &c) in k.iter_mut().zip(cage.cells.iter()) {
            *x = st.cands[c as usize];
        }
        let kk = MemoKey(i as u8, ops, k);
        if let Some(v) = memo.map.get(&kk) {
            if !v.found {
                ctx.fail_at = Some(i as u8);
                return Err(Stop::Contradiction);
            }
            for (k, &c) in cage.cells.iter().enumerate() {
                st.support[c as usize] = v.support[k];
            }
            st.need[off..off + nlines].copy_from_slice(&v.need[..nlines]);
            st.must_done &= !(1u128 << i);
            st.alive[i] = v.alive;
            st.dirty &= !(1u128 << i);
            return Ok(());
        }
        key = Some(kk);
    }
    let mut cand = [0u16; MAX_CAGE];
    for (x, &c) in cand.iter_mut().zip(cage.cells.iter()) {
        *x = st.cands[c as usize];
    }
    let tabled = ctx
        .memo
        .as_deref_mut()
        .and_then(|m| m.tabled(b, i, &cand, ops));
    let e = match tabled {
        Some(v) => v,
        None => {
            let e = enumerate(b, i, &cand, ops);
            if let Some(m) = ctx.memo.as_deref_mut() {
                m.enumerated(i, e.steps);
            }
            e
        }
    };
    if let (Some(kk), Some(memo)) = (key, ctx.memo.as_deref_mut()) {
        if memo.map.len() >= MEMO_MAX {
            memo.map.clear();
        }
        memo.map.insert(kk, e);
    }
    if !e.found {
        ctx.fail_at = Some(i as u8);
        return Err(Stop::Contradiction);
    }
    for (k, &c) in cage.cells.iter().enumerate() {
        st.support[c as usize] = e.support[k];
    }
    st.need[off..off + nlines].copy_from_slice(&e.need[..nlines]);
    st.must_done &= !(1u128 << i);
    st.alive[i] = e.alive;
    st.dirty &= !(1u128 << i);
    Ok(())
}

/// Count the fillings of cage `i` under the given candidates (for studies and tests).
pub fn cage_fillings(b: &Board, i: usize) -> Vec<Vec<u8>> {
    // A plain enumeration over the cage's cells with full candidates and the in-cage
    // row/column rule; slow but simple.
    let cage = &b.cages[i];
    let n = b.n as u8;
    let mut out = Vec::new();
    let mut vals = vec![0u8; cage.cells.len()];
    fn rec(b: &Board, i: usize, k: usize, n: u8, vals: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        let cage = &b.cages[i];
        if k == cage.cells.len() {
            if b.cage_holds(i, vals) {
                out.push(vals.clone());
            }
            return;
        }
        'v: for v in 1..=n {
            for (j, &vj) in vals.iter().enumerate().take(k) {
                if b.cage_conf[i][k] >> j & 1 != 0 && vj == v {
                    continue 'v;
                }
            }
            vals[k] = v;
            rec(b, i, k + 1, n, vals, out);
        }
    }
    rec(b, i, 0, n, &mut vals, &mut out);
    out
}

// ---------------------------------------------------------------------------------------------
// The rungs
// ---------------------------------------------------------------------------------------------

type RungFn = fn(&Board, &mut State, Rungs, &mut Ctx) -> Result<bool, Stop>;

pub struct RungDef {
    pub rung: Rung,
    pub name: &'static str,
    pub about: &'static str,
    pub apply: RungFn,
}

/// The ladder, lowest rung first.
pub const RUNGS: [RungDef; RUNG_COUNT] = [
    RungDef {
        rung: Rung::Cage,
        name: "cage",
        about: "enumerate each cage's fillings under the candidates; keep only values used",
        apply: rung_cage,
    },
    RungDef {
        rung: Rung::Single,
        name: "single",
        about: "a settled value leaves its row and column",
        apply: rung_single,
    },
    RungDef {
        rung: Rung::Hidden,
        name: "hidden",
        about: "a value with one place left in a line goes there",
        apply: rung_hidden,
    },
    RungDef {
        rung: Rung::Must,
        name: "must",
        about: "a value every filling of a cage puts on one line leaves the rest of that line",
        apply: rung_must,
    },
    RungDef {
        rung: Rung::Subset,
        name: "subset",
        about: "k cells of a line holding only k values (naked) / k values with only k places \
                (hidden)",
        apply: rung_subset,
    },
    RungDef {
        rung: Rung::Probe,
        name: "probe",
        about: "try a candidate, propagate the lower rungs, remove it on contradiction",
        apply: rung_probe,
    },
];

fn cells_text(b: &Board, before: &[(usize, u16)], st: &State) -> String {
    let v: Vec<String> = before
        .iter()
        .filter(|&&(c, old)| st.cands[c] != old)
        .map(|&(c, _)| {
            if st.cands[c].is_power_of_two() {
                format!("{} = {}", cell_name(b.n, c), mask_text(st.cands[c]))
            } else {
                format!("{} in {{{}}}", cell_name(b.n, c), mask_text(st.cands[c]))
            }
        })
        .collect();
    v.join(", ")
}

fn rung_cage(b: &Board, st: &mut State, _r: Rungs, ctx: &mut Ctx) -> Result<bool, Stop> {
    cage_pass(b, st, ctx, st.stale, false)
}

/// Apply the support of the cages in `todo` (those still stale when reached), in cage order.
/// With `stop_early`, take the stale cages fewest candidates first (summed over the cage's
/// cells; ties to the lower index) and return after the first cage of at least
/// [`MEMO_MIN_CAGE`] cells that removed something, so that cheaper rungs can shrink the
/// candidates before the next large enumeration. The order leaves the fixpoint alone; it
/// decides which cage meets a contradiction first, and so where search puts its failure weight.
fn cage_pass(
    b: &Board,
    st: &mut State,
    ctx: &mut Ctx,
    mut todo: u128,
    stop_early: bool,
) -> Result<bool, Stop> {
    let mut progress = false;
    while todo != 0 {
        let i = if stop_early {
            match cheapest_stale(b, st, todo) {
                Some(i) => i,
                None => break,
            }
        } else {
            todo.trailing_zeros() as usize
        };
        todo &= !(1u128 << i);
        if st.stale >> i & 1 == 0 {
            continue;
        }
        ensure(b, st, i, ctx)?;
        let cage = &b.cages[i];
        let mut before = [(0usize, 0u16); MAX_CAGE];
        let mut changed = false;
        for (k, &c) in cage.cells.iter().enumerate() {
            let c = c as usize;
            before[k] = (c, st.cands[c]);
            changed |= restrict(b, st, ctx, c, st.support[c])?;
        }
        // The fillings are unchanged by keeping only their values: the cache stays valid.
        st.dirty &= !(1u128 << i);
        st.stale &= !(1u128 << i);
        progress |= changed;
        action(ctx, changed, || {
            format!(
                "{}: its fillings allow only {}",
                cage.describe(b.n, i),
                cells_text(b, &before[..cage.cells.len()], st)
            )
        })?;
        if stop_early && changed && cage.cells.len() >= MEMO_MIN_CAGE {
            return Ok(true);
        }
    }
    Ok(progress)
}

/// The stale cage of `todo` with the fewest candidates summed over its cells (the lowest index
/// among equals), or none when no cage of `todo` is stale.
fn cheapest_stale(b: &Board, st: &State, todo: u128) -> Option<usize> {
    let live = todo & st.stale;
    (0..b.cages.len())
        .filter(|&i| live >> i & 1 != 0)
        .min_by_key(|&i| {
            b.cages[i]
                .cells
                .iter()
                .map(|&c| st.cands[c as usize].count_ones())
                .sum::<u32>()
        })
}

fn rung_single(b: &Board, st: &mut State, _r: Rungs, ctx: &mut Ctx) -> Result<bool, Stop> {
    let n = b.n;
    let mut progress = false;
    for cell in 0..n * n {
        let m = st.cands[cell];
        if !m.is_power_of_two() || st.single_done >> cell & 1 != 0 {
            continue;
        }
        st.single_done |= 1u128 << cell;
        let (r, c) = (cell / n, cell % n);
        let mut changed = false;
        for k in 0..n {
            if k != c {
                changed |= restrict(b, st, ctx, r * n + k, !m)?;
            }
            if k != r {
                changed |= restrict(b, st, ctx, k * n + c, !m)?;
            }
        }
        progress |= changed;
        action(ctx, changed, || {
            format!(
                "{} is {}, so {} leaves row {} and column {}",
                cell_name(n, cell),
                mask_text(m),
                mask_text(m),
                r + 1,
                c + 1
            )
        })?;
    }
    Ok(progress)
}

fn rung_hidden(b: &Board, st: &mut State, _r: Rungs, ctx: &mut Ctx) -> Result<bool, Stop> {
    let n = b.n;
    let full = full_mask(n);
    let mut progress = false;
    for l in 0..2 * n {
        // Its deductions depend on the line's cells alone (as for `subset_done`).
        if st.hidden_done >> l & 1 != 0 {
            continue;
        }
        let (mut once, mut twice, mut settled) = (0u16, 0u16, 0u16);
        for c in line_cells(n, l) {
            let m = st.cands[c];
            twice |= once & m;
            once |= m;
            if m.is_power_of_two() {
                settled |= m;
            }
        }
        if once != full {
            ctx.fail_at = Some(LINE_FAIL + l as u8);
            return Err(Stop::Contradiction);
        }
        // A value whose one place is a settled cell is already there.
        let uniq = once & !twice & !settled;
        let mut line_changed = false;
        for v in bits(uniq) {
            let bit = 1u16 << v;
            // An earlier value of this line may have taken the only place: contradiction.
            let Some(cell) = line_cells(n, l).find(|&c| st.cands[c] & bit != 0) else {
                ctx.fail_at = Some(LINE_FAIL + l as u8);
                return Err(Stop::Contradiction);
            };
            let changed = restrict(b, st, ctx, cell, bit)?;
            progress |= changed;
            line_changed |= changed;
            action(ctx, changed, || {
                format!(
                    "{}: {} fits only at {}",
                    line_name(n, l),
                    v,
                    cell_name(n, cell)
                )
            })?;
        }
        if !line_changed {
            st.hidden_done |= 1u32 << l;
        }
    }
    Ok(progress)
}

fn rung_must(b: &Board, st: &mut State, _r: Rungs, ctx: &mut Ctx) -> Result<bool, Stop> {
    let n = b.n;
    let mut progress = false;
    for i in 0..b.cages.len() {
        ensure(b, st, i, ctx)?;
        if st.must_done >> i & 1 != 0 {
            continue;
        }
        let off = b.cage_line_off[i] as usize;
        for (j, &l) in b.cage_lines[i].iter().enumerate() {
            let m = st.need[off + j];
            if m == 0 {
                continue;
            }
            let l = l as usize;
            let mut changed = false;
            let mut hit = Vec::new();
            for c in line_cells(n, l) {
                if b.cage_of[c] as usize != i {
                    let ch = restrict(b, st, ctx, c, !m)?;
                    if ch && ctx.hint_mode {
                        hit.push(cell_name(n, c));
                    }
                    changed |= ch;
                }
            }
            progress |= changed;
            action(ctx, changed, || {
                format!(
                    "{} puts {} in {} in every filling, so it leaves {}",
                    b.cages[i].describe(n, i),
                    mask_text(m),
                    line_name(n, l),
                    hit.join(" ")
                )
            })?;
        }
        st.must_done |= 1u128 << i;
    }
    Ok(progress)
}

/// Whether the subset rung's scan of a line would find nothing, decided without the scan: the
/// line's unsettled cells (`cands`, at least three, each with two values or more) can be given
/// distinct values (a perfect matching of cells to the values they hold), and every value of
/// every cell is used by some such assignment (each edge lies on a perfect matching).
///
/// With `single` and `hidden` stable this is exactly "no naked subset of 2 to u − 2 of the u
/// cells holds fewer values than cells, and none holding as many removes anything": a shortage
/// of values among k cells with k ≥ u − 1 leaves a value in one cell or none, which `hidden`
/// acts on; and a value that no assignment gives a cell is held by a tight set of other cells
/// (Hall's theorem; Dulmage and Mendelsohn), of 2 to u − 2 cells for the same reasons. So the
/// rung skips the scan on such lines, removing the same values in the same order (node counts do
/// not change; `subset_check_matches_scan` tests the equivalence).
fn subset_line_stable(cands: &[u16]) -> bool {
    let u = cands.len();
    // Kuhn's augmenting paths: `owner[v]` is the cell given value v, `mate[i]` cell i's value.
    let mut owner = [u8::MAX; 16];
    let mut mate = [0u8; 9];
    fn augment(
        i: usize,
        cands: &[u16],
        owner: &mut [u8; 16],
        mate: &mut [u8; 9],
        seen: &mut u16,
    ) -> bool {
        let mut free = cands[i] & !*seen;
        while free != 0 {
            let v = free.trailing_zeros() as usize;
            free &= free - 1;
            *seen |= 1 << v;
            let o = owner[v];
            if o == u8::MAX || augment(o as usize, cands, owner, mate, seen) {
                owner[v] = i as u8;
                mate[i] = v as u8;
                return true;
            }
        }
        false
    }
    // A greedy pass first (most cells keep a value no earlier cell took), then paths for the
    // rest.
    let mut taken = 0u16;
    let mut open = 0u16;
    for i in 0..u {
        let free = cands[i] & !taken;
        if free == 0 {
            open |= 1 << i;
            continue;
        }
        let v = free.trailing_zeros() as usize;
        taken |= 1 << v;
        owner[v] = i as u8;
        mate[i] = v as u8;
    }
    while open != 0 {
        let i = open.trailing_zeros() as usize;
        open &= open - 1;
        let mut seen = 0u16;
        if !augment(i, cands, &mut owner, &mut mate, &mut seen) {
            return false;
        }
    }
    // Cell i points to cell j when i holds j's value: an alternating path. An edge (i, value of
    // j) lies on a perfect matching iff i and j are on a common cycle, i.e. j reaches i back.
    let mut adj = [0u16; 9];
    let mut radj = [0u16; 9];
    for i in 0..u {
        let mut m = cands[i] & !(1 << mate[i]);
        while m != 0 {
            let v = m.trailing_zeros() as usize;
            m &= m - 1;
            let j = owner[v] as usize;
            adj[i] |= 1 << j;
            radj[j] |= 1 << i;
        }
    }
    // Usually every cell reaches every other (one cycle class): then every edge is on a cycle.
    let all = (1u16 << u) - 1;
    let closure = |g: &[u16; 9]| {
        let (mut seen, mut front) = (1u16, 1u16);
        while front != 0 {
            let mut next = 0u16;
            let mut f = front;
            while f != 0 {
                next |= g[f.trailing_zeros() as usize];
                f &= f - 1;
            }
            front = next & !seen;
            seen |= next;
        }
        seen
    };
    if closure(&adj) == all && closure(&radj) == all {
        return true;
    }
    let mut reach = adj;
    for k in 0..u {
        for i in 0..u {
            if reach[i] >> k & 1 != 0 {
                reach[i] |= reach[k];
            }
        }
    }
    (0..u).all(|i| {
        let mut m = adj[i];
        while m != 0 {
            let j = m.trailing_zeros() as usize;
            m &= m - 1;
            if reach[j] >> i & 1 == 0 {
                return false;
            }
        }
        true
    })
}

fn rung_subset(b: &Board, st: &mut State, r: Rungs, ctx: &mut Ctx) -> Result<bool, Stop> {
    let n = b.n;
    let mut unions = [0u16; 1 << 9];
    // `subset_line_stable` stands in for the scan only where `single` and `hidden` have run
    // to stability before this rung (in `ladder` and `fixpoint` they always have).
    let check = r.has(Rung::Single) && r.has(Rung::Hidden);
    for l in 0..2 * n {
        // Its deductions depend on the line's cells alone: a line that gave nothing and has
        // not changed since gives nothing again.
        if st.subset_done >> l & 1 != 0 {
            continue;
        }
        let mut cells = [0usize; 9];
        let mut u = 0usize;
        for c in line_cells(n, l) {
            if !st.cands[c].is_power_of_two() {
                cells[u] = c;
                u += 1;
            }
        }
        if u < 3 {
            st.subset_done |= 1u32 << l;
            continue;
        }
        if check {
            let mut cm = [0u16; 9];
            for (m, &c) in cm.iter_mut().zip(&cells[..u]) {
                *m = st.cands[c];
            }
            if subset_line_stable(&cm[..u]) {
                st.subset_done |= 1u32 << l;
                continue;
            }
        }
        for s in 1usize..(1 << u) {
            let low = s.trailing_zeros() as usize;
            let un = unions[s & (s - 1)] | st.cands[cells[low]];
            unions[s] = un;
            let k = s.count_ones();
            if k < 2 || k + 1 >= u as u32 {
                continue;
            }
            let vk = un.count_ones();
            if vk < k {
                ctx.fail_at = Some(LINE_FAIL + l as u8);
                return Err(Stop::Contradiction);
            }
            if vk != k {
                continue;
            }
            let mut changed = false;
            let mut hit = Vec::new();
            for c in line_cells(n, l) {
                if (0..u).any(|j| s >> j & 1 != 0 && cells[j] == c) {
                    continue;
                }
                let ch = restrict(b, st, ctx, c, !un)?;
                if ch && ctx.hint_mode {
                    hit.push(cell_name(n, c));
                }
                changed |= ch;
            }
            if changed {
                action(ctx, true, || {
                    let inside: Vec<String> = (0..u)
                        .filter(|&j| s >> j & 1 != 0)
                        .map(|j| cell_name(n, cells[j]))
                        .collect();
                    format!(
                        "{}: {} hold only {{{}}}, so those values leave {}",
                        line_name(n, l),
                        inside.join(" "),
                        mask_text(un),
                        hit.join(" ")
                    )
                })?;
                // Unions are stale now; let the ladder restart from the bottom.
                return Ok(true);
            }
        }
        st.subset_done |= 1u32 << l;
    }
    Ok(false)
}

fn rung_probe(b: &Board, st: &mut State, rungs: Rungs, ctx: &mut Ctx) -> Result<bool, Stop> {
    // One pass over the unsettled cells, fewest candidates first. After each removal the lower
    // rungs run to their fixpoint (so they, not probe, are credited with what follows, exactly
    // as if the ladder had restarted) and the pass goes on where it was instead of rescanning
    // from the first cell. In hint mode `action` stops at the first removal.
    let nn = b.n * b.n;
    let lower = rungs.below(Rung::Probe);
    let mut progress = false;
    for want in 2..=b.n as u32 {
        for cell in 0..nn {
            let m = st.cands[cell];
            if m.count_ones() != want {
                continue;
            }
            for v in bits(m) {
                if st.cands[cell] >> v & 1 == 0 || st.cands[cell].is_power_of_two() {
                    continue;
                }
                if let Some(memo) = ctx.memo.as_deref()
                    && memo.wit.covers(b, st, lower, cell, v)
                {
                    continue;
                }
                let mut s2 = st.clone();
                s2.assign(b, cell, v);
                let mut c2 = Ctx::new();
                c2.memo = ctx.memo.take();
                let dead = match fixpoint(b, &mut s2, lower, &mut c2) {
                    Err(_) => true,
                    Ok(()) => s2.solved(b) && !b.is_solution(&s2.grid(b)),
                };
                ctx.memo = c2.memo.take();
                if !dead && let Some(memo) = ctx.memo.as_deref_mut() {
                    memo.wit.add(b, &s2, lower);
                }
                if dead {
                    let changed = restrict(b, st, ctx, cell, !(1u16 << v))?;
                    progress |= changed;
                    action(ctx, changed, || {
                        format!(
                            "{} = {} leads to a contradiction, so {} is not {}",
                            cell_name(b.n, cell),
                            v,
                            cell_name(b.n, cell),
                            v
                        )
                    })?;
                    // Let the lower rungs take what follows (they get the credit, as if the
                    // ladder had restarted), then go on with the pass where it was.
                    ladder(b, st, lower, ctx)?;
                    ctx.rung = Rung::Probe as usize;
                }
            }
        }
    }
    Ok(progress)
}

/// Apply the enabled rungs of `defs` in order until one makes progress; `Ok(false)` when none did.
fn first_progress(
    defs: &[RungDef],
    b: &Board,
    st: &mut State,
    rungs: Rungs,
    ctx: &mut Ctx,
) -> Result<bool, Stop> {
    for def in defs {
        if !rungs.has(def.rung) {
            continue;
        }
        ctx.rung = def.rung as usize;
        if (def.apply)(b, st, rungs, ctx)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Run the enabled rungs, lowest first, restarting from the bottom after any progress, until
/// none makes progress. `Err(Contradiction)` means no solution extends this state.
pub fn ladder(b: &Board, st: &mut State, rungs: Rungs, ctx: &mut Ctx) -> Result<(), Stop> {
    while first_progress(&RUNGS, b, st, rungs, ctx)? {}
    Ok(())
}

/// The same fixpoint as [`ladder`], reached cheapest first: `single` and `hidden` run to their
/// own fixpoint before any cage is enumerated, cages under `MEMO_MIN_CAGE` (5) cells before the
/// larger ones, and after each large cage that removes something the cheap rungs run again
/// before the next large enumeration; `must`, `subset` and `probe` run only when everything
/// below is stable. Every rung only removes values and removes at least as much from fewer
/// candidates, so the greatest common fixpoint (and whether it is a contradiction) does not
/// depend on the order: the candidates left are exactly those [`ladder`] leaves (a test checks
/// this). Only the per-rung credit differs, so the root ladder, which defines the grade, the
/// rung trace and the hints, keeps [`ladder`]; probes and search nodes use this one.
///
/// Order independence also needs every contradiction a rung detects at a state to be detected
/// at any smaller state the rungs leave alone. The subset rung skips its largest subsets (all
/// or all but one of a line's unsettled cells), whose shortage of values the hidden rung
/// detects instead, given `single`; so without `single` and `hidden` this runs [`ladder`].
pub fn fixpoint(b: &Board, st: &mut State, rungs: Rungs, ctx: &mut Ctx) -> Result<(), Stop> {
    if !(rungs.has(Rung::Single) && rungs.has(Rung::Hidden)) {
        return ladder(b, st, rungs, ctx);
    }
    let mut small = 0u128;
    for (i, c) in b.cages.iter().enumerate() {
        if c.cells.len() < MEMO_MIN_CAGE {
            small |= 1u128 << i;
        }
    }
    loop {
        loop {
            let mut p = false;
            if rungs.has(Rung::Single) {
                ctx.rung = Rung::Single as usize;
                p |= rung_single(b, st, rungs, ctx)?;
            }
            if rungs.has(Rung::Hidden) {
                ctx.rung = Rung::Hidden as usize;
                p |= rung_hidden(b, st, rungs, ctx)?;
            }
            if !p {
                break;
            }
        }
        if rungs.has(Rung::Cage) {
            ctx.rung = Rung::Cage as usize;
            if cage_pass(b, st, ctx, st.stale & small, false)? {
                continue;
            }
            if cage_pass(b, st, ctx, st.stale, true)? {
                continue;
            }
        }
        if !first_progress(&RUNGS[Rung::Must as usize..], b, st, rungs, ctx)? {
            return Ok(());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Search, outcome, grade
// ---------------------------------------------------------------------------------------------

/// How many solutions: exact, at least the cap (search stopped there), or unknown (node cap).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    Exact(u64),
    AtLeast(u64),
    Unknown,
}

impl std::fmt::Display for Count {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Count::Exact(k) => write!(f, "{k}"),
            Count::AtLeast(k) => write!(f, ">={k}"),
            Count::Unknown => write!(f, "unknown"),
        }
    }
}

/// The highest rung a board needs, or search, or none (no solution).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grade {
    Rung(Rung),
    Search,
    NoSolution,
}

impl std::fmt::Display for Grade {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Grade::Rung(r) => write!(f, "{r}"),
            Grade::Search => write!(f, "search"),
            Grade::NoSolution => write!(f, "no solution"),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Outcome {
    /// The first solutions found (at most `cap`), each a grid in reading order.
    pub solutions: Vec<Vec<u8>>,
    pub count: Count,
    /// Search nodes (ladder runs), the root included.
    pub nodes: u64,
    /// Per-rung work over the whole solve (root and every node).
    pub stats: RungStats,
    /// Per-rung work of the root ladder alone (the "climbing" trace).
    pub root: RungStats,
    pub grade: Grade,
}

impl Outcome {
    pub fn unique(&self) -> bool {
        self.count == Count::Exact(1)
    }
}

/// How search uses the rungs below the root, and how it restarts.
///
/// The root runs the full ladder of the enabled rungs (the grade and the hints are defined by
/// it), its probe rung before the search or late ([`RootProbe`]); deeper nodes run the probe
/// rung only down to `probe_depth` (counted in branchings from the root), because probing costs
/// a lower-ladder run per candidate at every node it runs at, and on boards with several answers
/// that cost is paid at every node of a large tree.
///
/// Restarts (on by default, see [`DEFAULT_RESTART_UNIT`]): the first run is the plain
/// depth-first search (fewest candidates first, values in increasing order). When it has used
/// `restart_unit` × [`FIRST_RUN_UNITS`] nodes without deciding, it stops and randomised runs
/// follow under a budget of `restart_unit` × the k-th Luby term each. Run k ≥ 1 branches on the
/// cell with the fewest candidates per failure met under it (dom/wdeg: every contradiction a
/// node's fixpoint meets adds one to the weight of the cage or line where it was met, over all
/// runs, and a cell weighs its cage, row and column), breaks the remaining ties and orders the
/// values at random (a stream fixed by k, so a board's verdict, answers and node count never
/// vary). Answers met by any run are pooled (distinct answers of one board), so a board with two answers is decided as
/// soon as the runs together have met two, however deep one run is stuck. With `nogoods` each
/// run skips the subtrees earlier runs finished (see `Nogoods` in this module); a run that
/// exhausts what is left to it has, with the runs before it, seen every answer, so its count is
/// exact. Boards the first run decides are searched exactly as without restarts. `restart_unit`
/// 0 turns restarts off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchPolicy {
    /// Deepest search node (1 = the root's children) that still probes; `u32::MAX` = all.
    pub probe_depth: u32,
    /// Node budget unit of the restarts (see above); 0 = one plain run, no restarts.
    pub restart_unit: u64,
    /// Run the line-block balance ([`super::balance`]), alternating with the fixpoint, at every
    /// search node once the search has visited this many nodes (`u64::MAX`: never).
    pub balance_from: u64,
    /// Branch on the operation (+ or ×) of a hidden cage of three cells or more that still
    /// reaches its target both ways, before branching on a cell.
    pub op_branch: bool,
    /// Restarts skip the subtrees earlier runs searched to the end (see `Nogoods` in this
    /// module); no effect without restarts, or with operation branches.
    pub nogoods: bool,
    /// When the root's probe rung runs (see [`RootProbe`]).
    pub root_probe: RootProbe,
    /// How a failure adds to the dom/wdeg weight of the cage or line it was met at: one unit
    /// (false), or one unit shared among its cells still unsettled at the failure (true), so a
    /// failure of a cage or line with few open cells, whose cause is narrower, weighs more
    /// (the conflict-aware weighting of Wattez, Lecoutre, Paparrizou and Tabary, "Refining
    /// constraint weighting", ICTAI 2019).
    pub fail_share: bool,
    /// Which family of random streams the restarts draw (run k uses stream k of it); 0 is the
    /// default family. Only boards the plain first run leaves undecided depend on it, so
    /// re-timing a set under several restart seeds separates a board's hardness from the luck
    /// of its restarts.
    pub restart_seed: u64,
    /// Learn from failures inside a run: when a node's fixpoint (or balance) fails, test whether
    /// its decision fails as well without its parent's, from the state two levels up; if it
    /// does, keep the decisions without the parent's as a nogood for the rest of the search
    /// (see `Learned` in this module).
    pub learn: bool,
}

/// When the root runs the probe rung. Either way the grade, the count and the root's rung
/// trace of a board the search proves unique are the same; only the work differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootProbe {
    /// Before the search: the root runs the full ladder.
    First,
    /// The root runs the rungs below probe; the probe runs on the root's state only when the
    /// plain first run stops at its budget without deciding (then the runs after it start from
    /// the probed state), or after the search, to grade a board it met exactly one answer of.
    /// Boards the plain first run decides skip the root's probe, which on boards with large
    /// cages costs more than the whole search.
    Late,
}

impl RootProbe {
    pub fn from_name(s: &str) -> Option<RootProbe> {
        match s {
            "first" => Some(RootProbe::First),
            "late" => Some(RootProbe::Late),
            _ => None,
        }
    }
}

impl SearchPolicy {
    /// Probe at every node (the ladder re-run in full at each node), no restarts.
    pub const PROBE_EVERYWHERE: SearchPolicy = SearchPolicy {
        probe_depth: u32::MAX,
        restart_unit: 0,
        balance_from: DEFAULT_BALANCE_FROM,
        op_branch: DEFAULT_OP_BRANCH,
        nogoods: DEFAULT_NOGOODS,
        root_probe: DEFAULT_ROOT_PROBE,
        fail_share: DEFAULT_FAIL_SHARE,
        restart_seed: 0,
        learn: DEFAULT_LEARN,
    };
}

impl Default for SearchPolicy {
    fn default() -> Self {
        SearchPolicy {
            probe_depth: DEFAULT_PROBE_DEPTH,
            restart_unit: DEFAULT_RESTART_UNIT,
            balance_from: DEFAULT_BALANCE_FROM,
            op_branch: DEFAULT_OP_BRANCH,
            nogoods: DEFAULT_NOGOODS,
            root_probe: DEFAULT_ROOT_PROBE,
            fail_share: DEFAULT_FAIL_SHARE,
            restart_seed: 0,
            learn: DEFAULT_LEARN,
        }
    }
}

/// The default of [`SearchPolicy::op_branch`].
pub const DEFAULT_OP_BRANCH: bool = false;

/// The default of [`SearchPolicy::fail_share`], chosen by the per-board means over restart
/// seeds in docs/calcudoku-tail.md.
pub const DEFAULT_FAIL_SHARE: bool = true;

/// The default of [`SearchPolicy::learn`].
pub const DEFAULT_LEARN: bool = false;

/// The default of [`SearchPolicy::nogoods`].
pub const DEFAULT_NOGOODS: bool = true;

/// The default of [`SearchPolicy::root_probe`], chosen by the 1,000-board measurements in
/// docs/calcudoku-tail.md.
pub const DEFAULT_ROOT_PROBE: RootProbe = RootProbe::Late;

/// The default deepest probing node (see [`SearchPolicy`]); chosen by the tail measurements
/// documented in docs/calcudoku-tail.md.
pub const DEFAULT_PROBE_DEPTH: u32 = 0;

/// The default restart unit (see [`SearchPolicy`]), chosen with the nogoods by the 1,000-board
/// tail measurements in docs/calcudoku-tail.md.
pub const DEFAULT_RESTART_UNIT: u64 = 100;

/// The default of [`SearchPolicy::balance_from`] (docs/calcudoku-tail.md).
pub const DEFAULT_BALANCE_FROM: u64 = 16;

/// The plain first run's budget, in restart units.
pub const FIRST_RUN_UNITS: u64 = 8;

/// One failure in [`Search`]'s weights (a power of two, so that shares of up to 16 cells keep
/// some precision).
const WEIGHT_UNIT: u32 = 64;

/// Master seed of the restarts' random streams under restart seed 0 (run k uses stream k);
/// restart seed s uses this xor s.
const RESTART_SEED: u64 = 0xca1c_0d0c;

struct Search<'a> {
    b: &'a Board,
    rungs: Rungs,
    policy: SearchPolicy,
    cap: u64,
    /// The node count at which the current run stops.
    limit: u64,
    nodes: u64,
    /// Distinct answers met by every run so far (at most `cap`).
    sols: Vec<Vec<u8>>,
    /// Answers met by the current run.
    run_found: u64,
    ctx: Ctx,
    /// The current run stopped at `limit`.
    aborted: bool,
    /// Random tie-breaks and value orders (restarts only).
    rng: Option<crate::engine::seed::UnitRng>,
    /// Failures met at each cage and line (indexed like `Ctx::fail_at`), over all runs, in
    /// units of [`WEIGHT_UNIT`] (see [`SearchPolicy::fail_share`]).
    weights: [u32; 256],
    /// The board's balance tables (built at the first search node that runs it).
    balance: Option<super::balance::Balance>,
    /// Per depth: the balance's quiet bounds at the end of the current node there (empty where
    /// that node did not run the balance); a child starts from its parent's.
    quiet: Vec<super::balance::Quiet>,
    /// The branch of the run being stopped, deepest first (see [`Nogoods`]).
    stopped: Vec<(u8, u8, u16)>,
    /// Subtrees earlier runs searched to the end (see [`Nogoods`]).
    nogoods: Nogoods,
    /// The decisions (cell, value) from the root of the current run to the current node.
    decs: Vec<(u8, u8)>,
    /// With `learn`: per depth, the state of the current branch's node there after its own
    /// work (its fixpoint, nogoods and balance).
    path: Vec<State>,
    /// Nogoods learnt from failures (see [`Learned`]).
    learned: Learned,
    /// Keep the nodes' states as witnesses for the root's probe, still to run (see
    /// [`Witnesses`]).
    collect: bool,
}

/// Nogoods learnt inside a run ([`SearchPolicy::learn`]). When a node with decisions d1 … dk
/// fails, the state two levels up (d1 … dk−2, after its fixpoint, nogoods and balance) with dk
/// alone is propagated; when that fails too, "d1 … dk−2 and dk" is a nogood: the parent's
/// decision played no part, so dk fails under every other value of the parent's cell, and
/// wherever else d1 … dk−2 hold. The states it starts from already obey the restarts' nogoods
/// and earlier learnt ones, so a learnt nogood, like those, excludes only answers already met
/// (answers are pooled over runs), and a run that exhausts what is left still has met every
/// answer. At most [`MAX_LEARNED`] are kept, the older half forgotten when the store is full.
/// Each nogood is checked at every node after its fixpoint: all decisions holding (their
/// cells settled to their values) fails the node; all but one holding removes that one's value
/// from its cell. A mask of the cells a nogood names skips, at a node, those with two or more
/// cells still open.
#[derive(Default)]
struct Learned {
    /// The cells each nogood names, and how many.
    masks: Vec<(u128, u32)>,
    nogoods: Vec<Vec<(u8, u8)>>,
}

/// The most learnt nogoods kept (see [`Learned::push`]).
const MAX_LEARNED: usize = 4096;

impl Learned {
    fn push(&mut self, ng: Vec<(u8, u8)>) {
        if self.nogoods.len() >= MAX_LEARNED {
            // Forget the older half.
            self.nogoods.drain(..MAX_LEARNED / 2);
            self.masks.drain(..MAX_LEARNED / 2);
        }
        let mut m = 0u128;
        for &(c, _) in &ng {
            m |= 1u128 << c;
        }
        self.masks.push((m, ng.len() as u32));
        self.nogoods.push(ng);
    }

    /// Apply every nogood to `st` once: `None` when one holds in full, else whether values were
    /// removed.
    fn propagate(&self, b: &Board, st: &mut State) -> Option<bool> {
        let mut settled = 0u128;
        for c in 0..b.n * b.n {
            if st.cands[c].is_power_of_two() {
                settled |= 1u128 << c;
            }
        }
        let mut changed = false;
        for (ng, &(m, len)) in self.nogoods.iter().zip(self.masks.iter()) {
            if (m & settled).count_ones() + 1 < len {
                continue;
            }
            let mut open = None;
            let mut holds = true;
            for &(c, v) in ng {
                let cm = st.cands[c as usize];
                if cm >> v & 1 == 0 {
                    holds = false;
                    open = None;
                    break;
                }
                if cm != 1 << v {
                    if open.is_some() {
                        holds = false;
                        open = None;
                        break;
                    }
                    open = Some((c, v));
                }
            }
            match open {
                Some((c, v)) => changed |= st.narrow(b, c as usize, !(1u16 << v))?,
                None if holds => return None,
                None => {}
            }
        }
        Some(changed)
    }
}

/// Subtrees that earlier runs of a restarting search walked to the end. A run that stops at
/// its node limit leaves a branch: per depth, the cell branched on, the value being searched
/// when the run stopped and the values of that cell searched completely before it. Each depth
/// gives one entry: "the decisions above hold and the cell holds one of its searched values".
/// Every answer inside such a subtree has been met (answers are pooled over runs), so a later
/// run may skip it: when all of an entry's decisions hold, the searched values leave the cell;
/// when all parts but one decision hold, that decision's value leaves its cell. Each run then
/// walks only what no earlier run finished, and a run that exhausts what is left has, together
/// with the earlier runs, met every answer. (The reduced nld-nogoods of Lecoutre, Sais, Tabary
/// and Vidal, "Recording and minimizing nogoods from restarts", 2007.)
#[derive(Default)]
struct Nogoods {
    /// One branch per stopped run, root first: (cell, value searched at the stop, values
    /// searched completely).
    branches: Vec<Vec<(u8, u8, u16)>>,
}

impl Nogoods {
    fn is_empty(&self) -> bool {
        self.branches.is_empty()
    }

    /// Apply every entry to `st`: `None` when one fully holds with nothing left in its cell,
    /// else whether values were removed.
    fn propagate(&self, b: &Board, st: &mut State) -> Option<bool> {
        let mut changed = false;
        for br in &self.branches {
            // The one decision above this depth that does not hold yet.
            let mut open: Option<(u8, u8)> = None;
            for &(c, v, done) in br {
                let m = st.cands[c as usize];
                if m & done != 0 {
                    match open {
                        None => changed |= st.narrow(b, c as usize, !done)?,
                        Some((oc, ov)) if m & !done == 0 => {
                            changed |= st.narrow(b, oc as usize, !(1u16 << ov))?;
                        }
                        Some(_) => {}
                    }
                }
                let m = st.cands[c as usize];
                if m >> v & 1 == 0 {
                    break;
                }
                if m != 1 << v {
                    if open.is_some() {
                        break;
                    }
                    open = Some((c, v));
                }
            }
        }
        Some(changed)
    }
}

impl Search<'_> {
    /// The branching cell: fewest candidates; ties go to the cell whose cage has the fewest
    /// candidates over its unsettled cells (the tightest cage splits the most), then (in a
    /// restart) to a random one of the cells still tied.
    fn branch_cell(&mut self, st: &State) -> Option<usize> {
        use rand::Rng;
        let b = self.b;
        let nn = b.n * b.n;
        let mut best = None;
        let wdeg = self.rng.is_some();
        let mut best_key = (u32::MAX, u32::MAX, 0u32);
        for c in 0..nn {
            let dom = st.cands[c].count_ones();
            if dom <= 1 {
                continue;
            }
            // Scaled so that integer keys order like dom / (1 + w), w in failures.
            let k = if wdeg {
                let w = &self.weights;
                let line = LINE_FAIL as usize;
                let wc = w[b.cage_of[c] as usize] + w[line + c / b.n] + w[line + b.n + c % b.n];
                dom * 4096 * WEIGHT_UNIT / (WEIGHT_UNIT + wc)
            } else {
                dom
            };
            if k > best_key.0 {
                continue;
            }
            let cage = &b.cages[b.cage_of[c] as usize];
            let mut t = 0u32;
            for &x in &cage.cells {
                let m = st.cands[x as usize].count_ones();
                if m > 1 {
                    t += m;
                }
            }
            let r = match &mut self.rng {
                Some(rng) if (k, t) <= (best_key.0, best_key.1) => rng.next_u32(),
                _ => 0,
            };
            if (k, t, r) < best_key {
                best_key = (k, t, r);
                best = Some(c);
            }
        }
        best
    }

    /// The hidden cage to branch on by operation: of three cells or more, its operation not
    /// chosen yet, both + and × still reaching its target (as of its last enumeration), with
    /// the most candidates over its unsettled cells.
    fn op_cage(&self, st: &State) -> Option<usize> {
        let b = self.b;
        let mut best = None;
        let mut best_t = 0u32;
        for (i, cage) in b.cages.iter().enumerate() {
            if cage.cells.len() < 3
                || !b.cage_hidden(i)
                || st.op_chosen >> i & 1 != 0
                || st.alive[i] & (ADD | MUL) != ADD | MUL
            {
                continue;
            }
            let mut t = 0u32;
            for &x in &cage.cells {
                let m = st.cands[x as usize].count_ones();
                if m > 1 {
                    t += m;
                }
            }
            if t > best_t {
                best_t = t;
                best = Some(i);
            }
        }
        best
    }

    /// Add the failure the last fixpoint met (`Ctx::fail_at`, on the state `st` it left) to its
    /// cage's or line's weight: a whole unit, or with [`SearchPolicy::fail_share`] one unit
    /// shared among the cage's or line's unsettled cells.
    fn weigh_failure(&mut self, st: &State) {
        let Some(c) = self.ctx.fail_at else {
            return;
        };
        let add = if self.policy.fail_share {
            let b = self.b;
            let open = |x: usize| !st.cands[x].is_power_of_two();
            let k = if c >= LINE_FAIL {
                line_cells(b.n, (c - LINE_FAIL) as usize)
                    .filter(|&x| open(x))
                    .count()
            } else {
                b.cages[c as usize]
                    .cells
                    .iter()
                    .filter(|&&x| open(x as usize))
                    .count()
            };
            (WEIGHT_UNIT / k.max(1) as u32).max(1)
        } else {
            WEIGHT_UNIT
        };
        self.weights[c as usize] += add;
    }

    /// The rungs of a search node's fixpoint: the probe only from depth 1 down to
    /// `probe_depth` (the root's ladder has its own probe, see [`RootProbe`]).
    fn node_rungs(&self, depth: u32) -> Rungs {
        if depth > 0 && depth <= self.policy.probe_depth {
            self.rungs
        } else {
            self.rungs.without(Rung::Probe)
        }
    }

    /// The line-block balance and the node's fixpoint in turns until neither removes a value;
    /// false on a contradiction.
    fn balanced(&mut self, st: &mut State, depth: u32) -> bool {
        if st.solved(self.b) {
            return true;
        }
        let rungs = self.node_rungs(depth);
        let bal = self
            .balance
            .get_or_insert_with(|| super::balance::Balance::new(self.b));
        let d = depth as usize;
        if self.quiet.len() <= d {
            self.quiet.resize_with(d + 1, Default::default);
        }
        self.quiet[d] = if d > 0 {
            self.quiet[d - 1].clone()
        } else {
            Default::default()
        };
        let quiet = &mut self.quiet[d];
        let b = self.b;
        match stable_under(b, st, rungs, &mut self.ctx, |s| bal.propagate(b, s, quiet)) {
            Ok(()) => true,
            Err(Unstable::Store) => false,
            Err(Unstable::Fixpoint) => {
                self.weigh_failure(st);
                false
            }
        }
    }

    /// The node's own work below the root: count it (stopping the run at its node limit) and
    /// run its fixpoint; then, past `balance_from` nodes, the balance. `Err(())` when the run
    /// must stop, `Ok(false)` on a contradiction.
    fn settle(&mut self, st: &mut State, depth: u32) -> Result<bool, ()> {
        if depth > 0 {
            if self.nodes >= self.limit {
                self.aborted = true;
                return Err(());
            }
            self.nodes += 1;
            let rungs = self.node_rungs(depth);
            self.ctx.fail_at = None;
            if fixpoint(self.b, st, rungs, &mut self.ctx).is_err() {
                self.weigh_failure(st);
                self.learn_failure();
                return Ok(false);
            }
        }
        // A contradiction met through the restarts' or the learnt nogoods follows from
        // subtrees already searched, not from the board's constraints alone, so it adds to no
        // failure weight.
        let rungs = self.rungs.without(Rung::Probe);
        let (b, ctx) = (self.b, &mut self.ctx);
        if !self.nogoods.is_empty()
            && stable_under(b, st, rungs, ctx, |s| self.nogoods.propagate(b, s)).is_err()
        {
            return Ok(false);
        }
        if !self.learned.nogoods.is_empty()
            && stable_under(b, st, rungs, ctx, |s| self.learned.propagate(b, s)).is_err()
        {
            return Ok(false);
        }
        if self.nodes > self.policy.balance_from {
            let ok = self.balanced(st, depth);
            if !ok {
                self.learn_failure();
            }
            return Ok(ok);
        }
        if let Some(q) = self.quiet.get_mut(depth as usize) {
            q.forget();
        }
        Ok(true)
    }

    /// The root's probe (the full ladder) on the root's state `st`, its work added to the
    /// root's trace `root` and to the totals; false on a contradiction.
    fn probe_root(&mut self, st: &mut State, root: &mut RungStats) -> bool {
        let mut c = Ctx::new();
        c.memo = self.ctx.memo.take();
        c.stats = *root;
        let ok = ladder(self.b, st, self.rungs, &mut c).is_ok();
        self.ctx.memo = c.memo.take();
        for (t, (new, old)) in self
            .ctx
            .stats
            .iter_mut()
            .zip(c.stats.iter().zip(root.iter()))
        {
            t.removed += new.removed - old.removed;
            t.settled += new.settled - old.settled;
            t.fired += new.fired - old.fired;
        }
        *root = c.stats;
        ok
    }

    /// Keep a node's state (after its own work, a fixpoint of the rungs below probe) as a
    /// witness for the root's probe.
    fn witness(&mut self, st: &State) {
        if let Some(memo) = self.ctx.memo.as_deref_mut() {
            memo.wit.add(self.b, st, self.rungs.below(Rung::Probe));
        }
    }

    /// Does the node whose fixpoint (or balance) just failed teach a nogood? See [`Learned`].
    fn learn_failure(&mut self) {
        if !self.learning() {
            return;
        }
        let k = self.decs.len();
        if k < 2 || self.path.len() < k - 1 {
            return;
        }
        let (c, v) = self.decs[k - 1];
        let mut s = self.path[k - 2].clone();
        s.assign(self.b, c as usize, v as u32);
        if self.propagates(&mut s) {
            return;
        }
        let mut ng = self.decs[..k - 2].to_vec();
        ng.push((c, v));
        self.learned.push(ng);
    }

    /// Learning is on (not with operation branches, whose choices are not decisions on cells).
    fn learning(&self) -> bool {
        self.policy.learn && !self.policy.op_branch
    }

    /// A node's fixpoint, then (past `balance_from` nodes) the balance in turns with it, on a
    /// state outside the search: false on a contradiction. Adds to no failure weight.
    fn propagates(&mut self, st: &mut State) -> bool {
        let rungs = self.rungs.without(Rung::Probe);
        self.ctx.fail_at = None;
        if fixpoint(self.b, st, rungs, &mut self.ctx).is_err() {
            return false;
        }
        if self.nodes <= self.policy.balance_from || st.solved(self.b) {
            return true;
        }
        let b = self.b;
        let bal = self
            .balance
            .get_or_insert_with(|| super::balance::Balance::new(b));
        let mut quiet = super::balance::Quiet::default();
        stable_under(b, st, rungs, &mut self.ctx, |s| {
            bal.propagate(b, s, &mut quiet)
        })
        .is_ok()
    }

    /// Returns true when the run must stop (cap reached or the run's node limit hit).
    fn dfs(&mut self, mut st: State, depth: u32) -> bool {
        match self.settle(&mut st, depth) {
            Err(()) => true,
            Ok(false) => false,
            Ok(true) => {
                if self.collect && !st.solved(self.b) {
                    self.witness(&st);
                }
                if self.learning() {
                    self.path.truncate(depth as usize);
                    self.path.push(st.clone());
                }
                self.branch(st, depth)
            }
        }
    }

    /// The children of a settled node (see [`Search::dfs`]): its answer at a leaf, else the
    /// branches on a hidden cage's operation or on the values of a cell.
    fn branch(&mut self, st: State, depth: u32) -> bool {
        if self.policy.op_branch
            && let Some(i) = self.op_cage(&st)
        {
            for op in [ADD, MUL] {
                let mut s2 = st.clone();
                s2.choose_op(i, op);
                if self.dfs(s2, depth + 1) {
                    return true;
                }
            }
            return false;
        }
        let Some(best) = self.branch_cell(&st) else {
            let g = st.grid(self.b);
            if self.b.is_solution(&g) {
                if self.collect {
                    self.witness(&st);
                }
                self.run_found += 1;
                if !self.sols.contains(&g) {
                    self.sols.push(g);
                }
                return self.sols.len() as u64 >= self.cap;
            }
            return false;
        };
        let mut vals = [0u32; 16];
        let mut nv = 0;
        for v in bits(st.cands[best]) {
            vals[nv] = v;
            nv += 1;
        }
        if let Some(rng) = &mut self.rng {
            use rand::seq::SliceRandom;
            vals[..nv].shuffle(rng);
        }
        let mut done = 0u16;
        for &v in &vals[..nv] {
            let mut s2 = st.clone();
            s2.assign(self.b, best, v);
            self.decs.push((best as u8, v as u8));
            let stop = self.dfs(s2, depth + 1);
            self.decs.pop();
            if stop {
                if self.aborted {
                    self.stopped.push((best as u8, v as u8, done));
                }
                return true;
            }
            done |= 1 << v;
        }
        false
    }
}

/// Where [`stable_under`] met a contradiction.
enum Unstable {
    /// In the store's propagation (no failure weight: see [`Search::settle`]).
    Store,
    /// In the fixpoint (`Ctx::fail_at` says where).
    Fixpoint,
}

/// Apply `store` (a propagation: `None` on a contradiction, else whether it removed values:
/// the restarts' or the learnt nogoods, or the line-block balance) and the fixpoint in turns
/// until neither removes anything.
fn stable_under(
    b: &Board,
    st: &mut State,
    rungs: Rungs,
    ctx: &mut Ctx,
    mut store: impl FnMut(&mut State) -> Option<bool>,
) -> Result<(), Unstable> {
    loop {
        match store(st) {
            None => return Err(Unstable::Store),
            Some(false) => return Ok(()),
            Some(true) => {
                ctx.fail_at = None;
                if fixpoint(b, st, rungs, ctx).is_err() {
                    return Err(Unstable::Fixpoint);
                }
            }
        }
    }
}

/// Solve with the enabled rungs plus search: count solutions up to `cap` (≥ 1), visiting at
/// most `node_cap` search nodes beyond the root; hitting the node cap gives `Count::Unknown`.
/// Uses the default [`SearchPolicy`].
pub fn solve(b: &Board, rungs: Rungs, cap: u64, node_cap: u64) -> Outcome {
    solve_with(b, rungs, cap, node_cap, SearchPolicy::default())
}

/// [`solve`] with an explicit search policy.
pub fn solve_with(
    b: &Board,
    rungs: Rungs,
    cap: u64,
    node_cap: u64,
    policy: SearchPolicy,
) -> Outcome {
    let cap = cap.max(1);
    let mut st = State::new(b);
    let mut ctx = Ctx::new();
    ctx.memo = Some(Box::default());
    let late = policy.root_probe == RootProbe::Late && rungs.has(Rung::Probe);
    let first_rungs = if late {
        rungs.without(Rung::Probe)
    } else {
        rungs
    };
    let root_ok = ladder(b, &mut st, first_rungs, &mut ctx).is_ok();
    let mut root = ctx.stats;
    if root_ok && let Some(m) = ctx.memo.as_deref_mut() {
        m.root = st.cands[..b.n * b.n].to_vec();
    }
    // The root's probe, not run yet (see `RootProbe::Late`).
    let mut probe_pending = late && root_ok && !st.solved(b);
    let mut s = Search {
        b,
        rungs,
        policy,
        cap,
        limit: node_cap,
        nodes: 1,
        sols: Vec::new(),
        run_found: 0,
        ctx,
        aborted: false,
        rng: None,
        weights: [0; 256],
        balance: None,
        quiet: Vec::new(),
        stopped: Vec::new(),
        nogoods: Nogoods::default(),
        decs: Vec::new(),
        path: Vec::new(),
        learned: Learned::default(),
        collect: probe_pending,
    };
    let mut grade = Grade::NoSolution;
    // Whether the last run exhausted its tree (so its count is exact).
    let mut exhausted = false;
    if root_ok {
        let mut solved = st.solved(b);
        let unit = policy.restart_unit;
        let mut run = 0u64;
        loop {
            let budget = match (unit, run) {
                (0, _) => u64::MAX,
                (_, 0) => unit.saturating_mul(FIRST_RUN_UNITS),
                _ => unit.saturating_mul(crate::engine::restart::luby(run)),
            };
            s.limit = s.nodes.saturating_add(budget).min(node_cap);
            s.aborted = false;
            s.run_found = 0;
            if run > 0 {
                s.rng = Some(crate::engine::seed::unit_rng(
                    RESTART_SEED ^ policy.restart_seed,
                    run,
                ));
            }
            if run > 0 && probe_pending {
                probe_pending = false;
                s.collect = false;
                let ok = s.probe_root(&mut st, &mut root);
                solved = st.solved(b);
                if !ok {
                    // Every answer was met already (none can be left: the probe is sound).
                    exhausted = true;
                    break;
                }
                // Tables built from here on list only the fillings the probe left.
                if let Some(m) = s.ctx.memo.as_deref_mut() {
                    m.root.copy_from_slice(&st.cands[..b.n * b.n]);
                }
            }
            let stopped = s.dfs(st.clone(), 0);
            if !stopped {
                exhausted = true;
                break;
            }
            if !s.aborted || s.limit >= node_cap {
                break;
            }
            let mut br = std::mem::take(&mut s.stopped);
            if policy.nogoods && !policy.op_branch {
                br.reverse();
                s.nogoods.branches.push(br);
            }
            run += 1;
        }
        let found = s.sols.len() as u64;
        if probe_pending && (found == 1 || (!exhausted && found < cap)) {
            // The search ended without the root's probe: with one answer met (to grade it as
            // `RootProbe::First` would: the probe solves the root's state exactly when the
            // board is unique and probe-graded), or undecided at the node cap (where the probe
            // may still decide it).
            let mut st2 = st.clone();
            if !s.probe_root(&mut st2, &mut root) {
                exhausted = true;
            } else if st2.solved(b) {
                let g = st2.grid(b);
                if b.is_solution(&g) {
                    if !s.sols.contains(&g) {
                        s.sols.push(g);
                    }
                    solved = true;
                }
                exhausted = true;
            }
        }
        if solved && !s.sols.is_empty() {
            let top = ALL_RUNGS
                .iter()
                .rev()
                .find(|&&r| root[r as usize].fired > 0);
            grade = Grade::Rung(top.copied().unwrap_or(Rung::Cage));
        } else if !solved {
            grade = Grade::Search;
        }
    } else {
        exhausted = true;
    }
    let found = s.sols.len() as u64;
    let count = if found >= cap {
        Count::AtLeast(found)
    } else if exhausted {
        // Without recorded subtrees the last run walked the whole tree, so it met each answer
        // (an answer whose cage reaches its target both ways under both operation branches).
        debug_assert!(!s.nogoods.is_empty() || s.run_found >= found);
        Count::Exact(found)
    } else {
        Count::Unknown
    };
    if count == Count::Exact(0) {
        grade = Grade::NoSolution;
    }
    Outcome {
        solutions: s.sols,
        count,
        nodes: s.nodes,
        stats: s.ctx.stats,
        root,
        grade,
    }
}

/// How a run of hints ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HintEnd {
    /// `max_steps` deductions were given and more may follow.
    More,
    Solved,
    /// The enabled rungs are stuck: the rest needs search.
    Stuck,
    Contradiction,
}

/// Up to `max_steps` successive deductions from the empty grid, each with its rung and reason.
pub fn hints(b: &Board, rungs: Rungs, max_steps: usize) -> (Vec<Hint>, HintEnd) {
    let mut st = State::new(b);
    let mut out = Vec::new();
    loop {
        if out.len() >= max_steps {
            return (out, HintEnd::More);
        }
        let mut ctx = Ctx::hinting();
        match ladder(b, &mut st, rungs, &mut ctx) {
            Err(Stop::Hint) => out.push(ctx.hint.take().expect("hint recorded")),
            Err(Stop::Contradiction) => return (out, HintEnd::Contradiction),
            Ok(()) => {
                let end = if st.solved(b) {
                    if b.is_solution(&st.grid(b)) {
                        HintEnd::Solved
                    } else {
                        HintEnd::Contradiction
                    }
                } else {
                    HintEnd::Stuck
                };
                return (out, end);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calcudoku::generate::seeded_board;
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// The matching check says "nothing to find" exactly when the subset scan would find
    /// nothing, on random lines where `single` and `hidden` are stable (3 to 9 unsettled cells,
    /// each with two values or more, each value in two cells or more), dense and sparse.
    #[test]
    fn subset_check_matches_scan() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(17);
        let (mut stable, mut found) = (0u32, 0u32);
        let mut tried = 0u32;
        while tried < 60_000 {
            let u = rng.random_range(3..=9usize);
            let p = rng.random_range(0.22..0.55f64);
            let vals: Vec<u32> = {
                let mut v: Vec<u32> = (1..=9).collect();
                use rand::seq::SliceRandom;
                v.shuffle(&mut rng);
                v.truncate(u);
                v
            };
            let cands: Vec<u16> = (0..u)
                .map(|_| {
                    vals.iter()
                        .filter(|_| rng.random_bool(p))
                        .fold(0u16, |m, &v| m | 1 << v)
                })
                .collect();
            let ok_cells = cands.iter().all(|m| m.count_ones() >= 2);
            let ok_vals = vals
                .iter()
                .all(|&v| cands.iter().filter(|&&m| m >> v & 1 != 0).count() >= 2);
            if !ok_cells || !ok_vals {
                continue;
            }
            tried += 1;
            // The scan of `rung_subset`: subsets of 2 to u - 2 cells.
            let mut finds = false;
            for sub in 1usize..(1 << u) {
                let k = sub.count_ones() as usize;
                if k < 2 || k + 1 >= u {
                    continue;
                }
                let un = (0..u)
                    .filter(|&j| sub >> j & 1 != 0)
                    .fold(0u16, |m, j| m | cands[j]);
                let vk = un.count_ones() as usize;
                if vk < k || (vk == k && (0..u).any(|j| sub >> j & 1 == 0 && cands[j] & un != 0)) {
                    finds = true;
                    break;
                }
            }
            assert_eq!(subset_line_stable(&cands), !finds, "{cands:?}");
            if finds {
                found += 1;
            } else {
                stable += 1;
            }
        }
        assert!(
            stable > 20_000 && found > 2_000,
            "{stable} stable, {found} found"
        );
    }

    /// The cheapest-first schedule reaches the ladder's fixpoint exactly: the same candidates
    /// left, or a contradiction in both, from random states (pins of the answer plus random
    /// removals, some leading to contradictions), under random sets of rungs, signs shown and
    /// hidden, orders 4 to 9 with cages up to 8 cells.
    #[test]
    fn fixpoint_matches_ladder() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let (mut same, mut dead) = (0u32, 0u32);
        for k in 0..900u64 {
            let n = 4 + (k % 6) as usize;
            let max_cage = 2 + (k % 7) as usize;
            let (b, sol) = seeded_board(n, max_cage, k % 2 == 1, 5000 + k);
            let rungs = if k % 4 == 0 {
                Rungs::ALL
            } else {
                Rungs(rng.random_range(0..64u8))
            };
            let mut st = State::new(&b);
            let pin = rng.random_range(0.0..0.4f64);
            let cut = rng.random_range(0.0..0.15f64);
            for c in 0..n * n {
                if rng.random_bool(pin) {
                    st.assign(&b, c, sol[c] as u32);
                } else {
                    for v in 1..=n as u32 {
                        if rng.random_bool(cut) && st.cands[c] != 1 << v {
                            st.cands[c] &= !(1 << v);
                        }
                    }
                }
            }
            let mut s1 = st.clone();
            let mut s2 = st.clone();
            let mut c1 = Ctx::new();
            let mut c2 = Ctx::new();
            c2.memo = Some(Box::default());
            let r1 = ladder(&b, &mut s1, rungs, &mut c1);
            let r2 = fixpoint(&b, &mut s2, rungs, &mut c2);
            assert_eq!(r1.is_ok(), r2.is_ok(), "board {k}, rungs {}", rungs.names());
            if r1.is_ok() {
                assert_eq!(
                    &s1.cands[..],
                    &s2.cands[..],
                    "board {k}, rungs {}",
                    rungs.names()
                );
                same += 1;
            } else {
                dead += 1;
            }
        }
        assert!(
            same > 200 && dead > 100,
            "{same} agreeing fixpoints, {dead} contradictions"
        );
    }

    /// Below the root the large cages are taken fewest candidates first: on a fresh state the
    /// smallest of them (the lowest index among equals), once a later cage's cells are pinned
    /// to the answer that cage, and a cage no longer stale is passed over.
    #[test]
    fn large_cages_fewest_candidates_first() {
        let mut tried = 0;
        for seed in 0..40u64 {
            let (b, sol) = seeded_board(9, 8, seed % 2 == 1, 700 + seed);
            let large: Vec<usize> = (0..b.cages.len())
                .filter(|&i| b.cages[i].cells.len() >= MEMO_MIN_CAGE)
                .collect();
            if large.len() < 2 {
                continue;
            }
            tried += 1;
            let todo = large.iter().fold(0u128, |m, &i| m | 1u128 << i);
            let mut st = State::new(&b);
            let fewest = large.iter().map(|&i| b.cages[i].cells.len()).min().unwrap();
            let first_smallest = *large
                .iter()
                .find(|&&i| b.cages[i].cells.len() == fewest)
                .unwrap();
            assert_eq!(
                cheapest_stale(&b, &st, todo),
                Some(first_smallest),
                "seed {seed}"
            );
            let last = *large.last().unwrap();
            for &c in &b.cages[last].cells {
                st.assign(&b, c as usize, sol[c as usize] as u32);
            }
            assert_eq!(cheapest_stale(&b, &st, todo), Some(last), "seed {seed}");
            st.stale &= !(1u128 << last);
            assert_ne!(cheapest_stale(&b, &st, todo), Some(last), "seed {seed}");
        }
        assert!(tried >= 10, "only {tried} boards with two large cages");
    }

    /// The must rung's record of cages already applied skips only work that removes nothing:
    /// along chains of random narrowings and fixpoints (orders 4 to 9, cages up to 8 cells,
    /// signs shown and hidden), forgetting the record and running the rung again removes no
    /// value.
    #[test]
    fn must_record_skips_nothing() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(23);
        let (mut checked, mut skipped) = (0u32, 0u32);
        for k in 0..300u64 {
            let n = 4 + (k % 6) as usize;
            let (b, _) = seeded_board(n, 2 + (k % 7) as usize, k % 2 == 1, 9000 + k);
            let mut st = State::new(&b);
            let mut ctx = Ctx::new();
            for _ in 0..6 {
                if fixpoint(&b, &mut st, Rungs::ALL.without(Rung::Probe), &mut ctx).is_err() {
                    break;
                }
                let mut again = st.clone();
                skipped += again.must_done.count_ones();
                again.must_done = 0;
                let before = again.cands;
                assert_eq!(
                    rung_must(&b, &mut again, Rungs::ALL, &mut Ctx::new()),
                    Ok(false),
                    "board {k}"
                );
                assert_eq!(&before[..], &again.cands[..], "board {k}");
                checked += 1;
                // Narrow a few open cells at random for the next round.
                for _ in 0..3 {
                    let c = rng.random_range(0..n * n);
                    let m = st.cands[c];
                    if m.count_ones() > 1 {
                        let v = bits(m).nth(rng.random_range(0..m.count_ones() as usize));
                        st.narrow(&b, c, !(1u16 << v.unwrap()));
                    }
                }
            }
        }
        assert!(
            checked > 500 && skipped > 2_000,
            "{checked} states, {skipped} cages skipped"
        );
    }

    /// The probe skips only trials that find nothing: with witnesses kept from random dives
    /// (fixpoints met on the way down, and answers), some of them outdated by later
    /// narrowings, the probe removes exactly what it removes with none.
    #[test]
    fn probe_witnesses_skip_nothing() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(29);
        let lower = Rungs::ALL.below(Rung::Probe);
        let (mut probed, mut covered, mut removing) = (0u32, 0u32, 0u32);
        for k in 0..240u64 {
            let n = 4 + (k % 4) as usize;
            let (b, _) = seeded_board(n, 3 + (k % 6) as usize, k % 2 == 1, 7000 + k);
            let mut st = State::new(&b);
            let mut ctx = Ctx::new();
            ctx.memo = Some(Box::default());
            if ladder(&b, &mut st, lower, &mut ctx).is_err() || st.solved(&b) {
                continue;
            }
            let mut memo = ctx.memo.take().unwrap();
            for _ in 0..8 {
                let mut s = st.clone();
                loop {
                    let open: Vec<usize> = (0..n * n)
                        .filter(|&c| s.cands[c].count_ones() > 1)
                        .collect();
                    let c = open[rng.random_range(0..open.len())];
                    let m = s.cands[c];
                    let v = bits(m).nth(rng.random_range(0..m.count_ones() as usize));
                    s.assign(&b, c, v.unwrap());
                    if fixpoint(&b, &mut s, lower, &mut Ctx::new()).is_err() {
                        break;
                    }
                    if s.solved(&b) {
                        if b.is_solution(&s.grid(&b)) {
                            memo.wit.add(&b, &s, lower);
                        }
                        break;
                    }
                    memo.wit.add(&b, &s, lower);
                }
            }
            // Narrow the state a little (outdating some witnesses) and probe it both ways.
            for _ in 0..2 {
                let c = rng.random_range(0..n * n);
                let m = st.cands[c];
                if m.count_ones() > 1 {
                    let v = bits(m).nth(rng.random_range(0..m.count_ones() as usize));
                    st.narrow(&b, c, !(1u16 << v.unwrap()));
                }
            }
            if fixpoint(&b, &mut st, lower, &mut Ctx::new()).is_err() {
                continue;
            }
            for c in 0..n * n {
                if st.cands[c].count_ones() > 1 {
                    covered += bits(st.cands[c])
                        .filter(|&v| memo.wit.covers(&b, &st, lower, c, v))
                        .count() as u32;
                }
            }
            let (mut with, mut without) = (st.clone(), st.clone());
            let mut c1 = Ctx::new();
            c1.memo = Some(memo);
            let mut c2 = Ctx::new();
            c2.memo = Some(Box::default());
            let r1 = rung_probe(&b, &mut with, Rungs::ALL, &mut c1);
            let r2 = rung_probe(&b, &mut without, Rungs::ALL, &mut c2);
            assert_eq!(r1, r2, "board {k}");
            assert_eq!(&with.cands[..], &without.cands[..], "board {k}");
            probed += 1;
            removing += (r2 == Ok(true)) as u32;
        }
        assert!(
            probed > 120 && covered > 1_500 && removing > 20,
            "{probed} states probed, {covered} trials covered, {removing} probes removing"
        );
    }

    /// Every filling of cage `i` (three cells or more) under `cand`, over all its positions in
    /// order, with no pruning beyond the target's bounds: the reference for [`enumerate`].
    fn unpruned(b: &Board, i: usize, cand: &[u16; MAX_CAGE]) -> MemoVal {
        let cage = &b.cages[i];
        let size = cage.cells.len();
        let nlines = b.cage_lines[i].len();
        let mut e = Enum::new(size, &b.cage_pos_lines[i], *cand, nlines);
        e.set_bounds();
        let t = cage.target;
        let hidden = b.cage_hidden(i);
        if (hidden || cage.op == Op::Add) && t <= 16 * 9 {
            e.add::<false>(0, t as i32);
        }
        if (hidden || cage.op == Op::Mul)
            && let Some(ex) = prime_exps(t)
        {
            e.mul::<false>(0, t, ex);
        }
        result(&e, 0)
    }

    /// The pruned enumeration (settled positions taken out of their lines and the target,
    /// subtrees that can change neither the support nor the needed values skipped) gives
    /// exactly what the unpruned enumeration of every filling over all positions gives, whether a filling exists included, on
    /// random states of orders 7 to 9 with cages up to 8 cells, signs shown and hidden: cells
    /// pinned to the answer or to another value, random removals (some states have no filling).
    #[test]
    fn pruned_enumeration_matches_unpruned() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(23);
        let (mut found, mut empty, mut settled) = (0u64, 0u64, 0u64);
        for k in 0..240u64 {
            let n = 7 + (k % 3) as usize;
            let max_cage = 4 + (k % 5) as usize;
            let (b, sol) = seeded_board(n, max_cage, k % 2 == 1, 9000 + k);
            let keep = rng.random_range(0.4..1.0f64);
            let pin = rng.random_range(0.0..0.3f64);
            let mut cands = [0u16; MAX_CELLS];
            for (c, m) in cands.iter_mut().enumerate().take(n * n) {
                *m = if rng.random_bool(pin) {
                    if rng.random_bool(0.8) {
                        1 << sol[c]
                    } else {
                        1 << rng.random_range(1..=n as u32)
                    }
                } else {
                    let mut x = if rng.random_bool(0.9) { 1 << sol[c] } else { 0 };
                    for v in 1..=n {
                        if rng.random_bool(keep) {
                            x |= 1 << v;
                        }
                    }
                    x
                };
            }
            for (i, cage) in b.cages.iter().enumerate() {
                if cage.cells.len() < 3 {
                    continue;
                }
                let mut cand = [0u16; MAX_CAGE];
                for (x, &c) in cand.iter_mut().zip(cage.cells.iter()) {
                    *x = cands[c as usize];
                    if x.is_power_of_two() {
                        settled += 1;
                    }
                }
                let fast = enumerate(&b, i, &cand, ADD | MUL);
                let plain = unpruned(&b, i, &cand);
                let nl = b.cage_lines[i].len();
                assert_eq!(fast.found, plain.found, "board {k} cage {i}");
                if plain.found {
                    assert_eq!(fast.support, plain.support, "board {k} cage {i}");
                    assert_eq!(fast.need[..nl], plain.need[..nl], "board {k} cage {i}");
                    found += 1;
                } else {
                    empty += 1;
                }
            }
        }
        assert!(
            found > 1000 && empty > 100 && settled > 500,
            "{found} cages with fillings, {empty} without, {settled} settled cells"
        );
    }

    /// The pruned cage enumeration (and its memo) gives exactly the support, the per-line
    /// needed values and the operations reached of a plain enumeration of every filling, and
    /// never drops a value of the board's answer, on random boards with random candidates that
    /// keep the answer.
    #[test]
    fn cage_enumeration_matches_plain_enumeration() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut cages_checked = 0u64;
        // Hidden cages left with one operation (checked twice each).
        let mut hidden_mixed = 0u64;
        for k in 0..2500u64 {
            let n = 4 + (k % 3) as usize;
            let max_cage = 2 + (k % 5) as usize;
            let hide = k % 2 == 1;
            let (b, sol) = seeded_board(n, max_cage, hide, 1000 + k);
            let mut st = State::new(&b);
            let keep = rng.random_range(0.3..1.0f64);
            for (c, m) in st.cands.iter_mut().enumerate().take(n * n) {
                let mut x = 1u16 << sol[c];
                for v in 1..=n {
                    if rng.random_bool(keep) {
                        x |= 1 << v;
                    }
                }
                *m = x;
            }
            let mut ctx = Ctx::new();
            if k % 3 == 0 {
                ctx.memo = Some(Box::default());
            }
            for i in 0..b.cages.len() {
                let cage = &b.cages[i];
                let fills: Vec<Vec<u8>> = cage_fillings(&b, i)
                    .into_iter()
                    .filter(|f| {
                        f.iter()
                            .zip(&cage.cells)
                            .all(|(&v, &c)| st.cands[c as usize] >> v & 1 != 0)
                    })
                    .collect();
                assert!(!fills.is_empty(), "the answer is a filling");
                for _round in 0..2 {
                    st.dirty |= 1u128 << i;
                    ensure(&b, &mut st, i, &mut ctx).expect("a filling exists");
                    for (p, &c) in cage.cells.iter().enumerate() {
                        let want = fills.iter().fold(0u16, |m, f| m | 1 << f[p]);
                        assert_eq!(st.support[c as usize], want, "board {k} cage {i}");
                        assert!(want >> sol[c as usize] & 1 != 0);
                    }
                    let off = b.cage_line_off[i] as usize;
                    for (j, &l) in b.cage_lines[i].iter().enumerate() {
                        let want = fills.iter().fold(u16::MAX, |m, f| {
                            let mut on = 0u16;
                            for (p, &c) in cage.cells.iter().enumerate() {
                                let c = c as usize;
                                if c / n == l as usize || n + c % n == l as usize {
                                    on |= 1 << f[p];
                                }
                            }
                            m & on
                        });
                        assert_eq!(st.need[off + j], want, "board {k} cage {i} line {l}");
                    }
                    let want_alive = if b.cage_hidden(i) {
                        let ops = Op::hidden_ops(cage.cells.len());
                        (0..ops.len()).fold(0u8, |m, j| {
                            let hit = fills
                                .iter()
                                .any(|f| crate::calcudoku::board::op_holds(ops[j], cage.target, f));
                            m | (hit as u8) << j
                        })
                    } else {
                        1
                    };
                    assert_eq!(st.alive[i], want_alive, "board {k} cage {i} operations");
                    hidden_mixed += (want_alive.count_ones() == 1
                        && cage.cells.len() > 1
                        && b.cage_hidden(i)) as u64;
                }
                cages_checked += 1;
            }
        }
        assert!(cages_checked > 10_000);
        assert!(
            hidden_mixed > 1_000,
            "{hidden_mixed} hidden cages left one operation"
        );
    }

    /// A cage table answers exactly what the enumeration finds (whether a filling exists, the
    /// support, the per-line needed values and the operations reached), on random boards of
    /// orders 6 to 9 with cages up to 8 cells, signs shown and hidden, built under random base
    /// candidates and queried along random narrowing walks (so that queries start from kept
    /// ones as well as from scratch) under every set of operations; candidates outside the
    /// base are refused.
    #[test]
    fn cage_tables_match_the_enumeration() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(41);
        let (mut answered, mut empty, mut left, mut refused, mut tables) = (0u64, 0, 0, 0, 0);
        for k in 0..120u64 {
            let n = 6 + (k % 4) as usize;
            let max_cage = 4 + (k % 5) as usize;
            let (b, sol) = seeded_board(n, max_cage, k % 2 == 1, 7000 + k);
            let keep = rng.random_range(0.5..1.0f64);
            for (i, cage) in b.cages.iter().enumerate() {
                let size = cage.cells.len();
                if size < 3 {
                    continue;
                }
                let mut base = [0u16; MAX_CAGE];
                for (x, &c) in base.iter_mut().zip(cage.cells.iter()) {
                    *x = 1 << sol[c as usize];
                    for v in 1..=n {
                        if rng.random_bool(keep) {
                            *x |= 1 << v;
                        }
                    }
                }
                let Ok(mut t) = CageTable::build(&b, i, &base, 1 << 18, u64::MAX) else {
                    continue;
                };
                tables += 1;
                assert!(t.fillings() > 0, "board {k} cage {i}");
                let hidden = b.cage_hidden(i);
                let mut cand = base;
                for step in 0..40 {
                    if step % 10 == 0 {
                        cand = base;
                    }
                    // Narrow: drop random values, sometimes pin a position.
                    let p = rng.random_range(0..size);
                    if rng.random_bool(0.2) {
                        let v = if rng.random_bool(0.7) {
                            sol[cage.cells[p] as usize] as u32
                        } else {
                            rng.random_range(1..=n as u32)
                        };
                        cand[p] &= 1 << v;
                    } else {
                        for v in 1..=n {
                            if rng.random_bool(0.15) {
                                cand[p] &= !(1 << v);
                            }
                        }
                    }
                    let opss: &[u8] = if hidden {
                        &[ADD | MUL, ADD, MUL, 0]
                    } else {
                        &[ADD | MUL]
                    };
                    for &ops in opss {
                        let plain = enumerate(&b, i, &cand, ops);
                        let Some(q) = t.query(&cand, ops) else {
                            left += 1;
                            continue;
                        };
                        assert_eq!(q.found, plain.found, "board {k} cage {i} {cand:?} {ops}");
                        if plain.found {
                            let nl = b.cage_lines[i].len();
                            assert_eq!(q.support, plain.support, "board {k} cage {i} {cand:?}");
                            assert_eq!(q.need[..nl], plain.need[..nl], "board {k} cage {i}");
                            assert_eq!(q.alive, plain.alive, "board {k} cage {i} {ops}");
                            answered += 1;
                        } else {
                            empty += 1;
                        }
                    }
                }
                // A value outside the base is refused.
                let p = rng.random_range(0..size);
                let out = crate::calcudoku::solver::full_mask(n) & !base[p];
                if out != 0 {
                    let mut c2 = base;
                    c2[p] |= 1 << out.trailing_zeros();
                    assert!(t.query(&c2, ADD | MUL).is_none(), "board {k} cage {i}");
                    refused += 1;
                }
            }
        }
        assert!(
            tables > 500 && answered > 10_000 && empty > 1_000 && left > 100 && refused > 50,
            "{tables} tables, {answered} answered, {empty} empty, {left} left to the \
             enumeration, {refused} refused"
        );
    }
}
