//! `gridcensus numbrix ...` subcommands.

// The doc comments of the argument structs are the command-line help, written for a terminal
// (`[OPTIONS]`, `<results>/...`), not rustdoc links or HTML.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use super::board::{Board, format_grid};
use super::census::cli as census_cli;
use super::ladder::{Rung, Rungs};
use super::search::{self, Count, Hint, Limits};
use crate::engine::cli::{EngineArgs, execute, write_result};
use crate::error::input_error;
use anyhow::Result;
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};

#[derive(Subcommand, Debug)]
pub enum NumbrixCmd {
    /// Hamiltonian-path census of m×n grids (raw walk engine and frontier counter).
    Census(census_cli::CensusArgs),
    /// Backbite sampler held to exact uniformity.
    Sampler(census_cli::SamplerArgs),
    /// Solve a board file: count its answers (up to --cap) with the ladder and search, print
    /// the answer, the per-rung work and, for a non-unique board, a reversal certificate.
    Solve(SolveArgs),
    /// The next deduction on a board file: the cell, its number, the rung and the reason.
    Hint(HintArgs),
    /// Write the board bank: adversarial irredundant boards, each re-proved unique by the
    /// ladder with search and by the raw walk engine (`make bank`).
    Bank(BankArgs),
    /// A study of the Numbrix write-up through the engine; writes results/numbrix_<study>.csv.
    Study(StudyArgs),
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum StudyName {
    /// Parity law and its odd/even corollary on sampled answers (numbrix_parity.csv).
    Parity,
    /// Surviving cell×number pairs after each of the first clues (numbrix_space.csv).
    Space,
    /// Cells pinned by each rung, climbing, on random reveals (numbrix_climb.csv).
    Climb,
    /// Removal ablation: each rung taken off the full ladder (numbrix_ablation.csv).
    Ablation,
    /// Adversarial irredundant and random-until-unique clue sets (numbrix_clues.csv).
    Clues,
    /// The pin wall: pin alone needs all but one number (numbrix_pin_wall.csv).
    PinWall,
    /// Sparse random reveals decided by the walk search, against the raw walk engine
    /// (numbrix_sparse.csv; wall times in numbrix_sparse_timing.csv).
    Sparse,
    /// Reversal certificates on random reveals: the share of ambiguous boards they explain
    /// (numbrix_certificate.csv).
    Certificate,
    /// The adversary's irredundant set with the probe on the ladder, against without it
    /// (numbrix_probe_adversary.csv).
    ProbeAdversary,
}

#[derive(Args, Debug)]
pub struct StudyArgs {
    /// Which study: parity, space, climb, ablation, clues, pin-wall, sparse, certificate or
    /// probe-adversary (each writes results/numbrix_<study>.csv).
    pub study: StudyName,
    /// Square sizes, a range (4-10) or a list (6,8,10), sides 1-16 (default per study: parity
    /// 4-10, space 6,8,10, climb 6-10, ablation 6-10, clues 4-10, pin-wall 4,6, sparse 8-12,
    /// certificate 4-10, probe-adversary 8,10).
    /// Rows of other sizes already in the result file are kept.
    #[arg(long)]
    pub sizes: Option<String>,
    /// Samples per size, at least 1 (default per study: parity 200, space 100, climb 50,
    /// ablation 24, clues 100, pin-wall 20, sparse 1000, certificate 50, probe-adversary 30).
    #[arg(long)]
    pub per_size: Option<u64>,
    /// Search nodes per decision before "unknown" (sparse study), at least 1 (default 1000000).
    #[arg(long, default_value_t = crate::engine::cli::DEFAULT_NODE_CAP)]
    pub node_cap: u64,
    /// Largest side on which the sparse study re-counts every board with the raw walk engine
    /// (default 8; 0 = never). The raw engine needs minutes on some sparse 10×10 reveals.
    #[arg(long, default_value_t = 8)]
    pub raw_max: usize,
    /// Share of numbers revealed at random (climb default 0.2, ablation default 0.2).
    #[arg(long)]
    pub reveal: Option<f64>,
    /// Clues followed by the search-space study.
    #[arg(long, default_value_t = 8)]
    pub max_clues: usize,
    /// Master seed (default 1; the committed results use 2026).
    #[arg(long, default_value_t = crate::engine::cli::DEFAULT_SEED)]
    pub seed: u64,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Args, Debug)]
