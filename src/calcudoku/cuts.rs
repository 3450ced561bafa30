//! The random-cut study and the sign ablation, as engine jobs.
//!
//! Both jobs walk the same boards: for each row (order n, largest cage k) and board index, a
//! Latin square from the chosen [`SquareSource`] (uniform by default), a random connected cut
//! ([`random_cut`]) and random labels ([`label`]), drawn from the work unit's own RNG stream.
//! Units are chunks of [`CHUNK`] boards of one row, laid out identically by both jobs, so
//! `calcudoku signs` with the parameters of a `calcudoku cuts` run sees exactly its cages.
//!
//! * `calcudoku cuts` decides every board for uniqueness (cap 2) with signs shown and hidden,
//!   looks for certified intercalate flips of the cut square, and tallies the square's
//!   intercalates separately for unique and non-unique boards. `results/calcudoku_cuts.csv`,
//!   keyed by (squares, order, max_cage); decision times go to `calcudoku_cuts_timing.csv`.
//! * `calcudoku signs` counts, for every multi-cell cage, its fillings (value tuples of its cells
//!   that respect the row/column rule inside the cage) with the sign and with the sign hidden.
//!   `results/calcudoku_signs.csv`, keyed by (squares, order, max_cage, cells, op).

use super::board::{Board, Op, op_holds};
use super::certificate::certified_flips;
use super::generate::{label, random_cut};
use super::solver::{Count, Rungs, solve};
use super::squares::{SquareSource, draw_square};
use crate::engine::cli::{EngineArgs, RunStats, execute, write_result_keeping};
use crate::engine::{Job, JobSpec, Records, Unit};
use crate::error::input_error;
use anyhow::Result;
use clap::Args;
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub const CUTS_FILE: &str = "calcudoku_cuts.csv";
pub const CUTS_TIMING_FILE: &str = "calcudoku_cuts_timing.csv";
pub const CUTS_KIND: &str = "calcudoku-cuts";
pub const SIGNS_FILE: &str = "calcudoku_signs.csv";
pub const SIGNS_KIND: &str = "calcudoku-signs";
/// Boards per work unit.
pub const CHUNK: u64 = 50;
/// Orders the studies accept (the board model stops at 9).
pub const MIN_ORDER: usize = 3;
pub const MAX_ORDER: usize = 9;
/// Largest cage sizes accepted.
pub const MAX_CAGE: usize = 6;
/// Orders from which `--large-boards` applies instead of `--boards`.
pub const LARGE_FROM: usize = 8;

/// One row of a study: order, largest cage, boards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowSpec {
    pub order: usize,
    pub max_cage: usize,
    pub boards: u64,
}

/// The unit layout both jobs share: each row's boards in chunks of [`CHUNK`], rows in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    pub squares: SquareSource,
    pub rows: Vec<RowSpec>,
}

impl Layout {
    pub fn new(
        squares: SquareSource,
        orders: &[usize],
        max_cages: &[usize],
        boards: u64,
        large_boards: u64,
    ) -> Result<Layout> {
        if orders.is_empty() || max_cages.is_empty() {
            return Err(input_error("empty --orders or --max-cages"));
        }
        let mut rows = Vec::new();
        for &n in orders {
            if !(MIN_ORDER..=MAX_ORDER).contains(&n) {
                return Err(input_error(format!(
                    "--orders {n} is out of range ({MIN_ORDER} to {MAX_ORDER})"
                )));
            }
            let b = if n >= LARGE_FROM {
                large_boards
            } else {
                boards
            };
            if b == 0 {
                continue;
            }
            for &k in max_cages {
                if !(1..=MAX_CAGE).contains(&k) {
                    return Err(input_error(format!(
                        "--max-cages {k} is out of range (1 to {MAX_CAGE})"
                    )));
                }
                rows.push(RowSpec {
                    order: n,
                    max_cage: k,
                    boards: b,
                });
            }
        }
        if rows.is_empty() {
            return Err(input_error(
                "no boards to draw (--boards and --large-boards are 0)",
            ));
        }
        Ok(Layout { squares, rows })
    }

    fn chunks(r: &RowSpec) -> u64 {
        r.boards.div_ceil(CHUNK)
    }

    pub fn unit_count(&self) -> u64 {
        self.rows.iter().map(Self::chunks).sum()
    }

