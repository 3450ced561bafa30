//! The board bank: adversarial irredundant boards of sizes 4..10, each re-proved unique by the
//! ladder with search and by the raw walk engine before it is written.

use super::board::Board;
use super::certificate;
use super::generate;
use super::ladder::{Ctx, Rungs, Work};
use super::path;
use super::search::{self, Count, Limits};
use crate::engine::{Job, JobSpec, Records, Unit};
use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};

/// Adapter to the raw walk engine of `census/`:
/// `crate::numbrix::census::walk::count_solutions(rows, cols, givens, cap) -> u64`.
pub fn raw_engine_count(rows: usize, cols: usize, givens: &[u32], cap: u64) -> Option<u64> {
    Some(crate::numbrix::census::walk::count_solutions(
        rows, cols, givens, cap,
    ))
}

/// Ladder grades: the smallest prefix of the ladder that finishes a board.
pub const GRADES: [(&str, Rungs); 4] = [
    ("link", Rungs(0b00_0011)),
    ("block", Rungs(0b00_1011)),
    ("edge", Rungs(0b01_1011)),
    ("probe", Rungs::DEFAULT),
];

pub fn grade(ctx: &Ctx, board: &Board) -> &'static str {
    for (name, rungs) in GRADES {
        if search::ladder_finishes(ctx, board, rungs, &mut Work::default()) {
            return name;
        }
    }
    "search"
}

/// One bank board with its proofs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct BankBoard {
    pub index: u64,
    pub rows: usize,
    pub cols: usize,
    pub givens: Vec<u32>,
    pub answer: Vec<u32>,
    pub clues: usize,
    pub grade: String,
    /// Answers counted by the ladder with search (cap 2).
    pub search_count: u64,
    pub search_nodes: u64,
    /// Answers counted by the raw walk engine (cap 2); None when not available.
    pub raw_count: Option<u64>,
}

pub struct BankJob {
    pub sizes: Vec<usize>,
    pub per_size: u64,
    pub moves_per_cell: u64,
    pub seed: u64,
}

impl Job for BankJob {
    type Partial = Records<BankBoard>;
    fn spec(&self) -> JobSpec {
        JobSpec::new(
            "numbrix-bank",
            serde_json::json!({"sizes": self.sizes, "per_size": self.per_size,
                               "moves_per_cell": self.moves_per_cell}),
            self.seed,
        )
    }
    fn unit_count(&self) -> u64 {
        self.sizes.len() as u64 * self.per_size
    }
    fn run_unit(&self, unit: Unit) -> Result<Records<BankBoard>> {
        let s = self.sizes[(unit.index / self.per_size) as usize];
        let mut rng = unit.rng();
        let ctx = Ctx::new(s, s);
        let answer = path::random_answer(s, s, self.moves_per_cell, &mut rng);
        let board = generate::adversarial(
            &ctx,
            &answer,
            Rungs::NO_PROBE,
            &mut rng,
            &mut Work::default(),
        );
        let v = search::count_in(
            &ctx,
            &board,
            Rungs::DECIDE,
            Limits {
                cap: 2,
                node_cap: 10_000_000,
            },
        );
        if v.count != Count::Exact(1) || v.answers[0] != answer {
            bail!(
                "bank board {} not re-proved unique by search: {:?}",
                unit.index,
                v.count
            );
        }
        if certificate::find(&board, &answer).is_some() {
            bail!("bank board {} carries a reversal certificate", unit.index);
        }
        let raw = raw_engine_count(s, s, &board.givens, 2);
        if let Some(k) = raw
            && k != 1
        {
            bail!(
                "bank board {}: the raw engine counts {k} answers",
                unit.index
            );
        }
        Ok(Records(vec![BankBoard {
            index: unit.index,
            rows: s,
            cols: s,
            clues: board.clue_count(),
            grade: grade(&ctx, &board).to_string(),
            givens: board.givens,
            answer,
            search_count: 1,
            search_nodes: v.nodes,
            raw_count: raw,
        }]))
    }
}

impl BankBoard {
    pub fn board(&self) -> Board {
        Board {
            rows: self.rows,
            cols: self.cols,
            givens: self.givens.clone(),
        }
    }
    pub fn file_name(&self) -> String {
        format!("{}x{}-{:03}.txt", self.rows, self.cols, self.index)
    }
    pub fn file_text(&self) -> String {
        format!(
            "# gridcensus numbrix bank board {} ({}x{}, {} printed numbers, grade {})\n# unique: ladder+search count {}, raw engine count {}\n{}",
            self.index,
            self.rows,
            self.cols,
            self.clues,
            self.grade,
            self.search_count,
            self.raw_count
                .map_or("pending".to_string(), |k| k.to_string()),
            self.board().format()
        )
    }
}

/// Read every bank board file of a directory (sorted by name).
pub fn read_bank(dir: &std::path::Path) -> Result<Vec<(String, Board)>> {
    let mut out = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    names.sort();
    for p in names {
        out.push((p.display().to_string(), Board::read(&p)?));
    }
    Ok(out)
}

/// The rung names of a grade, for documentation.
pub fn grade_rungs(name: &str) -> Option<Rungs> {
    GRADES.iter().find(|g| g.0 == name).map(|g| g.1)
}
