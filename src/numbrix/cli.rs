//! `gridcensus numbrix ...` subcommands.

use super::board::{Board, format_grid};
use super::census::cli as census_cli;
use super::ladder::{Rung, Rungs};
use super::search::{self, Count, Hint, Limits};
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
}

#[derive(Args, Debug)]
pub struct SolveArgs {
    /// Board file (plain text grid, '.' for blanks).
    pub file: PathBuf,
    /// Rungs on the ladder: comma list of pin,link,ruler,block,edge,probe, or "default".
    #[arg(long, default_value = "default")]
    pub rungs: String,
    /// Stop counting at this many answers.
    #[arg(long, default_value_t = 2)]
    pub cap: u64,
    /// Give up ("unknown") after this many search nodes.
    #[arg(long, default_value_t = 1_000_000)]
    pub node_cap: u64,
}

#[derive(Args, Debug)]
pub struct HintArgs {
    /// Board file (plain text grid, '.' for blanks).
    pub file: PathBuf,
    /// Rungs on the ladder (see `solve`).
    #[arg(long, default_value = "default")]
    pub rungs: String,
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
    let board = Board::read(&a.file)?;
    match search::hint(&board, rungs) {
        Hint::Place {
            cell,
            value,
            rung,
            reason,
        } => println!(
            "r{}c{} = {value}  [{}]  {reason}",
            cell / board.cols + 1,
            cell % board.cols + 1,
            rung.name()
        ),
        Hint::NoAnswer(r) => println!("no answer: {r}"),
        Hint::Complete => println!("complete: every cell is printed"),
        Hint::Stalled { pairs } => println!(
            "stalled: the ladder ({}) pins no further cell ({pairs} cell×number pairs left); only search goes on",
            rungs.names()
        ),
    }
    Ok(())
}

/// Merge partial files if `kind` is one of this module's jobs; `Ok(false)` otherwise.
pub fn merge(kind: &str, files: &[PathBuf], results: &Path) -> Result<bool> {
    if census_cli::merge(kind, files, results)? {
        return Ok(true);
    }
    Ok(false)
}