pub struct BankArgs {
    /// Square board sizes, e.g. 4-10 or 5,7.
    #[arg(long, default_value = "4-10")]
    pub sizes: String,
    /// Boards per size.
    #[arg(long, default_value_t = 10)]
    pub per_size: u64,
    /// Backbite moves per cell when drawing each answer (default 16).
    #[arg(long, default_value_t = 16)]
    pub moves_per_cell: u64,
    /// Master seed (default 1; the committed bank uses 2026).
    #[arg(long, default_value_t = crate::engine::cli::DEFAULT_SEED)]
    pub seed: u64,
    /// Directory of the bank (board files and index.csv).
    #[arg(long, default_value = "examples/numbrix/bank")]
    pub out: PathBuf,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Parse "4-10" or "5,7,9" into sizes within lo..=hi.
pub fn parse_sizes(s: &str, lo: usize, hi: usize) -> Result<Vec<usize>> {
    crate::engine::cli::parse_int_list("--sizes", s, lo, hi)
}

#[derive(Args, Debug)]
pub struct SolveArgs {
    /// Board file (plain text grid, '.' for blanks).
    pub file: PathBuf,
    /// Rungs climbed at the root before the walk search: all, none, default, decide, or a
    /// comma list of pin,link,ruler,block,edge,probe (default: default).
    #[arg(long, default_value = "default")]
    pub rungs: String,
    /// Stop counting at this many answers, at least 1 (default 2).
    #[arg(long, default_value_t = 2)]
    pub cap: u64,
    /// Search nodes per decision before "unknown", at least 1 (default 1000000).
    #[arg(long, default_value_t = crate::engine::cli::DEFAULT_NODE_CAP)]
    pub node_cap: u64,
}

#[derive(Args, Debug)]
pub struct HintArgs {
    /// Board file (plain text grid, '.' for blanks).
    pub file: PathBuf,
    /// Rungs on the ladder: all, none, default, decide or a comma list (default: default).
    #[arg(long, default_value = "default")]
    pub rungs: String,
    /// Deductions to print, each applied before the next (default 1; 0 = all until the ladder
    /// stalls or the board is complete).
    #[arg(long, default_value_t = 1)]
    pub steps: u64,
}

pub fn parse_rungs(s: &str) -> Result<Rungs> {
    Rungs::parse(s).map_err(|e| input_error(format!("--rungs: {e}")))
}

pub fn run(cmd: NumbrixCmd) -> Result<()> {
    match cmd {
        NumbrixCmd::Census(a) => census_cli::run_census(a),
        NumbrixCmd::Sampler(a) => census_cli::run_sampler(a),
        NumbrixCmd::Solve(a) => solve(a),
        NumbrixCmd::Hint(a) => hint(a),
        NumbrixCmd::Bank(a) => bank(a),
        NumbrixCmd::Study(a) => study(a),
    }
}

fn solve(a: SolveArgs) -> Result<()> {
    let rungs = parse_rungs(&a.rungs)?;
    if a.cap == 0 || a.node_cap == 0 {
        return Err(input_error("--cap and --node-cap must be at least 1"));
    }
    let board = Board::read(&a.file)?;
    let start = std::time::Instant::now();
    let v = search::count(
        &board,
        rungs,
        Limits {
            cap: a.cap,
            node_cap: a.node_cap,
        },
    );
    let secs = start.elapsed().as_secs_f64();
    println!(
        "board {}x{}, {} printed numbers; rungs {}",
        board.rows,
        board.cols,
        board.clue_count(),
        rungs.names()
    );
    let verdict = match v.count {
        Count::Exact(0) => "no answer".to_string(),
        Count::Exact(1) => "unique answer".to_string(),
        Count::Exact(k) => format!("{k} answers"),
        Count::AtLeast(k) => format!("at least {k} answers (cap reached)"),
        Count::Unknown { found } => {
            format!(
                "unknown: node cap hit after {} nodes ({found} answers seen)",
                v.nodes
            )
        }
    };
    println!("answers: {verdict}");
    if let Some(r) = &v.reason {
        println!("reason: {r}");
    }
    if let Some(ans) = v.answers.first() {
        print!("{}", format_grid(board.rows, board.cols, ans));
        if v.answers.len() > 1 || !matches!(v.count, Count::Exact(1)) {
            match super::certificate::find(&board, ans) {
                Some(cert) => println!(
                    "reversal certificate: reverse path positions {}..{} for a second answer",
                    cert.from + 1,
                    cert.to + 1
                ),
                None => println!("reversal certificate: none on this answer"),
            }
        }
    }
    println!("search nodes: {}; {:.3} ms", v.nodes, secs * 1e3);
    for r in Rung::all() {
        if rungs.has(r) {
            println!(
                "  {:<6} calls {:>8}  eliminations {:>9}",
                r.name(),
                v.work.calls[r as usize],
                v.work.elims[r as usize]
            );
        }
    }
    println!(
        "bookkeeping {} eliminations, {} probes",
        v.work.bookkeeping(),
        v.work.probes
    );
    Ok(())
}

fn hint(a: HintArgs) -> Result<()> {
    let rungs = parse_rungs(&a.rungs)?;
    let mut board = Board::read(&a.file)?;
    let mut done = 0u64;
    loop {
        match search::hint(&board, rungs) {
            Hint::Place {
                cell,
                value,
                rung,
                reason,
            } => {
                println!(
                    "r{}c{} = {value}  [{}]  {reason}",
                    cell / board.cols + 1,
                    cell % board.cols + 1,
                    rung.name()
                );
                board.givens[cell] = value;
                done += 1;
                if a.steps != 0 && done >= a.steps {
                    return Ok(());
                }
            }
            Hint::NoAnswer(r) => {
                println!("no answer: {r}");
                return Ok(());
            }
            Hint::Complete => {
                println!("complete: every cell is printed");
                return Ok(());
            }
            Hint::Stalled { pairs } => {
                println!(
                    "stalled: the ladder ({}) pins no further cell ({pairs} cell×number pairs left); only search goes on",
                    rungs.names()
                );
                return Ok(());
            }
        }
    }
}

fn bank(a: BankArgs) -> Result<()> {
    let sizes = parse_sizes(&a.sizes, 2, 16)?;
    if a.per_size == 0 {
        return Err(input_error("--per-size must be at least 1"));
    }
    let job = super::bank::BankJob {
        sizes,
        per_size: a.per_size,
        moves_per_cell: a.moves_per_cell,
        seed: a.seed,
    };
    let Some((recs, stats)) = execute(&job, &a.engine)? else {
        return Ok(());
    };
    write_bank(&a.out, &a.engine.results, &recs.0, &stats)
}

fn write_bank(
    out: &Path,
    results: &Path,
    boards: &[super::bank::BankBoard],
    stats: &crate::engine::cli::RunStats,
) -> Result<()> {
    std::fs::create_dir_all(out)?;
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "file",
        "rows",
        "cols",
        "clues",
        "grade",
        "search_count",
        "search_nodes",
        "raw_engine_count",
    ])?;
    for b in boards {
        crate::engine::atomic::write_atomic(&out.join(b.file_name()), b.file_text().as_bytes())?;
        w.write_record([
            b.file_name(),
            b.rows.to_string(),
            b.cols.to_string(),
            b.clues.to_string(),
            b.grade.clone(),
            b.search_count.to_string(),
            b.search_nodes.to_string(),
            b.raw_count.map_or("pending".into(), |k| k.to_string()),
        ])?;
    }
    let index = w.into_inner()?;
    write_result(&out.join("index.csv"), &index, &[stats])?;
    // The report reads the bank's index from the results directory only.
    write_result(&results.join(super::report::BANK_FILE), &index, &[stats])?;
    stats.cleanup();
    eprintln!(
        "bank: {} boards written to {} ({:.1} s on {} threads)",
        boards.len(),
        out.display(),
        stats.elapsed_seconds,
        stats.threads
    );
    Ok(())
}

