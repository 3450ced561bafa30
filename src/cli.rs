//! The command line: one subcommand per puzzle (each puzzle owns its sub-subcommands in
//! `<puzzle>/cli.rs`) plus the cross-cutting jobs `merge` and `report`.

// The doc comments of the argument structs are the command-line help, written for a terminal
// (`[OPTIONS]`, `<results>/...`), not rustdoc links or HTML.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

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
    /// Estimate what a job costs before running it: unit count, measured per-unit time from a
    /// random sample of units, total CPU-hours and a suggested shard count. Writes nothing.
    /// Usage: gridcensus plan [OPTIONS] -- <job subcommand and its options>
    Plan(PlanArgs),
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

/// Options of `gridcensus plan`.
#[derive(clap::Args, Debug)]
pub struct PlanArgs {
    /// Units to time, chosen at random without replacement (default 20; 1 or more; fewer when
    /// the job has fewer units or the budget runs out).
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: u64,
    /// Wall-clock budget of the timed sample in seconds (default 30; 1 or more). A unit still
    /// running when it ends is reported as a lower bound.
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub budget: u64,
    /// Seed of the random choice of sampled units (default 1; any u64).
    #[arg(long, default_value_t = crate::engine::cli::DEFAULT_SEED)]
    pub seed: u64,
    /// Cores the suggested shard count is for (default: this machine's cores; 1 or more).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub cores: Option<u64>,
    /// Target CPU-hours per shard of the suggestion (default 1; more than 0).
    #[arg(long, value_name = "HOURS", default_value_t = 1.0)]
    pub shard_hours: f64,
    /// Time nothing; print the job's kind, digest and unit count and, for an N-shard run, each
    /// shard's default partial and journal file, one shard per line (default: off; N 1 or more).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub paths: Option<u64>,
    /// The job command line, after `--` (e.g. `-- latin census --orders 8`).
    #[arg(last = true, required = true, value_name = "JOB ARGS")]
    pub job: Vec<String>,
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Latin(c) => crate::latin::cli::run(c),
        Command::Calcudoku(c) => crate::calcudoku::cli::run(c),
        Command::Numbrix(c) => crate::numbrix::cli::run(c),
        Command::Kakurasu(c) => crate::kakurasu::cli::run(c),
        Command::Merge { files, results } => merge(&files, &results),
        Command::Plan(args) => plan(args),
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
        problem = text
            .lines()
            .next()
            .unwrap_or("invalid arguments")
            .to_string();
    }
    if usage.is_empty() {
        format!("{problem} (see --help)")
    } else {
        format!("{problem} (usage: {usage}; see --help)")
    }
}

/// `gridcensus plan -- <job args>`: run the job's command in plan mode (see `engine::plan`).
fn plan(args: PlanArgs) -> Result<()> {
    use clap::CommandFactory;
    if !(args.shard_hours > 0.0 && args.shard_hours.is_finite()) {
        return Err(input_error(
            "--shard-hours must be a positive number of hours",
        ));
    }
    let mut argv = vec!["gridcensus".to_string()];
    argv.extend(args.job.iter().cloned());
    // Only engine jobs can be planned: their subcommand has the engine's --shard option.
    let mut cmd = Cli::command();
    let mut path = Vec::new();
    for word in &args.job {
        match cmd.find_subcommand(word) {
            Some(sub) => {
                path.push(word.clone());
                cmd = sub.clone();
            }
            None => break,
        }
    }
    if path.is_empty() || !cmd.get_arguments().any(|a| a.get_id() == "shard") {
        return Err(input_error(format!(
            "plan: '{}' is not an engine job (give a job command such as `latin census --orders 8`)",
            args.job.join(" ")
        )));
    }
    // Planning goes through the one-shard path of the job, so a command that would run several
    // jobs in sequence (several orders or sizes) is refused with its own one-line message.
    if !args
        .job
        .iter()
        .any(|a| a == "--shard" || a.starts_with("--shard="))
    {
        argv.push("--shard".into());
        argv.push("0/1".into());
    }
    let job_cli = Cli::try_parse_from(&argv).map_err(|e| {
        let text = e.to_string();
        let first = text
            .lines()
            .next()
            .unwrap_or("")
            .trim_start_matches("error: ");
        input_error(format!("plan: {first}"))
    })?;
    let cores = args.cores.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get() as u64)
            .unwrap_or(1)
    });
    let req = crate::engine::plan::PlanRequest {
        sample: args.sample.min(usize::MAX as u64) as usize,
        budget_seconds: args.budget as f64,
        seed: args.seed,
        cores,
        shard_hours: args.shard_hours,
        paths_for_shards: args.paths,
    };
    crate::engine::plan::activate(req.clone());
    let outcome = run(job_cli);
    let reports = crate::engine::plan::take();
    outcome?;
    if reports.is_empty() {
        return Err(input_error(format!(
            "plan: '{}' reached no engine job",
            args.job.join(" ")
        )));
    }
    for r in &reports {
        print!("{}", crate::engine::plan::render(r, &req));
    }
    Ok(())
}
