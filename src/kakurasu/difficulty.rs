//! The difficulty study as an engine job: per size, B boards from the rejection-sampling
//! generator; for each, whether intervals alone and enumeration alone finish it (no search), how
//! many cells each had decided when it stalled, the rolls to a unique board, and the search
//! effort of search with enumeration (capped at 2 solutions, i.e. proving uniqueness) on the
//! boards enumeration alone does not finish. (Search with intervals is not run here: on 9×9
//! boards it expands ~10⁵ nodes per board; the node comparison lives in the tests.)
//!
//! Units are chunks of [`CHUNK`] boards of one size. A unit's RNG stream is the engine's
//! per-unit stream keyed by (seed, size·2⁴⁰ + chunk), so the boards of a size do not depend on
//! which other sizes are in the run, and the totals are identical at any thread or shard count.

use super::generate::unique_board;
use super::rules::{Fixpoint, RuleSet, State, fixpoint};
use crate::engine::{Job, JobSpec, Partial, Unit};
use crate::error::input_error;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Boards per work unit.
pub const CHUNK: u64 = 50;
/// A generator that needs more rolls than this for one board aborts the run.
pub const MAX_ROLLS: u64 = 100_000;
pub const DEFAULT_BOARDS: u64 = 200;
pub const DEFAULT_SEED: u64 = 20_260_003;

/// Exact integer sums for one size; merged by addition.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeStats {
    pub boards: u64,
    pub rolls_sum: u64,
    pub rolls_sq: u64,
    pub rolls_max: u64,
    pub int_finish: u64,
    pub enum_finish: u64,
    /// Σ cells decided at the stall, over boards the rule set does not finish.
    pub int_stall_cells: u64,
    pub enum_stall_cells: u64,
    pub int_stall_cells_sq: u64,
    pub enum_stall_cells_sq: u64,
    /// Search with enumeration, over boards enumeration does not finish.
    pub enum_branches: u64,
    pub enum_branches_sq: u64,
    pub enum_branches_max: u64,
    pub enum_nodes: u64,
}

impl SizeStats {
    fn merge(&mut self, o: &SizeStats) {
        self.boards += o.boards;
        self.rolls_sum += o.rolls_sum;
        self.rolls_sq += o.rolls_sq;
        self.rolls_max = self.rolls_max.max(o.rolls_max);
        self.int_finish += o.int_finish;
        self.enum_finish += o.enum_finish;
        self.int_stall_cells += o.int_stall_cells;
        self.enum_stall_cells += o.enum_stall_cells;
        self.int_stall_cells_sq += o.int_stall_cells_sq;
        self.enum_stall_cells_sq += o.enum_stall_cells_sq;
        self.enum_branches += o.enum_branches;
        self.enum_branches_sq += o.enum_branches_sq;
        self.enum_branches_max = self.enum_branches_max.max(o.enum_branches_max);
        self.enum_nodes += o.enum_nodes;
    }
}

/// The partial: stats by size.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DifficultyTotals(pub BTreeMap<usize, SizeStats>);

impl Partial for DifficultyTotals {
    fn merge(&mut self, other: Self) {
        for (n, s) in other.0 {
            self.0.entry(n).or_default().merge(&s);
        }
    }
}

/// Measure one generated board into `st`.
pub fn measure(n: usize, rng: &mut crate::engine::seed::UnitRng, st: &mut SizeStats) -> Result<()> {
    let g = unique_board(n, rng, MAX_ROLLS).ok_or_else(|| {
        anyhow::anyhow!("no uniquely solvable {n}×{n} board in {MAX_ROLLS} rolls")
    })?;
    st.boards += 1;
    st.rolls_sum += g.rolls;
    st.rolls_sq += g.rolls * g.rolls;
    st.rolls_max = st.rolls_max.max(g.rolls);
    for rule in [RuleSet::Intervals, RuleSet::Enumeration] {
        let (finish, stall_cells, stall_sq) = match rule {
            RuleSet::Intervals => (
                &mut st.int_finish,
                &mut st.int_stall_cells,
                &mut st.int_stall_cells_sq,
            ),
            RuleSet::Enumeration => (
                &mut st.enum_finish,
                &mut st.enum_stall_cells,
                &mut st.enum_stall_cells_sq,
            ),
        };
        match fixpoint(&g.board, State::empty(n), rule) {
            Fixpoint::Solved(s) => {
                if s.shading() != g.solution {
                    anyhow::bail!("internal error: {rule} fixpoint solved to a wrong shading");
                }
                *finish += 1;
            }
            Fixpoint::Stalled(s) => {
                let d = s.decided() as u64;
                *stall_cells += d;
                *stall_sq += d * d;
            }
            Fixpoint::Contradiction => {
                anyhow::bail!("internal error: {rule} fixpoint contradicts a solvable board")
            }
        }
    }
    // Search with enumeration (capped at 2: proving uniqueness) when enumeration stalls.
    if g.search.count != 1 {
        anyhow::bail!("internal error: generator accepted a non-unique board");
    }
    if g.search.stats.branches > 0 {
        let b = g.search.stats.branches;
        st.enum_branches += b;
        st.enum_branches_sq += b * b;
        st.enum_branches_max = st.enum_branches_max.max(b);
        st.enum_nodes += g.search.stats.nodes;
    }
    Ok(())
}