fn study(a: StudyArgs) -> Result<()> {
    use super::studies::*;
    let (sizes, per) = match a.study {
        StudyName::Parity => ("4-10", 200),
        StudyName::Space => ("6,8,10", 100),
        StudyName::Climb => ("6-10", 50),
        StudyName::Ablation => ("6-10", 24),
        StudyName::Clues => ("4-10", 100),
        StudyName::PinWall => ("4,6", 20),
        StudyName::Sparse => ("8-12", 1000),
        StudyName::Certificate => ("4-10", 50),
        StudyName::ProbeAdversary => ("8,10", 30),
    };
    if a.node_cap == 0 {
        return Err(input_error("--node-cap must be at least 1"));
    }
    let sizes = parse_sizes(a.sizes.as_deref().unwrap_or(sizes), 1, 16)?;
    let per_size = a.per_size.unwrap_or(per);
    if per_size == 0 {
        return Err(input_error("--per-size must be at least 1"));
    }
    let reveal = a.reveal.unwrap_or(0.2);
    if !(0.0..=1.0).contains(&reveal) {
        return Err(input_error("--reveal must lie in 0..1"));
    }
    fn go<S: Study>(
        study: S,
        sizes: Vec<usize>,
        per_size: u64,
        seed: u64,
        e: &EngineArgs,
    ) -> Result<()> {
        let job = StudyJob {
            study,
            sizes,
            per_size,
            seed,
        };
        let Some((recs, stats)) = execute(&job, e)? else {
            return Ok(());
        };
        let path = e.results.join(S::FILE);
        let bytes = keyed_csv(&path, &to_csv(&recs.0)?, &job.sizes)?;
        crate::engine::cli::write_result_keeping(&path, &bytes, &[&stats], |sp| {
            sp.kind == S::KIND
        })?;
        let times: Vec<(usize, f64, u64)> = recs.0.iter().filter_map(S::timing).collect();
        if !times.is_empty() {
            write_sparse_timing(&e.results, &times, &stats)?;
        }
        stats.cleanup();
        eprintln!(
            "{}: {} records in {:.1} s on {} threads",
            S::FILE,
            recs.0.len(),
            stats.elapsed_seconds,
            stats.threads
        );
        Ok(())
    }
    let (sd, e) = (a.seed, &a.engine);
    match a.study {
        StudyName::Parity => go(Parity, sizes, per_size, sd, e),
        StudyName::Space => go(
            Space {
                max_clues: a.max_clues,
            },
            sizes,
            per_size,
            sd,
            e,
        ),
        StudyName::Climb => go(Climb { reveal }, sizes, per_size, sd, e),
        StudyName::Ablation => go(Ablation { reveal }, sizes, per_size, sd, e),
        StudyName::Clues => go(Clues, sizes, per_size, sd, e),
        StudyName::PinWall => go(PinWall, sizes, per_size, sd, e),
        StudyName::Certificate => go(Certify, sizes, per_size, sd, e),
        StudyName::ProbeAdversary => go(ProbeAdversary, sizes, per_size, sd, e),
        StudyName::Sparse => go(
            Sparse {
                node_cap: a.node_cap,
                raw_max: a.raw_max,
            },
            sizes,
            per_size,
            sd,
            e,
        ),
    }
}