    /// The row of unit `index` and the number of boards in that unit.
    pub fn locate(&self, mut index: u64) -> (RowSpec, u64) {
        for r in &self.rows {
            let c = Self::chunks(r);
            if index < c {
                return (*r, CHUNK.min(r.boards - index * CHUNK));
            }
            index -= c;
        }
        panic!("unit index out of range");
    }

    /// The keys (squares, order, max_cage) this layout computes.
    pub fn keys(&self) -> BTreeSet<(SquareSource, usize, usize)> {
        self.rows
            .iter()
            .map(|r| (self.squares, r.order, r.max_cage))
            .collect()
    }
}

/// One random board: a square from `source`, a random connected cut with largest cage `k`,
/// random labels, signs shown. Returns the board and its square (values 1..=n).
pub fn cut_board<R: Rng>(
    n: usize,
    k: usize,
    source: SquareSource,
    rng: &mut R,
) -> (Board, Vec<u8>) {
    let square = draw_square(n, source, rng);
    let cut = random_cut(n, k, rng);
    let cages = label(n, &square, &cut, rng);
    let board = Board::new(n, cages, false).expect("generated boards are valid");
    (board, square)
}

// ---------------------------------------------------------------------------------------------
// The random-cut study
// ---------------------------------------------------------------------------------------------

/// Counts for one row and a slice of its boards.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CutsTally {
    pub squares: SquareSource,
    pub order: usize,
    pub max_cage: usize,
    pub boards: u64,
    /// Signs shown: exactly one answer / more than one / node cap hit.
    pub unique: u64,
    pub nonunique: u64,
    pub unknown: u64,
    /// Non-unique boards on which a certified flip of the cut square exists.
    pub flip_explained: u64,
    /// Boards with a certified flip that came out unique (must be 0: a theorem).
    pub flip_but_unique: u64,
    /// Certified flips checked to be solutions, and those that were not (must be 0).
    pub flips_checked: u64,
    pub flips_bad: u64,
    /// Intercalates of the cut square: sum and sum of squares, over unique and non-unique boards.
    pub ic_unique: [u64; 2],
    pub ic_nonunique: [u64; 2],
    /// Over every board (known or not): sum and sum of squares.
    pub ic_all: [u64; 2],
    /// Signs hidden.
    pub unique_hidden: u64,
    pub nonunique_hidden: u64,
    pub unknown_hidden: u64,
    /// Boards whose hidden count (capped at 2) is below the shown count (must be 0).
    pub hidden_below_shown: u64,
    /// Search nodes with signs shown.
    pub nodes: u64,
    /// Decision times with signs shown, nanoseconds (timing file only).
    pub decide_ns: Vec<u64>,
    /// Wall seconds of the unit (timing file only).
    pub wall_seconds: f64,
}

impl CutsTally {
    fn add(&mut self, o: &CutsTally) {
        self.boards += o.boards;
        self.unique += o.unique;
        self.nonunique += o.nonunique;
        self.unknown += o.unknown;
        self.flip_explained += o.flip_explained;
        self.flip_but_unique += o.flip_but_unique;
        self.flips_checked += o.flips_checked;
        self.flips_bad += o.flips_bad;
        for i in 0..2 {
            self.ic_unique[i] += o.ic_unique[i];
            self.ic_nonunique[i] += o.ic_nonunique[i];
            self.ic_all[i] += o.ic_all[i];
        }
        self.unique_hidden += o.unique_hidden;
        self.nonunique_hidden += o.nonunique_hidden;
        self.unknown_hidden += o.unknown_hidden;
        self.hidden_below_shown += o.hidden_below_shown;
        self.nodes += o.nodes;
        self.decide_ns.extend_from_slice(&o.decide_ns);
        self.wall_seconds += o.wall_seconds;
    }
}

fn count2(c: Count) -> Option<u64> {
    match c {
        Count::Exact(k) | Count::AtLeast(k) => Some(k.min(2)),
        Count::Unknown => None,
    }
}

