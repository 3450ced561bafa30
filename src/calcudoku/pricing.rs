//! Rung pricing on the bank (the Calcudoku write-up, "The ladder, priced rung by rung"), as an engine job.
//!
//! For every bank board and every rung r:
//! * **climbing**: the root ladder with the rungs up to and including r: cells it settles (one
//!   candidate left) and whether it finishes the board;
//! * **settled by r**: cells r itself settles in the full root ladder (the solver's rung trace);
//! * **without r**: the root ladder with every rung but r: does it finish, and does it end in
//!   exactly the candidates of the full ladder (then r adds nothing on that board); search nodes
//!   of a uniqueness decision (cap 2) without r against with every rung;
//! * **containment**: for each other rung q, boards on which removing r *as well as* q leaves the
//!   ladder's end state equal to removing q alone. If r adds nothing to the full ladder but does
//!   once q is gone, the data say q (with the rest) contains r.
//!
//! `results/calcudoku_pricing.csv`, one row per (order, rung): see [`COLUMNS`].

use super::bank::{BANK_FILE, DEFAULT_BANK_DIR, IndexRow, load_bank, read_index};
use super::board::Board;
use super::solver::{ALL_RUNGS, Count, Ctx, RUNG_COUNT, Rungs, State, ladder, solve};
use crate::engine::cli::{EngineArgs, execute, write_result};
use crate::engine::{Job, JobSpec, Partial, Unit};
use crate::error::input_error;
use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const PRICING_FILE: &str = "calcudoku_pricing.csv";
pub const PRICING_KIND: &str = "calcudoku-pricing";
const CHUNK: usize = 25;

pub const COLUMNS: [&str; 18] = [
    "order",
    "rung",
    "boards",
    "cells",
    "settled_climbing",
    "finished_climbing",
    "settled_by_rung",
    "finished_without",
    "unchanged_without",
    "nodes_with",
    "nodes_without",
    "unknown_without",
    "unchanged_without_also_cage",
    "unchanged_without_also_single",
    "unchanged_without_also_hidden",
    "unchanged_without_also_must",
    "unchanged_without_also_subset",
    "unchanged_without_also_probe",
];

/// Counts for one (order, rung).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RungRow {
    pub boards: u64,
    pub cells: u64,
    pub settled_climbing: u64,
    pub finished_climbing: u64,
    pub settled_by_rung: u64,
    pub finished_without: u64,
    pub unchanged_without: u64,
    pub nodes_with: u64,
    pub nodes_without: u64,
    pub unknown_without: u64,
    pub unchanged_also: [u64; RUNG_COUNT],
}

impl RungRow {
    fn add(&mut self, o: &RungRow) {
        self.boards += o.boards;
        self.cells += o.cells;
        self.settled_climbing += o.settled_climbing;
        self.finished_climbing += o.finished_climbing;
        self.settled_by_rung += o.settled_by_rung;
        self.finished_without += o.finished_without;
        self.unchanged_without += o.unchanged_without;
        self.nodes_with += o.nodes_with;
        self.nodes_without += o.nodes_without;
        self.unknown_without += o.unknown_without;
        for q in 0..RUNG_COUNT {
            self.unchanged_also[q] += o.unchanged_also[q];
        }
    }
}

/// The pricing table: (order, rung index) → counts. Serialised as a list of entries (JSON
/// object keys must be strings).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    into = "Vec<(usize, usize, RungRow)>",
    from = "Vec<(usize, usize, RungRow)>"
)]
pub struct Pricing(pub BTreeMap<(usize, usize), RungRow>);

impl From<Pricing> for Vec<(usize, usize, RungRow)> {
    fn from(p: Pricing) -> Self {
        p.0.into_iter().map(|((n, r), v)| (n, r, v)).collect()
    }
}

impl From<Vec<(usize, usize, RungRow)>> for Pricing {
    fn from(v: Vec<(usize, usize, RungRow)>) -> Self {
        Pricing(v.into_iter().map(|(n, r, x)| ((n, r), x)).collect())
    }
}