/// A study CSV is keyed by board size: the rows just computed replace the rows of their sizes
/// in the existing file, and rows of other sizes stay (sorted by size, stable within one).
/// An existing file with another header (an older column set) is replaced, with a warning.
fn keyed_csv(path: &Path, new: &[u8], sizes: &[usize]) -> Result<Vec<u8>> {
    let Ok(old) = std::fs::read(path) else {
        return Ok(new.to_vec());
    };
    let mut rn = csv::Reader::from_reader(new);
    let header = rn.headers()?.clone();
    let mut ro = csv::Reader::from_reader(old.as_slice());
    let old_header = ro
        .headers()
        .map_err(|e| input_error(format!("{}: malformed: {e}", path.display())))?
        .clone();
    if old_header != header {
        eprintln!(
            "{}: the existing file has other columns; it is replaced, not merged",
            path.display()
        );
        return Ok(new.to_vec());
    }
    let rows_col = header.iter().position(|h| h == "rows").unwrap_or(0);
    let size_of = |r: &csv::StringRecord| r.get(rows_col).and_then(|x| x.parse::<usize>().ok());
    let mut all: Vec<csv::StringRecord> = Vec::new();
    for r in ro.records() {
        let r = r.map_err(|e| input_error(format!("{}: malformed: {e}", path.display())))?;
        if !size_of(&r).is_some_and(|s| sizes.contains(&s)) {
            all.push(r);
        }
    }
    for r in rn.records() {
        all.push(r?);
    }
    all.sort_by_key(|r| size_of(r).unwrap_or(0));
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&header)?;
    for r in &all {
        w.write_record(r)?;
    }
    Ok(w.into_inner()?)
}