/// Decide one board (signs shown and hidden) and add it to `t`.
pub fn tally_board(t: &mut CutsTally, board: &Board, square: &[u8], node_cap: u64) {
    let n = board.n;
    let ic = crate::latin::square::intercalates(n, square) as u64;
    let t0 = std::time::Instant::now();
    let os = solve(board, Rungs::ALL, 2, node_cap);
    t.decide_ns.push(t0.elapsed().as_nanos() as u64);
    let hidden = board.with_hidden_signs(true);
    let oh = solve(&hidden, Rungs::ALL, 2, node_cap);
    t.boards += 1;
    t.nodes += os.nodes;
    t.ic_all[0] += ic;
    t.ic_all[1] += ic * ic;
    let flips = certified_flips(board, square);
    for f in &flips {
        t.flips_checked += 1;
        t.flips_bad += (!board.is_solution(&f.apply(n, square))) as u64;
    }
    let (cs, ch) = (count2(os.count), count2(oh.count));
    match cs {
        None => t.unknown += 1,
        Some(1) => {
            t.unique += 1;
            t.ic_unique[0] += ic;
            t.ic_unique[1] += ic * ic;
            t.flip_but_unique += (!flips.is_empty()) as u64;
        }
        Some(_) => {
            t.nonunique += 1;
            t.ic_nonunique[0] += ic;
            t.ic_nonunique[1] += ic * ic;
            t.flip_explained += (!flips.is_empty()) as u64;
        }
    }
    match ch {
        None => t.unknown_hidden += 1,
        Some(1) => t.unique_hidden += 1,
        Some(_) => t.nonunique_hidden += 1,
    }
    if let (Some(a), Some(b)) = (cs, ch) {
        t.hidden_below_shown += (b < a) as u64;
    }
}

pub struct CutsJob {
    pub layout: Layout,
    pub seed: u64,
    pub node_cap: u64,
}

impl Job for CutsJob {
    type Partial = Records<CutsTally>;
    fn spec(&self) -> JobSpec {
        JobSpec::new(
            CUTS_KIND,
            serde_json::json!({
                "squares": self.layout.squares,
                "rows": self.layout.rows,
                "chunk": CHUNK,
                "node_cap": self.node_cap,
                "version": 1,
            }),
            self.seed,
        )
    }
    fn unit_count(&self) -> u64 {
        self.layout.unit_count()
    }
    fn run_unit(&self, unit: Unit) -> Result<Records<CutsTally>> {
        let start = std::time::Instant::now();
        let (row, count) = self.layout.locate(unit.index);
        let mut rng = unit.rng();
        let mut t = CutsTally {
            squares: self.layout.squares,
            order: row.order,
            max_cage: row.max_cage,
            ..CutsTally::default()
        };
        for _ in 0..count {
            let (board, square) = cut_board(row.order, row.max_cage, self.layout.squares, &mut rng);
            tally_board(&mut t, &board, &square, self.node_cap);
        }
        t.wall_seconds = start.elapsed().as_secs_f64();
        Ok(Records(vec![t]))
    }
    fn label(&self) -> String {
        "calcudoku cuts".into()
    }
}

type CutsKey = (SquareSource, usize, usize);

/// Sum the per-unit tallies by (squares, order, largest cage).
pub fn aggregate_cuts(parts: &Records<CutsTally>) -> BTreeMap<CutsKey, CutsTally> {
    let mut out: BTreeMap<CutsKey, CutsTally> = BTreeMap::new();
    for t in &parts.0 {
        out.entry((t.squares, t.order, t.max_cage))
            .or_insert_with(|| CutsTally {
                squares: t.squares,
                order: t.order,
                max_cage: t.max_cage,
                ..CutsTally::default()
            })
            .add(t);
    }
    out
}

pub const CUTS_COLUMNS: [&str; 26] = [
    "squares",
    "order",
    "max_cage",
    "boards",
    "unique",
    "nonunique",
    "unknown",
    "flip_explained",
    "flip_but_unique",
    "flips_checked",
    "flips_bad",
    "ic_sum_unique",
    "ic_sumsq_unique",
    "ic_sum_nonunique",
    "ic_sumsq_nonunique",
    "ic_sum_all",
    "ic_sumsq_all",
    "unique_hidden",
    "nonunique_hidden",
    "unknown_hidden",
    "hidden_below_shown",
    "nodes",
    "ic_mean_unique",
    "ic_se_unique",
    "ic_mean_nonunique",
    "ic_se_nonunique",
];

/// Mean and standard error of the mean from (count, sum, sum of squares).
pub fn mean_se(k: u64, sum: u64, sumsq: u64) -> (f64, f64) {
    if k == 0 {
        return (f64::NAN, f64::NAN);
    }
    let kf = k as f64;
    let mean = sum as f64 / kf;
    if k < 2 {
        return (mean, f64::NAN);
    }
    let var = (sumsq as f64 - kf * mean * mean) / (kf - 1.0);
    (mean, (var.max(0.0) / kf).sqrt())
}

fn fmt4(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.4}")
    } else {
        String::new()
    }
}