impl Partial for Pricing {
    fn merge(&mut self, other: Self) {
        for (k, v) in other.0 {
            self.0.entry(k).or_default().add(&v);
        }
    }
}

/// End state of the root ladder with `rungs` (`None`: contradiction).
fn root_state(b: &Board, rungs: Rungs) -> Option<Vec<u16>> {
    let mut st = State::new(b);
    let mut ctx = Ctx::new();
    ladder(b, &mut st, rungs, &mut ctx).ok()?;
    Some(st.cands[..b.n * b.n].to_vec())
}

fn settled(state: &Option<Vec<u16>>) -> u64 {
    state
        .as_ref()
        .map(|s| s.iter().filter(|m| m.count_ones() == 1).count() as u64)
        .unwrap_or(0)
}

/// Price every rung on one board.
pub fn price_board(b: &Board, node_cap: u64) -> Result<[RungRow; RUNG_COUNT]> {
    let nn = (b.n * b.n) as u64;
    let full = solve(b, Rungs::ALL, 2, node_cap);
    if full.count != Count::Exact(1) {
        bail!(
            "pricing: a bank board is not unique ({}):\n{}",
            full.count,
            b.to_text()
        );
    }
    let full_state = root_state(b, Rungs::ALL);
    let without: Vec<Option<Vec<u16>>> = ALL_RUNGS
        .iter()
        .map(|&q| root_state(b, Rungs::ALL.without(q)))
        .collect();
    let mut rows = [RungRow::default(); RUNG_COUNT];
    for (ri, &r) in ALL_RUNGS.iter().enumerate() {
        let row = &mut rows[ri];
        row.boards = 1;
        row.cells = nn;
        let climb = root_state(b, Rungs(((1u16 << (ri + 1)) - 1) as u8));
        let sc = settled(&climb);
        row.settled_climbing = sc;
        row.finished_climbing = (sc == nn) as u64;
        row.settled_by_rung = full.root[ri].settled;
        row.finished_without = (settled(&without[ri]) == nn) as u64;
        row.unchanged_without = (without[ri] == full_state) as u64;
        let o = solve(b, Rungs::ALL.without(r), 2, node_cap);
        row.nodes_with = full.nodes;
        match o.count {
            Count::Unknown => row.unknown_without = 1,
            Count::Exact(1) => row.nodes_without = o.nodes,
            c => bail!(
                "pricing: without {r} the count is {c} on a unique board (unsound rung?):\n{}",
                b.to_text()
            ),
        }
        for (qi, &q) in ALL_RUNGS.iter().enumerate() {
            row.unchanged_also[qi] = if qi == ri {
                1
            } else {
                (root_state(b, Rungs::ALL.without(q).without(r)) == without[qi]) as u64
            };
        }
    }
    Ok(rows)
}

pub struct PricingJob {
    pub boards: Vec<(IndexRow, Board)>,
    pub node_cap: u64,
    /// Digest of the index rows priced (identifies the bank in the spec).
    pub bank_digest: String,
}

impl Job for PricingJob {
    type Partial = Pricing;
    fn spec(&self) -> JobSpec {
        JobSpec::new(
            PRICING_KIND,
            serde_json::json!({
                "bank": self.bank_digest,
                "boards": self.boards.len(),
                "node_cap": self.node_cap,
                "chunk": CHUNK,
                "version": 1,
            }),
            0,
        )
    }
    fn unit_count(&self) -> u64 {
        self.boards.len().div_ceil(CHUNK) as u64
    }
    fn run_unit(&self, unit: Unit) -> Result<Pricing> {
        let lo = unit.index as usize * CHUNK;
        let hi = (lo + CHUNK).min(self.boards.len());
        let mut p = Pricing::default();
        for (row, b) in &self.boards[lo..hi] {
            let rows = price_board(b, self.node_cap)?;
            for (ri, r) in rows.iter().enumerate() {
                p.0.entry((row.order, ri)).or_default().add(r);
            }
        }
        Ok(p)
    }
    fn label(&self) -> String {
        "calcudoku pricing".into()
    }
}