/// Wall times of the sparse study's decisions: per size and density, the median, 90th
/// percentile and largest, in milliseconds (measured, so kept out of the result CSV).
fn write_sparse_timing(
    results: &Path,
    times: &[(usize, f64, u64)],
    stats: &crate::engine::cli::RunStats,
) -> Result<()> {
    let mut groups: std::collections::BTreeMap<(usize, u64), Vec<u64>> = Default::default();
    for &(rows, factor, m) in times {
        groups
            .entry((rows, (factor * 100.0).round() as u64))
            .or_default()
            .push(m);
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "rows",
        "cols",
        "factor",
        "boards",
        "median_ms",
        "p90_ms",
        "max_ms",
        "threads",
    ])?;
    for ((s, f), mut v) in groups {
        v.sort_unstable();
        let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize] as f64 / 1e3;
        w.write_record([
            s.to_string(),
            s.to_string(),
            format!("{:.2}", f as f64 / 100.0),
            v.len().to_string(),
            format!("{:.3}", q(0.5)),
            format!("{:.3}", q(0.9)),
            format!("{:.3}", q(1.0)),
            stats.threads.to_string(),
        ])?;
    }
    write_result(
        &results.join("numbrix_sparse_timing.csv"),
        &w.into_inner()?,
        &[stats],
    )
}

fn merge_study<S: super::studies::Study>(files: &[PathBuf], results: &Path) -> Result<()> {
    let (_, recs, stats) = crate::engine::cli::merge::<crate::engine::Records<S::Rec>>(files)?;
    write_result(
        &results.join(S::FILE),
        &super::studies::to_csv(&recs.0)?,
        &[&stats],
    )?;
    Ok(())
}

fn merge_bank(files: &[PathBuf], results: &Path) -> Result<()> {
    let (_, recs, stats) =
        crate::engine::cli::merge::<crate::engine::Records<super::bank::BankBoard>>(files)?;
    write_bank(&results.join("numbrix_bank"), results, &recs.0, &stats)
}

/// Merge partial files if `kind` is one of this module's jobs; `Ok(false)` otherwise.
pub fn merge(kind: &str, files: &[PathBuf], results: &Path) -> Result<bool> {
    if census_cli::merge(kind, files, results)? {
        return Ok(true);
    }
    use super::studies::*;
    match kind {
        "numbrix-bank" => merge_bank(files, results)?,
        k if k == Parity::KIND => merge_study::<Parity>(files, results)?,
        k if k == Space::KIND => merge_study::<Space>(files, results)?,
        k if k == Climb::KIND => merge_study::<Climb>(files, results)?,
        k if k == Ablation::KIND => merge_study::<Ablation>(files, results)?,
        k if k == Clues::KIND => merge_study::<Clues>(files, results)?,
        k if k == PinWall::KIND => merge_study::<PinWall>(files, results)?,
        k if k == Sparse::KIND => merge_study::<Sparse>(files, results)?,
        k if k == Certify::KIND => merge_study::<Certify>(files, results)?,
        k if k == ProbeAdversary::KIND => merge_study::<ProbeAdversary>(files, results)?,
        _ => return Ok(false),
    }
    Ok(true)
}