/// Bytes of `calcudoku_cuts.csv`.
pub fn cuts_csv(table: &BTreeMap<CutsKey, CutsTally>) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(CUTS_COLUMNS).unwrap();
    for t in table.values() {
        let (mu, su) = mean_se(t.unique, t.ic_unique[0], t.ic_unique[1]);
        let (mn, sn) = mean_se(t.nonunique, t.ic_nonunique[0], t.ic_nonunique[1]);
        let ints = [
            t.order as u64,
            t.max_cage as u64,
            t.boards,
            t.unique,
            t.nonunique,
            t.unknown,
            t.flip_explained,
            t.flip_but_unique,
            t.flips_checked,
            t.flips_bad,
            t.ic_unique[0],
            t.ic_unique[1],
            t.ic_nonunique[0],
            t.ic_nonunique[1],
            t.ic_all[0],
            t.ic_all[1],
            t.unique_hidden,
            t.nonunique_hidden,
            t.unknown_hidden,
            t.hidden_below_shown,
            t.nodes,
        ];
        let mut rec = vec![t.squares.name().to_string()];
        rec.extend(ints.iter().map(|x| x.to_string()));
        rec.extend([fmt4(mu), fmt4(su), fmt4(mn), fmt4(sn)]);
        w.write_record(&rec).unwrap();
    }
    w.into_inner().expect("in-memory writer")
}

fn parse_source(s: &str, path: &Path) -> Result<SquareSource> {
    match s {
        "uniform" => Ok(SquareSource::Uniform),
        "backtrack" => Ok(SquareSource::Backtrack),
        _ => Err(input_error(format!(
            "{}: unknown square source '{s}'",
            path.display()
        ))),
    }
}

/// Read `calcudoku_cuts.csv` back (a missing file is an empty table).
pub fn read_cuts(path: &Path) -> Result<BTreeMap<CutsKey, CutsTally>> {
    let mut out = BTreeMap::new();
    if !path.exists() {
        return Ok(out);
    }
    let mut rdr = crate::engine::table::open_checked(path, &CUTS_COLUMNS)?;
    for rec in rdr.records() {
        let rec = rec.map_err(|e| input_error(format!("{} is malformed: {e}", path.display())))?;
        let squares = parse_source(rec.get(0).unwrap_or(""), path)?;
        let v: Vec<u64> = (1..22)
            .map(|j| rec.get(j).and_then(|x| x.parse().ok()))
            .collect::<Option<_>>()
            .ok_or_else(|| input_error(format!("{}: a count is not an integer", path.display())))?;
        let t = CutsTally {
            squares,
            order: v[0] as usize,
            max_cage: v[1] as usize,
            boards: v[2],
            unique: v[3],
            nonunique: v[4],
            unknown: v[5],
            flip_explained: v[6],
            flip_but_unique: v[7],
            flips_checked: v[8],
            flips_bad: v[9],
            ic_unique: [v[10], v[11]],
            ic_nonunique: [v[12], v[13]],
            ic_all: [v[14], v[15]],
            unique_hidden: v[16],
            nonunique_hidden: v[17],
            unknown_hidden: v[18],
            hidden_below_shown: v[19],
            nodes: v[20],
            decide_ns: Vec::new(),
            wall_seconds: 0.0,
        };
        out.insert((squares, t.order, t.max_cage), t);
    }
    Ok(out)
}

pub const CUTS_TIMING_COLUMNS: [&str; 8] = [
    "squares",
    "order",
    "max_cage",
    "boards",
    "median_us",
    "p99_us",
    "max_us",
    "wall_seconds",
];

/// One timing row per key computed now (hdrhistogram of the shown-sign decision times).
fn timing_rows(table: &BTreeMap<CutsKey, CutsTally>) -> BTreeMap<CutsKey, Vec<String>> {
    let mut out = BTreeMap::new();
    for (k, t) in table {
        let mut h = hdrhistogram::Histogram::<u64>::new(3).expect("histogram");
        for &ns in &t.decide_ns {
            h.record(ns.max(1)).expect("record");
        }
        let us = |x: u64| format!("{:.1}", x as f64 / 1e3);
        out.insert(
            *k,
            vec![
                t.squares.name().to_string(),
                t.order.to_string(),
                t.max_cage.to_string(),
                t.boards.to_string(),
                us(h.value_at_quantile(0.5)),
                us(h.value_at_quantile(0.99)),
                us(h.max()),
                format!("{:.3}", t.wall_seconds),
            ],
        );
    }
    out
}

