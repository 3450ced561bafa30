//! The Calcudoku board bank, as an engine job: repair-and-tighten boards per order on uniform
//! squares, each proved unique by the ladder + search and (orders ≤ 7) by the independent
//! verifier, written as board files plus an index; beside it a keep-only-unique filter bank of
//! the same size (its squares' intercalates only) and the generator timed with and without the
//! certified-flip check.
//!
//! Files (under the results directory unless noted):
//! * `calcudoku_bank.csv`, one row per board, keyed by (order, index):
//!   `order,index,seed,max_cage,cages,grade,nodes,intercalates,splits,splits_by_flip,merges,proofs,digest,signs_hidden`.
//!   `seed` regenerates the board: `gridcensus calcudoku generate --order N --max-cage K --seed S`.
//!   `digest` is the FNV-1a 64 digest of the board file's cage lines (comments excluded).
//! * `calcudoku_bank_summary.csv`, one row per order: the filter bank and the generator run
//!   without the flip check (deterministic counts).
//! * `calcudoku_bank_timing.csv`: generator wall time per board, median/p90/max per order and
//!   method (`repair`, `repair-no-flips`, `filter`). Not byte-deterministic, hence separate.
//! * board files `NxN/NxN-IIII.txt` under the bank directory (`--out`).

use super::board::Board;
use super::certificate::intercalates;
use super::repair::{RepairOptions, generate_repair};
use super::solver::{Count, Grade, Rungs, solve};
use super::squares::SquareSource;
use super::verify::verify_count;
use crate::engine::cli::{EngineArgs, RunStats, execute};
use crate::engine::clock::thread_cpu_ns;
use crate::engine::{Job, JobSpec, Records, Unit};
use crate::error::input_error;
use anyhow::{Result, bail};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub const BANK_FILE: &str = "calcudoku_bank.csv";
pub const SUMMARY_FILE: &str = "calcudoku_bank_summary.csv";
pub const TIMING_FILE: &str = "calcudoku_bank_timing.csv";
pub const BANK_KIND: &str = "calcudoku-bank";
/// Default bank directory of board files (relative to the working directory).
pub const DEFAULT_BANK_DIR: &str = "bank/calcudoku";
/// Boards per work unit.
const CHUNK: u64 = 10;
/// Squares the filter may draw for one board before the run fails.
const FILTER_MAX_DRAWS: u64 = 1_000_000;
/// Largest order the independent verifier (plain backtracking) is run on.
pub const VERIFY_MAX_ORDER: usize = 7;

pub const BANK_COLUMNS: [&str; 14] = [
    "order",
    "index",
    "seed",
    "max_cage",
    "cages",
    "grade",
    "nodes",
    "intercalates",
    "splits",
    "splits_by_flip",
    "merges",
    "proofs",
    "digest",
    "signs_hidden",
];

pub const SUMMARY_COLUMNS: [&str; 20] = [
    "order",
    "boards",
    "splits",
    "splits_by_flip",
    "searches",
    "nodes",
    "noflip_splits",
    "noflip_searches",
    "noflip_nodes",
    "noflip_same_board",
    "filter_boards",
    "filter_draws",
    "filter_capped",
    "filter_intercalates_sum",
    "filter_intercalates_sumsq",
    "rejected_squares",
    "rejected_intercalates_sum",
    "rejected_intercalates_sumsq",
    "hidden_unique",
    "hidden_unknown",
];

pub const TIMING_COLUMNS: [&str; 7] = [
    "order",
    "method",
    "boards",
    "median_ms",
    "p90_ms",
    "max_ms",
    "total_s",
];