pub fn pricing_csv(p: &Pricing) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(COLUMNS).expect("in-memory");
    for (&(n, ri), r) in &p.0 {
        let mut f = vec![
            n.to_string(),
            ALL_RUNGS[ri].name().to_string(),
            r.boards.to_string(),
            r.cells.to_string(),
            r.settled_climbing.to_string(),
            r.finished_climbing.to_string(),
            r.settled_by_rung.to_string(),
            r.finished_without.to_string(),
            r.unchanged_without.to_string(),
            r.nodes_with.to_string(),
            r.nodes_without.to_string(),
            r.unknown_without.to_string(),
        ];
        f.extend(r.unchanged_also.iter().map(|x| x.to_string()));
        w.write_record(f).expect("in-memory");
    }
    w.into_inner().expect("in-memory")
}

pub fn read_pricing(path: &Path) -> Result<Pricing> {
    let mut p = Pricing::default();
    crate::engine::table::read_rows(path, &COLUMNS, |r| {
        let int = |j: usize| r.int(j);
        let ri = super::solver::Rung::from_name(r.text(1)?).ok_or_else(|| r.bad())? as usize;
        let mut also = [0u64; RUNG_COUNT];
        for (q, a) in also.iter_mut().enumerate() {
            *a = int(12 + q)?;
        }
        p.0.insert(
            (int(0)? as usize, ri),
            RungRow {
                boards: int(2)?,
                cells: int(3)?,
                settled_climbing: int(4)?,
                finished_climbing: int(5)?,
                settled_by_rung: int(6)?,
                finished_without: int(7)?,
                unchanged_without: int(8)?,
                nodes_with: int(9)?,
                nodes_without: int(10)?,
                unknown_without: int(11)?,
                unchanged_also: also,
            },
        );
        Ok(())
    })?;
    Ok(p)
}

/// `gridcensus calcudoku pricing`: price every rung on the bank listed in the results directory.
pub fn cmd_pricing(bank_dir: &Path, node_cap: u64, engine: &EngineArgs) -> Result<()> {
    engine.validate()?;
    if node_cap == 0 {
        bail!(input_error("--node-cap must be at least 1"));
    }
    let index_path = engine.results.join(BANK_FILE);
    let index = read_index(&index_path)?;
    if index.is_empty() {
        bail!(input_error(format!(
            "{}: no bank index (run `gridcensus calcudoku bank` first)",
            index_path.display()
        )));
    }
    let digest = super::bank::digest(
        &index
            .iter()
            .map(|r| r.digest.as_str())
            .collect::<Vec<_>>()
            .join(","),
    );
    let job = PricingJob {
        boards: load_bank(&index, bank_dir)?,
        node_cap,
        bank_digest: digest,
    };
    let Some((p, st)) = execute(&job, engine)? else {
        return Ok(());
    };
    eprintln!(
        "calcudoku pricing: {} boards in {:.1} s on {} threads",
        job.boards.len(),
        st.elapsed_seconds,
        st.threads
    );
    write_result(&engine.results.join(PRICING_FILE), &pricing_csv(&p), &[&st])?;
    st.cleanup();
    Ok(())
}

pub fn merge(files: &[PathBuf], results: &Path) -> Result<()> {
    let (_spec, p, stats) = crate::engine::cli::merge::<Pricing>(files)?;
    write_result(&results.join(PRICING_FILE), &pricing_csv(&p), &[&stats])?;
    stats.cleanup();
    Ok(())
}

pub fn default_bank_dir() -> PathBuf {
    PathBuf::from(DEFAULT_BANK_DIR)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn pricing_round_trips_through_json() {
        let mut p = Pricing::default();
        p.0.insert(
            (5, 2),
            RungRow {
                boards: 3,
                ..RungRow::default()
            },
        );
        let text = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<Pricing>(&text).unwrap(), p);
    }
}