fn read_timing(path: &Path) -> Result<BTreeMap<CutsKey, Vec<String>>> {
    let mut out = BTreeMap::new();
    if !path.exists() {
        return Ok(out);
    }
    let mut rdr = crate::engine::table::open_checked(path, &CUTS_TIMING_COLUMNS)?;
    for rec in rdr.records() {
        let rec = rec.map_err(|e| input_error(format!("{} is malformed: {e}", path.display())))?;
        let row: Vec<String> = rec.iter().map(|s| s.to_string()).collect();
        let squares = parse_source(&row[0], path)?;
        let (n, k) = (row[1].parse(), row[2].parse());
        let (Ok(n), Ok(k)) = (n, k) else {
            return Err(input_error(format!(
                "{}: bad order or cage",
                path.display()
            )));
        };
        out.insert((squares, n, k), row);
    }
    Ok(out)
}

/// Keep an earlier manifest record of a multi-row job while any of its keys is still in use
/// and not recomputed now.
fn keep_record(kind: &'static str, now: BTreeSet<CutsKey>) -> impl Fn(&JobSpec) -> bool {
    move |spec: &JobSpec| {
        if spec.kind != kind {
            return false;
        }
        let Ok(squares) = serde_json::from_value::<SquareSource>(spec.params["squares"].clone())
        else {
            return false;
        };
        let Ok(rows) = serde_json::from_value::<Vec<RowSpec>>(spec.params["rows"].clone()) else {
            return false;
        };
        rows.iter()
            .any(|r| !now.contains(&(squares, r.order, r.max_cage)))
    }
}

fn write_cuts(
    layout: &Layout,
    parts: &Records<CutsTally>,
    results: &Path,
    st: &RunStats,
) -> Result<()> {
    let fresh = aggregate_cuts(parts);
    for t in fresh.values() {
        let (mu, su) = mean_se(t.unique, t.ic_unique[0], t.ic_unique[1]);
        let (mn, sn) = mean_se(t.nonunique, t.ic_nonunique[0], t.ic_nonunique[1]);
        eprintln!(
            "  {} n={} k={}: {} boards, unique {} (hidden {}), explained {}/{}, intercalates {:.2}±{:.2} vs {:.2}±{:.2}, unknown {}",
            t.squares.name(),
            t.order,
            t.max_cage,
            t.boards,
            t.unique,
            t.unique_hidden,
            t.flip_explained,
            t.nonunique,
            mu,
            su,
            mn,
            sn,
            t.unknown
        );
    }
    let path = results.join(CUTS_FILE);
    let mut table = read_cuts(&path)?;
    let tpath = results.join(CUTS_TIMING_FILE);
    let mut timing = read_timing(&tpath)?;
    for (k, row) in timing_rows(&fresh) {
        timing.insert(k, row);
    }
    for (k, t) in fresh {
        table.insert(k, t);
    }
    let keep = keep_record(CUTS_KIND, layout.keys());
    write_result_keeping(&path, &cuts_csv(&table), &[st], &keep)?;
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(CUTS_TIMING_COLUMNS).unwrap();
    for row in timing.values() {
        w.write_record(row).unwrap();
    }
    write_result_keeping(&tpath, &w.into_inner().expect("in-memory"), &[st], &keep)?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The sign ablation
// ---------------------------------------------------------------------------------------------

/// Fillings of a cage: value tuples of its cells (values 1..=n) with no repeat among cells that
/// share a row or column, whose values reach `target` with `op` (`shown`) and with some
/// operation its size allows (`hidden`). An enumeration of its own (the solver has another).
pub fn fillings(n: usize, op: Op, target: u64, cells: &[u8]) -> (u64, u64) {
    let m = cells.len();
    // conflict[j] = bitmask of earlier positions sharing a row or column with position j.
    let mut conflict = vec![0u32; m];
    for j in 0..m {
        for i in 0..j {
            let (a, b) = (cells[i] as usize, cells[j] as usize);
            if a / n == b / n || a % n == b % n {
                conflict[j] |= 1 << i;
            }
        }
    }
    let hidden_ops = Op::hidden_ops(m);
    let mut vals = vec![0u8; m];
    let (mut shown, mut hidden) = (0u64, 0u64);
    #[allow(clippy::too_many_arguments)]
    fn rec(
        j: usize,
        n: u8,
        conflict: &[u32],
        vals: &mut [u8],
        op: Op,
        target: u64,
        hidden_ops: &[Op],
        out: &mut (u64, u64),
    ) {
        if j == vals.len() {
            out.0 += op_holds(op, target, vals) as u64;
            out.1 += hidden_ops.iter().any(|&o| op_holds(o, target, vals)) as u64;
            return;
        }
        'v: for v in 1..=n {
            let mut c = conflict[j];
            while c != 0 {
                let i = c.trailing_zeros() as usize;
                if vals[i] == v {
                    continue 'v;
                }
                c &= c - 1;
            }
            vals[j] = v;
            rec(j + 1, n, conflict, vals, op, target, hidden_ops, out);
        }
    }
    let mut out = (0u64, 0u64);
    rec(
        0, n as u8, &conflict, &mut vals, op, target, hidden_ops, &mut out,
    );
    shown += out.0;
    hidden += out.1;
    (shown, hidden)
}