/// One bank board with everything measured on it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BankBoard {
    pub order: usize,
    pub index: u64,
    pub seed: u64,
    pub max_cage: usize,
    /// The board file's cage lines (`Board::to_text`).
    pub text: String,
    pub cages: usize,
    pub grade: String,
    pub nodes: u64,
    pub intercalates: usize,
    pub splits: u64,
    pub splits_by_flip: u64,
    pub searches: u64,
    pub gen_nodes: u64,
    pub merges: u64,
    pub proofs: String,
    /// The uniqueness decision with every sign hidden: `unique`, `2+`, `unknown` (node cap) or
    /// `none` (the answer lost: impossible for a sound solver, and a failing report check).
    pub signs_hidden: String,
    pub noflip_splits: u64,
    pub noflip_searches: u64,
    pub noflip_nodes: u64,
    pub noflip_same: bool,
    pub filter_draws: u64,
    pub filter_capped: u64,
    pub filter_intercalates: usize,
    /// Intercalates of the squares the filter discarded.
    pub rejected: Vec<usize>,
    /// Thread CPU nanoseconds: repair with flips, without flips, filter.
    pub ns: [u64; 3],
}

/// FNV-1a 64 of a text, as 16 hex digits.
pub fn digest(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

pub fn file_name(order: usize, index: u64) -> String {
    format!("{order}x{order}/{order}x{order}-{:04}.txt", index + 1)
}

/// The generator options of the bank and of `calcudoku generate`.
pub fn options(max_cage: usize, node_cap: u64, use_flips: bool) -> RepairOptions {
    RepairOptions {
        max_cage,
        node_cap,
        use_flips,
    }
}

pub struct BankJob {
    pub orders: Vec<usize>,
    pub boards: u64,
    pub max_cage: usize,
    pub node_cap: u64,
    pub seed: u64,
}

impl BankJob {
    pub fn new(
        orders: Vec<usize>,
        boards: u64,
        max_cage: usize,
        node_cap: u64,
        seed: u64,
    ) -> Result<Self> {
        if orders.is_empty() || boards == 0 {
            bail!(input_error("bank: --orders and --boards must not be empty"));
        }
        if !(2..=super::board::MAX_CAGE).contains(&max_cage) {
            bail!(input_error(format!(
                "bank: --max-cage {max_cage} is out of range 2..={}",
                super::board::MAX_CAGE
            )));
        }
        if node_cap == 0 {
            bail!(input_error("--node-cap must be at least 1"));
        }
        Ok(BankJob {
            orders,
            boards,
            max_cage,
            node_cap,
            seed,
        })
    }
    fn chunks(&self) -> u64 {
        self.boards.div_ceil(CHUNK)
    }
}

/// Generate, prove and measure one bank board from its seed.
pub fn bank_board(
    order: usize,
    index: u64,
    seed: u64,
    max_cage: usize,
    node_cap: u64,
) -> Result<BankBoard> {
    let n = order;
    let t0 = thread_cpu_ns();
    let g = generate_repair(
        n,
        SquareSource::Uniform,
        &options(max_cage, node_cap, true),
        &mut Xoshiro256PlusPlus::seed_from_u64(seed),
    );
    let t_flip = thread_cpu_ns().saturating_sub(t0);
    let t1 = thread_cpu_ns();
    let h = generate_repair(
        n,
        SquareSource::Uniform,
        &options(max_cage, node_cap, false),
        &mut Xoshiro256PlusPlus::seed_from_u64(seed),
    );
    let t_noflip = thread_cpu_ns().saturating_sub(t1);
    // Proof one: ladder + search, uncapped beyond the generator's own cap.
    let o = solve(&g.board, Rungs::ALL, 2, node_cap);
    if o.count != Count::Exact(1) || o.solutions[0] != g.square {
        bail!(
            "bank board order {n} index {index} seed {seed}: ladder+search says {} ({})",
            o.count,
            "not proved unique"
        );
    }
    let mut proofs = "ladder+search".to_string();
    if n <= VERIFY_MAX_ORDER {
        let (vc, vs) = verify_count(&g.board, 2);
        if vc != 1 || vs[0] != g.square {
            bail!("bank board order {n} index {index} seed {seed}: the verifier counts {vc}");
        }
        proofs.push_str("+verifier");
    }
    // The same board as printed in the signless edition: every sign hidden.
    let ho = solve(&g.board.with_hidden_signs(true), Rungs::ALL, 2, node_cap);
    let signs_hidden = match ho.count {
        Count::Exact(0) => "none",
        Count::Exact(1) => "unique",
        Count::Unknown => "unknown",
        _ => "2+",
    }
    .to_string();
    // The filter bank beside it: its own stream, derived from the board seed.
    let t2 = thread_cpu_ns();
    let mut frng = Xoshiro256PlusPlus::seed_from_u64(crate::engine::seed::mix64(seed ^ 0xf1));
    let mut rejected = Vec::new();
    let (mut filter_draws, mut filter_capped) = (0u64, 0u64);
    let filter_square = loop {
        // Keep-only-unique: draw, cut, label; keep if proved unique, else discard the square.
        filter_draws += 1;
        if filter_draws > FILTER_MAX_DRAWS {
            bail!("filter: no unique cut in {FILTER_MAX_DRAWS} draws at order {n}");
        }
        let square = super::squares::draw_square(n, SquareSource::Uniform, &mut frng);
        let cut = super::generate::random_cut(n, max_cage, &mut frng);
        let cages = super::generate::label(n, &square, &cut, &mut frng);
        let board = Board::new(n, cages, false).expect("generated boards are valid");
        let fo = solve(&board, Rungs::ALL, 2, node_cap);
        match fo.count {
            Count::Exact(1) => break square,
            Count::Unknown => filter_capped += 1,
            _ => {}
        }
        rejected.push(intercalates(n, &square).len());
    };
    let t_filter = thread_cpu_ns().saturating_sub(t2);
    let grade = match o.grade {
        Grade::Rung(r) => r.name().to_string(),
        Grade::Search => "search".into(),
        Grade::NoSolution => "none".into(),
    };
    Ok(BankBoard {
        order: n,
        index,
        seed,
        max_cage,
        text: g.board.to_text(),
        cages: g.board.cages.len(),
        grade,
        nodes: o.nodes,
        intercalates: intercalates(n, &g.square).len(),
        splits: g.stats.splits,
        splits_by_flip: g.stats.splits_by_flip,
        searches: g.stats.searches,
        gen_nodes: g.stats.nodes,
        merges: g.stats.merges_kept,
        proofs,
        signs_hidden,
        noflip_splits: h.stats.splits,
        noflip_searches: h.stats.searches,
        noflip_nodes: h.stats.nodes,
        noflip_same: h.board.to_text() == g.board.to_text(),
        filter_draws,
        filter_capped,
        filter_intercalates: intercalates(n, &filter_square).len(),
        rejected,
        ns: [t_flip, t_noflip, t_filter],
    })
}

impl Job for BankJob {
    type Partial = Records<BankBoard>;
    fn spec(&self) -> JobSpec {
        JobSpec::new(
            BANK_KIND,
            serde_json::json!({
                "orders": self.orders,
                "boards": self.boards,
                "max_cage": self.max_cage,
                "node_cap": self.node_cap,
                "squares": "uniform",
                "chunk": CHUNK,
                "version": 1,
            }),
            self.seed,
        )
    }
    fn unit_count(&self) -> u64 {
        self.orders.len() as u64 * self.chunks()
    }
    fn run_unit(&self, unit: Unit) -> Result<Records<BankBoard>> {
        let chunks = self.chunks();
        let n = self.orders[(unit.index / chunks) as usize];
        let chunk = unit.index % chunks;
        let count = CHUNK.min(self.boards - chunk * CHUNK);
        let mut rng = unit.rng();
        let mut out = Vec::new();
        for k in 0..count {
            let seed = rng.next_u64();
            out.push(bank_board(
                n,
                chunk * CHUNK + k,
                seed,
                self.max_cage,
                self.node_cap,
            )?);
        }
        Ok(Records(out))
    }
    fn label(&self) -> String {
        "calcudoku bank".into()
    }
}

/// A row of `calcudoku_bank.csv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexRow {
    pub order: usize,
    pub index: u64,
    pub seed: u64,
    pub max_cage: usize,
    pub cages: usize,
    pub grade: String,
    pub nodes: u64,
    pub intercalates: usize,
    pub splits: u64,
    pub splits_by_flip: u64,
    pub merges: u64,
    pub proofs: String,
    pub digest: String,
    pub signs_hidden: String,
}