/// The study of `boards` boards for each size, from `seed`.
pub struct DifficultyJob {
    pub sizes: Vec<usize>,
    pub boards: u64,
    pub seed: u64,
}

impl DifficultyJob {
    pub fn new(sizes: Vec<usize>, boards: u64, seed: u64) -> Result<Self> {
        if boards == 0 {
            return Err(input_error("--boards must be at least 1"));
        }
        for &n in &sizes {
            if !(1..=super::MAX_N).contains(&n) {
                return Err(input_error(format!(
                    "size {n} is out of range: Kakurasu boards are 1×1 to 9×9"
                )));
            }
        }
        Ok(DifficultyJob {
            sizes,
            boards,
            seed,
        })
    }

    fn chunks(&self) -> u64 {
        self.boards.div_ceil(CHUNK)
    }
}

impl Job for DifficultyJob {
    type Partial = DifficultyTotals;

    fn spec(&self) -> JobSpec {
        JobSpec::new(
            "kakurasu-difficulty",
            serde_json::json!({"sizes": self.sizes, "boards": self.boards, "chunk": CHUNK,
                               "seed": self.seed, "version": 1}),
            self.seed,
        )
    }

    fn unit_count(&self) -> u64 {
        self.sizes.len() as u64 * self.chunks()
    }

    fn run_unit(&self, unit: Unit) -> Result<DifficultyTotals> {
        let n = self.sizes[(unit.index / self.chunks()) as usize];
        let chunk = unit.index % self.chunks();
        let count = CHUNK.min(self.boards - chunk * CHUNK);
        let mut rng = crate::engine::seed::unit_rng(unit.master_seed, ((n as u64) << 40) + chunk);
        let mut st = SizeStats::default();
        for _ in 0..count {
            measure(n, &mut rng, &mut st)?;
        }
        let mut t = DifficultyTotals::default();
        t.0.insert(n, st);
        Ok(t)
    }

    fn label(&self) -> String {
        format!("kakurasu difficulty B={}", self.boards)
    }
}

/// The default result file for B boards per size.
pub fn file_name(boards: u64) -> String {
    if boards == DEFAULT_BOARDS {
        "kakurasu_difficulty.csv".into()
    } else {
        format!("kakurasu_difficulty_b{boards}.csv")
    }
}

pub const COLUMNS: [&str; 20] = [
    "size",
    "boards",
    "seed",
    "intervals_finish",
    "intervals_finish_share",
    "enumeration_finish",
    "enumeration_finish_share",
    "rolls_mean",
    "rolls_sd",
    "rolls_max",
    "intervals_stalls",
    "intervals_stall_cells_mean",
    "intervals_stall_cells_sd",
    "enumeration_stalls",
    "enumeration_stall_cells_mean",
    "enumeration_stall_cells_sd",
    "enumeration_search_branches_mean",
    "enumeration_search_branches_sd",
    "enumeration_search_branches_max",
    "enumeration_search_nodes_mean",
];

fn mean(sum: u64, k: u64) -> f64 {
    if k == 0 {
        f64::NAN
    } else {
        sum as f64 / k as f64
    }
}

fn sd(sum: u64, sq: u64, k: u64) -> f64 {
    if k < 2 {
        return f64::NAN;
    }
    let m = sum as f64 / k as f64;
    ((sq as f64 - k as f64 * m * m) / (k as f64 - 1.0))
        .max(0.0)
        .sqrt()
}

fn fmt(x: f64) -> String {
    if x.is_nan() {
        String::new()
    } else {
        format!("{x:.6}")
    }
}

/// The CSV bytes of a finished study.
pub fn csv_bytes(totals: &DifficultyTotals, seed: u64) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(COLUMNS).unwrap();
    for (&n, s) in &totals.0 {
        let int_stalls = s.boards - s.int_finish;
        let enum_stalls = s.boards - s.enum_finish;
        w.write_record([
            n.to_string(),
            s.boards.to_string(),
            seed.to_string(),
            s.int_finish.to_string(),
            fmt(mean(s.int_finish, s.boards)),
            s.enum_finish.to_string(),
            fmt(mean(s.enum_finish, s.boards)),
            fmt(mean(s.rolls_sum, s.boards)),
            fmt(sd(s.rolls_sum, s.rolls_sq, s.boards)),
            s.rolls_max.to_string(),
            int_stalls.to_string(),
            fmt(mean(s.int_stall_cells, int_stalls)),
            fmt(sd(s.int_stall_cells, s.int_stall_cells_sq, int_stalls)),
            enum_stalls.to_string(),
            fmt(mean(s.enum_stall_cells, enum_stalls)),
            fmt(sd(s.enum_stall_cells, s.enum_stall_cells_sq, enum_stalls)),
            fmt(mean(s.enum_branches, enum_stalls)),
            fmt(sd(s.enum_branches, s.enum_branches_sq, enum_stalls)),
            s.enum_branches_max.to_string(),
            fmt(mean(s.enum_nodes, enum_stalls)),
        ])
        .unwrap();
    }
    w.into_inner().expect("in-memory writer")
}