/// Per cage kind (cells, op) of one row: sums over its cages.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KindTally {
    pub cages: u64,
    pub fill_shown: u64,
    pub fill_hidden: u64,
    /// Σ log2(hidden / shown) over cages.
    pub bits: f64,
    /// Cages whose fillings are the same with the sign hidden.
    pub unchanged: u64,
    /// Cages with no filling at all with the sign (must be 0: the square fills every cage).
    pub empty: u64,
    /// Cages with fewer fillings hidden than shown (must be 0: hiding only adds).
    pub hidden_below_shown: u64,
}

impl KindTally {
    fn add(&mut self, o: &KindTally) {
        self.cages += o.cages;
        self.fill_shown += o.fill_shown;
        self.fill_hidden += o.fill_hidden;
        self.bits += o.bits;
        self.unchanged += o.unchanged;
        self.empty += o.empty;
        self.hidden_below_shown += o.hidden_below_shown;
    }
}

/// The operation's name in the CSV.
pub fn op_name(op: Op) -> &'static str {
    match op {
        Op::Add => "add",
        Op::Sub => "sub",
        Op::Mul => "mul",
        Op::Div => "div",
        Op::Given => "given",
        Op::Any => "any",
    }
}

fn op_from_name(s: &str) -> Option<Op> {
    Some(match s {
        "add" => Op::Add,
        "sub" => Op::Sub,
        "mul" => Op::Mul,
        "div" => Op::Div,
        "given" => Op::Given,
        "any" => Op::Any,
        _ => return None,
    })
}

fn op_rank(op: Op) -> u8 {
    match op {
        Op::Add => 0,
        Op::Sub => 1,
        Op::Mul => 2,
        Op::Div => 3,
        Op::Given => 4,
        Op::Any => 5,
    }
}

/// Key of a signs row: (squares, order, max_cage, cells, op rank).
pub type SignsKey = (SquareSource, usize, usize, usize, u8);

/// One unit's per-kind tallies.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SignsUnit {
    pub rows: Vec<(SignsKey, KindTally)>,
}

pub struct SignsJob {
    pub layout: Layout,
    pub seed: u64,
}

fn rank_op(r: u8) -> Op {
    [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Given][r as usize]
}

impl Job for SignsJob {
    type Partial = Records<SignsUnit>;
    fn spec(&self) -> JobSpec {
        JobSpec::new(
            SIGNS_KIND,
            serde_json::json!({
                "squares": self.layout.squares,
                "rows": self.layout.rows,
                "chunk": CHUNK,
                "version": 1,
            }),
            self.seed,
        )
    }
    fn unit_count(&self) -> u64 {
        self.layout.unit_count()
    }
    fn run_unit(&self, unit: Unit) -> Result<Records<SignsUnit>> {
        let (row, count) = self.layout.locate(unit.index);
        let n = row.order;
        let mut rng = unit.rng();
        let mut by: BTreeMap<SignsKey, KindTally> = BTreeMap::new();
        for _ in 0..count {
            let (board, _) = cut_board(n, row.max_cage, self.layout.squares, &mut rng);
            for cage in board.cages.iter().filter(|c| c.cells.len() >= 2) {
                let (s, h) = fillings(n, cage.op, cage.target, &cage.cells);
                let t = by
                    .entry((
                        self.layout.squares,
                        n,
                        row.max_cage,
                        cage.cells.len(),
                        op_rank(cage.op),
                    ))
                    .or_default();
                t.cages += 1;
                t.fill_shown += s;
                t.fill_hidden += h;
                t.unchanged += (s == h) as u64;
                t.empty += (s == 0) as u64;
                t.hidden_below_shown += (h < s) as u64;
                if s > 0 && h > 0 {
                    t.bits += (h as f64 / s as f64).log2();
                }
            }
        }
        Ok(Records(vec![SignsUnit {
            rows: by.into_iter().collect(),
        }]))
    }
    fn label(&self) -> String {
        "calcudoku signs".into()
    }
}