impl IndexRow {
    fn of(b: &BankBoard) -> Self {
        IndexRow {
            order: b.order,
            index: b.index,
            seed: b.seed,
            max_cage: b.max_cage,
            cages: b.cages,
            grade: b.grade.clone(),
            nodes: b.nodes,
            intercalates: b.intercalates,
            splits: b.splits,
            splits_by_flip: b.splits_by_flip,
            merges: b.merges,
            proofs: b.proofs.clone(),
            digest: digest(&b.text),
            signs_hidden: b.signs_hidden.clone(),
        }
    }
    fn fields(&self) -> Vec<String> {
        vec![
            self.order.to_string(),
            self.index.to_string(),
            self.seed.to_string(),
            self.max_cage.to_string(),
            self.cages.to_string(),
            self.grade.clone(),
            self.nodes.to_string(),
            self.intercalates.to_string(),
            self.splits.to_string(),
            self.splits_by_flip.to_string(),
            self.merges.to_string(),
            self.proofs.clone(),
            self.digest.clone(),
            self.signs_hidden.clone(),
        ]
    }
}

/// Read `calcudoku_bank.csv` (a missing file is an empty index).
pub fn read_index(path: &Path) -> Result<Vec<IndexRow>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    crate::engine::table::read_rows(path, &BANK_COLUMNS, |r| {
        let int = |j: usize| r.int(j);
        Ok(IndexRow {
            order: int(0)? as usize,
            index: int(1)?,
            seed: int(2)?,
            max_cage: int(3)? as usize,
            cages: int(4)? as usize,
            grade: r.text(5)?.to_string(),
            nodes: int(6)?,
            intercalates: int(7)? as usize,
            splits: int(8)?,
            splits_by_flip: int(9)?,
            merges: int(10)?,
            proofs: r.text(11)?.to_string(),
            digest: r.text(12)?.to_string(),
            signs_hidden: r.text(13)?.to_string(),
        })
    })
}

