//! The command line: one subcommand per puzzle (each puzzle owns its sub-subcommands in
//! `<puzzle>/cli.rs`) plus the cross-cutting jobs `merge` and `report`.

use crate::engine::shard::read_header;
use crate::error::input_error;
use anyhow::Result;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "gridcensus",
    version,
    about = "Exact censuses, sampling studies and solver benchmarks for grid puzzles"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Latin squares: the reduced-square intercalate census and the sampler study.
    #[command(subcommand)]
    Latin(crate::latin::cli::LatinCmd),
    /// Calcudoku (KenKen-style): solve, hint, generate, studies.
    #[command(subcommand)]
    Calcudoku(crate::calcudoku::cli::CalcudokuCmd),
    /// Numbrix (Hamiltonian-path puzzles): solve, hint, census, sampler, studies.
    #[command(subcommand)]
    Numbrix(crate::numbrix::cli::NumbrixCmd),
    /// Kakurasu: solve, hint, generate, difficulty table, census.
    #[command(subcommand)]
    Kakurasu(crate::kakurasu::cli::KakurasuCmd),
    /// Merge the partial files of a sharded run into the result an unsharded run writes.
    Merge {
        /// Partial files (one per shard, all from the same job).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Directory of result files.
        #[arg(long, default_value = "results")]
        results: PathBuf,
    },
    /// Check a results directory against published counts; write DIR/REPORT.md and charts.
    Report {
        /// Directory of result files (default: results). Only this directory is read.
        #[arg(long, default_value = "results")]
        results: PathBuf,
        /// Fail when a result family is absent (what `make report` and CI use); without it,
        /// absent families are listed and only the present ones are checked.
        #[arg(long)]
        complete: bool,
    },
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Latin(c) => crate::latin::cli::run(c),
        Command::Calcudoku(c) => crate::calcudoku::cli::run(c),
        Command::Numbrix(c) => crate::numbrix::cli::run(c),
        Command::Kakurasu(c) => crate::kakurasu::cli::run(c),
        Command::Merge { files, results } => merge(&files, &results),
        Command::Report { results, complete } => {
            crate::report::into_result(crate::report::run(&results, complete)?)
        }
    }
}

/// Dispatch a merge on the job kind recorded in the first partial file.
fn merge(files: &[PathBuf], results: &std::path::Path) -> Result<()> {
    let first = files
        .first()
        .ok_or_else(|| input_error("merge needs at least one partial file"))?;
    let kind = read_header(first)?.spec.kind;
    for f in &files[1..] {
        let other = read_header(f)?.spec.kind;
        if other != kind {
            return Err(input_error(format!(
                "partial files are from different job kinds: {} is '{kind}', {} is '{other}'",
                first.display(),
                f.display()
            )));
        }
    }
    type MergeFn = fn(&str, &[PathBuf], &std::path::Path) -> Result<bool>;
    let handlers: [MergeFn; 4] = [
        crate::latin::cli::merge,
        crate::calcudoku::cli::merge,
        crate::numbrix::cli::merge,
        crate::kakurasu::cli::merge,
    ];
    for h in handlers {
        if h(&kind, files, results)? {
            return Ok(());
        }
    }
    Err(input_error(format!(
        "{}: unknown job kind '{kind}'",
        first.display()
    )))
}

/// A clap usage error as one line: the problem, then the usage hint.
pub fn usage_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut problem = String::new();
    let mut usage = String::new();
    for line in text.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("error:") {
            problem = rest.trim().to_string();
        } else if let Some(rest) = l.strip_prefix("Usage:") {
            usage = rest.trim().to_string();
        } else if problem.is_empty() || l.is_empty() || l.starts_with("For more information") {
            continue;
        } else if usage.is_empty() && !l.starts_with("tip:") {
            problem.push(' ');
            problem.push_str(l);
        }
    }
    if problem.is_empty() {
        problem = text.lines().next().unwrap_or("invalid arguments").to_string();
    }
    if usage.is_empty() {
        format!("{problem} (see --help)")
    } else {
        format!("{problem} (usage: {usage}; see --help)")
    }
}