pub fn aggregate_signs(parts: &Records<SignsUnit>) -> BTreeMap<SignsKey, KindTally> {
    let mut out: BTreeMap<SignsKey, KindTally> = BTreeMap::new();
    for u in &parts.0 {
        for (k, t) in &u.rows {
            out.entry(*k).or_default().add(t);
        }
    }
    out
}

pub const SIGNS_COLUMNS: [&str; 14] = [
    "squares",
    "order",
    "max_cage",
    "cells",
    "op",
    "cages",
    "fillings_shown",
    "fillings_hidden",
    "bits_sum",
    "unchanged",
    "empty",
    "hidden_below_shown",
    "mean_shown",
    "mean_hidden",
];

pub fn signs_csv(table: &BTreeMap<SignsKey, KindTally>) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(SIGNS_COLUMNS).unwrap();
    for (k, t) in table {
        let c = t.cages.max(1) as f64;
        w.write_record([
            k.0.name().to_string(),
            k.1.to_string(),
            k.2.to_string(),
            k.3.to_string(),
            op_name(rank_op(k.4)).to_string(),
            t.cages.to_string(),
            t.fill_shown.to_string(),
            t.fill_hidden.to_string(),
            format!("{:.6}", t.bits),
            t.unchanged.to_string(),
            t.empty.to_string(),
            t.hidden_below_shown.to_string(),
            format!("{:.4}", t.fill_shown as f64 / c),
            format!("{:.4}", t.fill_hidden as f64 / c),
        ])
        .unwrap();
    }
    w.into_inner().expect("in-memory writer")
}

pub fn read_signs(path: &Path) -> Result<BTreeMap<SignsKey, KindTally>> {
    let mut out = BTreeMap::new();
    if !path.exists() {
        return Ok(out);
    }
    let mut rdr = crate::engine::table::open_checked(path, &SIGNS_COLUMNS)?;
    let bad = || input_error(format!("{}: malformed row", path.display()));
    for rec in rdr.records() {
        let rec = rec.map_err(|e| input_error(format!("{} is malformed: {e}", path.display())))?;
        let squares = parse_source(rec.get(0).unwrap_or(""), path)?;
        let int =
            |j: usize| -> Result<u64> { rec.get(j).and_then(|x| x.parse().ok()).ok_or_else(bad) };
        let op = op_from_name(rec.get(4).unwrap_or("")).ok_or_else(bad)?;
        let key = (
            squares,
            int(1)? as usize,
            int(2)? as usize,
            int(3)? as usize,
            op_rank(op),
        );
        let t = KindTally {
            cages: int(5)?,
            fill_shown: int(6)?,
            fill_hidden: int(7)?,
            bits: rec.get(8).and_then(|x| x.parse().ok()).ok_or_else(bad)?,
            unchanged: int(9)?,
            empty: int(10)?,
            hidden_below_shown: int(11)?,
        };
        out.insert(key, t);
    }
    Ok(out)
}

fn write_signs(
    layout: &Layout,
    parts: &Records<SignsUnit>,
    results: &Path,
    st: &RunStats,
) -> Result<()> {
    let fresh = aggregate_signs(parts);
    let path = results.join(SIGNS_FILE);
    let keys = layout.keys();
    // Replace every row of the (squares, order, max_cage) keys computed now.
    let mut table: BTreeMap<SignsKey, KindTally> = read_signs(&path)?
        .into_iter()
        .filter(|(k, _)| !keys.contains(&(k.0, k.1, k.2)))
        .collect();
    let cages: u64 = fresh.values().map(|t| t.cages).sum();
    table.extend(fresh);
    eprintln!("calcudoku signs: {cages} multi-cell cages");
    write_result_keeping(
        &path,
        &signs_csv(&table),
        &[st],
        keep_record(SIGNS_KIND, keys),
    )
}

// ---------------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------------