fn index_csv(rows: &[IndexRow]) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(BANK_COLUMNS).expect("in-memory");
    for r in rows {
        w.write_record(r.fields()).expect("in-memory");
    }
    w.into_inner().expect("in-memory")
}

/// Per-order summary row (see [`SUMMARY_COLUMNS`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SummaryRow {
    pub v: [u64; 20],
}

fn summary_rows(boards: &[BankBoard]) -> BTreeMap<usize, SummaryRow> {
    let mut out: BTreeMap<usize, SummaryRow> = BTreeMap::new();
    for b in boards {
        let r = out.entry(b.order).or_default();
        let fi = b.filter_intercalates as u64;
        let add = [
            0,
            1,
            b.splits,
            b.splits_by_flip,
            b.searches,
            b.gen_nodes,
            b.noflip_splits,
            b.noflip_searches,
            b.noflip_nodes,
            b.noflip_same as u64,
            1,
            b.filter_draws,
            b.filter_capped,
            fi,
            fi * fi,
            b.rejected.len() as u64,
            b.rejected.iter().map(|&x| x as u64).sum(),
            b.rejected.iter().map(|&x| (x * x) as u64).sum(),
            (b.signs_hidden == "unique") as u64,
            (b.signs_hidden == "unknown") as u64,
        ];
        r.v[0] = b.order as u64;
        for (a, x) in r.v.iter_mut().zip(add).skip(1) {
            *a += x;
        }
    }
    out
}