/// Arguments shared by `calcudoku cuts` and `calcudoku signs` (same boards for equal values).
#[derive(Args, Debug, Clone)]
pub struct CutsArgs {
    /// Orders (board sides): one (6), a range (4-9) or a list (5,7); 3 to 9.
    #[arg(long, default_value = "4-9")]
    pub orders: String,
    /// Largest cage sizes: one, a range or a list; 1 to 6.
    #[arg(long, default_value = "2-5")]
    pub max_cages: String,
    /// Boards per row (order, largest cage) at orders below 8; at least 1.
    #[arg(long, default_value_t = 10_000)]
    pub boards: u64,
    /// Boards per row at orders 8 and 9 (0 skips those rows).
    #[arg(long, default_value_t = 1_000)]
    pub large_boards: u64,
    /// Where the Latin squares come from: uniform (Jacobson–Matthews read at n³ moves) or
    /// backtrack (randomised backtracking, not uniform). Default: uniform.
    #[arg(long, value_enum, default_value_t = SquareSource::Uniform)]
    pub squares: SquareSource,
    /// Master seed (default 1; any 64-bit value).
    #[arg(long, default_value_t = crate::engine::cli::DEFAULT_SEED)]
    pub seed: u64,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// `calcudoku cuts` arguments.
#[derive(Args, Debug, Clone)]
pub struct CutsCmd {
    #[command(flatten)]
    pub common: CutsArgs,
    /// Search nodes per uniqueness decision before it is called unknown (default 1000000; at
    /// least 1).
    #[arg(long, default_value_t = crate::engine::cli::DEFAULT_NODE_CAP)]
    pub node_cap: u64,
}

fn layout_of(a: &CutsArgs) -> Result<Layout> {
    use crate::engine::cli::parse_int_list;
    if a.boards == 0 {
        return Err(input_error("--boards must be at least 1"));
    }
    Layout::new(
        a.squares,
        &parse_int_list("--orders", &a.orders, MIN_ORDER, MAX_ORDER)?,
        &parse_int_list("--max-cages", &a.max_cages, 1, MAX_CAGE)?,
        a.boards,
        a.large_boards,
    )
}

pub fn cmd_cuts(c: &CutsCmd) -> Result<()> {
    if c.node_cap == 0 {
        return Err(input_error("--node-cap must be at least 1"));
    }
    let job = CutsJob {
        layout: layout_of(&c.common)?,
        seed: c.common.seed,
        node_cap: c.node_cap,
    };
    c.common.engine.validate()?;
    let Some((parts, st)) = execute(&job, &c.common.engine)? else {
        return Ok(());
    };
    eprintln!(
        "calcudoku cuts: {} units in {:.1} s on {} threads",
        st.units, st.elapsed_seconds, st.threads
    );
    write_cuts(&job.layout, &parts, &c.common.engine.results, &st)?;
    st.cleanup();
    Ok(())
}

pub fn cmd_signs(a: &CutsArgs) -> Result<()> {
    let job = SignsJob {
        layout: layout_of(a)?,
        seed: a.seed,
    };
    a.engine.validate()?;
    let Some((parts, st)) = execute(&job, &a.engine)? else {
        return Ok(());
    };
    write_signs(&job.layout, &parts, &a.engine.results, &st)?;
    st.cleanup();
    Ok(())
}

fn layout_from_spec(spec: &JobSpec) -> Result<Layout> {
    let squares = serde_json::from_value(spec.params["squares"].clone())
        .map_err(|e| input_error(format!("partial file: bad squares: {e}")))?;
    let rows = serde_json::from_value(spec.params["rows"].clone())
        .map_err(|e| input_error(format!("partial file: bad rows: {e}")))?;
    Ok(Layout { squares, rows })
}

/// Merge partial files of the cuts or signs job; `Ok(false)` for other kinds.
pub fn merge(kind: &str, files: &[PathBuf], results: &Path) -> Result<bool> {
    match kind {
        CUTS_KIND => {
            let (spec, parts, st) = crate::engine::cli::merge::<Records<CutsTally>>(files)?;
            write_cuts(&layout_from_spec(&spec)?, &parts, results, &st)?;
            st.cleanup();
            Ok(true)
        }
        SIGNS_KIND => {
            let (spec, parts, st) = crate::engine::cli::merge::<Records<SignsUnit>>(files)?;
            write_signs(&layout_from_spec(&spec)?, &parts, results, &st)?;
            st.cleanup();
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// A one-line summary used by the docs and tests: text of a row's key.
pub fn key_text(k: &CutsKey) -> String {
    let mut s = String::new();
    let _ = write!(s, "{} {}x{} largest cage {}", k.0.name(), k.1, k.1, k.2);
    s
}