/// Read `calcudoku_bank_summary.csv` (a missing file is empty).
pub fn read_summary(path: &Path) -> Result<BTreeMap<usize, SummaryRow>> {
    let mut out = BTreeMap::new();
    if !path.exists() {
        return Ok(out);
    }
    let mut rdr = crate::engine::table::open_checked(path, &SUMMARY_COLUMNS)?;
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| input_error(format!("{} is malformed: {e}", path.display())))?;
        let mut v = [0u64; 20];
        for (j, x) in v.iter_mut().enumerate() {
            *x = rec.get(j).and_then(|s| s.parse().ok()).ok_or_else(|| {
                input_error(format!(
                    "{} line {}: field {} is not an integer",
                    path.display(),
                    i + 2,
                    j + 1
                ))
            })?;
        }
        out.insert(v[0] as usize, SummaryRow { v });
    }
    Ok(out)
}

fn summary_csv(rows: &BTreeMap<usize, SummaryRow>) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(SUMMARY_COLUMNS).expect("in-memory");
    for r in rows.values() {
        w.write_record(r.v.iter().map(|x| x.to_string()))
            .expect("in-memory");
    }
    w.into_inner().expect("in-memory")
}

/// Timing rows: (order, method) → (boards, median, p90, max in ms, total seconds).
pub type TimingTable = BTreeMap<(usize, String), (u64, f64, f64, f64, f64)>;

fn timing_rows(boards: &[BankBoard]) -> TimingTable {
    let mut out = TimingTable::new();
    let orders: Vec<usize> = {
        let mut o: Vec<usize> = boards.iter().map(|b| b.order).collect();
        o.dedup();
        o
    };
    for n in orders {
        for (m, name) in ["repair", "repair-no-flips", "filter"].iter().enumerate() {
            let mut h = hdrhistogram::Histogram::<u64>::new(3).expect("histogram");
            let mut total = 0u64;
            let mut count = 0u64;
            for b in boards.iter().filter(|b| b.order == n) {
                h.record(b.ns[m].max(1)).expect("record");
                total += b.ns[m];
                count += 1;
            }
            let ms = |q: f64| h.value_at_quantile(q) as f64 / 1e6;
            out.insert(
                (n, name.to_string()),
                (
                    count,
                    ms(0.5),
                    ms(0.9),
                    h.max() as f64 / 1e6,
                    total as f64 / 1e9,
                ),
            );
        }
    }
    out
}

pub fn read_timing(path: &Path) -> Result<TimingTable> {
    let mut out = TimingTable::new();
    if !path.exists() {
        return Ok(out);
    }
    let mut rdr = crate::engine::table::open_checked(path, &TIMING_COLUMNS)?;
    for rec in rdr.records() {
        let rec = rec.map_err(|e| input_error(format!("{} is malformed: {e}", path.display())))?;
        let f = |j: usize| -> Result<f64> {
            rec.get(j)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| input_error(format!("{} is malformed", path.display())))
        };
        out.insert(
            (f(0)? as usize, rec.get(1).unwrap_or("").to_string()),
            (f(2)? as u64, f(3)?, f(4)?, f(5)?, f(6)?),
        );
    }
    Ok(out)
}

fn timing_csv(t: &TimingTable) -> Vec<u8> {
    let mut s = TIMING_COLUMNS.join(",") + "\n";
    for ((n, m), (b, med, p90, max, tot)) in t {
        let _ = writeln!(s, "{n},{m},{b},{med:.3},{p90:.3},{max:.3},{tot:.3}");
    }
    s.into_bytes()
}

/// Write the index, summary, timing and board files of a finished bank run. Rows and board
/// files of orders this run did not compute are kept.
pub fn write_bank(
    boards: &[BankBoard],
    results: &Path,
    bank_dir: &Path,
    stats: &RunStats,
) -> Result<()> {
    let orders: Vec<usize> = {
        let mut o: Vec<usize> = boards.iter().map(|b| b.order).collect();
        o.sort_unstable();
        o.dedup();
        o
    };
    // Board files first: one directory per order, rewritten whole.
    for &n in &orders {
        let dir = bank_dir.join(format!("{n}x{n}"));
        if dir.exists() {
            for e in std::fs::read_dir(&dir)?.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with(&format!("{n}x{n}-")) && name.ends_with(".txt") {
                    std::fs::remove_file(e.path())?;
                }
            }
        }
        std::fs::create_dir_all(&dir)?;
    }
    for b in boards {
        let text = format!(
            "# calcudoku bank {n}x{n} #{i}: gridcensus calcudoku generate --order {n} --max-cage {k} --seed {s}\n\
             # grade {g}, {c} cages, square with {x} intercalates\n{t}",
            n = b.order,
            i = b.index + 1,
            k = b.max_cage,
            s = b.seed,
            g = b.grade,
            c = b.cages,
            x = b.intercalates,
            t = b.text
        );
        crate::engine::atomic::write_atomic_str(
            &bank_dir.join(file_name(b.order, b.index)),
            &text,
        )?;
    }
    let keep = |spec: &JobSpec| {
        spec.params["orders"]
            .as_array()
            .map(|a| {
                a.iter()
                    .any(|o| !orders.contains(&(o.as_u64().unwrap_or(0) as usize)))
            })
            .unwrap_or(false)
    };
    let index_path = results.join(BANK_FILE);
    let mut rows: Vec<IndexRow> = read_index(&index_path)?
        .into_iter()
        .filter(|r| !orders.contains(&r.order))
        .collect();
    rows.extend(boards.iter().map(IndexRow::of));
    rows.sort_by_key(|r| (r.order, r.index));
    crate::engine::cli::write_result_keeping(&index_path, &index_csv(&rows), &[stats], keep)?;

    let sum_path = results.join(SUMMARY_FILE);
    let mut sums = read_summary(&sum_path)?;
    sums.retain(|n, _| !orders.contains(n));
    sums.extend(summary_rows(boards));
    crate::engine::cli::write_result_keeping(&sum_path, &summary_csv(&sums), &[stats], keep)?;

    let t_path = results.join(TIMING_FILE);
    let mut t = read_timing(&t_path)?;
    t.retain(|(n, _), _| !orders.contains(n));
    t.extend(timing_rows(boards));
    crate::engine::cli::write_result_keeping(&t_path, &timing_csv(&t), &[stats], keep)?;
    Ok(())
}

/// `gridcensus calcudoku bank`.
pub fn cmd_bank(job: BankJob, out: &Path, engine: &EngineArgs) -> Result<()> {
    engine.validate()?;
    let Some((parts, st)) = execute(&job, engine)? else {
        return Ok(());
    };
    eprintln!(
        "calcudoku bank: {} boards in {:.1} s on {} threads",
        parts.0.len(),
        st.elapsed_seconds,
        st.threads
    );
    write_bank(&parts.0, &engine.results, out, &st)?;
    st.cleanup();
    Ok(())
}

/// Merge bank partials (the bank directory is the default one, or `GRIDCENSUS_BANK_DIR`).
pub fn merge(files: &[PathBuf], results: &Path) -> Result<()> {
    let (_spec, parts, stats) = crate::engine::cli::merge::<Records<BankBoard>>(files)?;
    let dir = std::env::var_os("GRIDCENSUS_BANK_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_BANK_DIR));
    write_bank(&parts.0, results, &dir, &stats)?;
    stats.cleanup();
    Ok(())
}

/// Read every board of the index from the bank directory, checking each file's digest.
pub fn load_bank(index: &[IndexRow], bank_dir: &Path) -> Result<Vec<(IndexRow, Board)>> {
    let mut out = Vec::with_capacity(index.len());
    for r in index {
        let path = bank_dir.join(file_name(r.order, r.index));
        let text = std::fs::read_to_string(&path).map_err(|e| {
            input_error(format!(
                "cannot read bank board {}: {e} (run `gridcensus calcudoku bank` first)",
                path.display()
            ))
        })?;
        let board = Board::parse(&text, false)
            .map_err(|e| input_error(format!("{}: {e}", path.display())))?;
        if digest(&board.to_text()) != r.digest {
            bail!(input_error(format!(
                "{}: the board does not match its digest in the index",
                path.display()
            )));
        }
        out.push((r.clone(), board));
    }
    Ok(out)
}
