//! `gridcensus kakurasu ...` subcommands: solve, hint, generate, difficulty, census.

// The doc comments of the argument structs are the command-line help, written for a terminal
// (`[OPTIONS]`, `<results>/...`), not rustdoc links or HTML.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use super::census::{CENSUS_FILE, CensusJob, CensusSummary, FIBRES_FILE, MAX_CENSUS_N};
use super::difficulty::{DEFAULT_BOARDS, DEFAULT_SEED, DifficultyJob, DifficultyTotals};
use super::rules::{Fixpoint, RuleSet, State, fixpoint, next_hint};
use super::search::count_from;
use super::{MAX_N, read_board};
use crate::engine::cli::{EngineArgs, RunStats, execute, write_result};
use crate::engine::{Histogram, Job};
use crate::error::input_error;
use anyhow::Result;
use clap::Subcommand;
use rand::SeedableRng;
use std::path::{Path, PathBuf};

#[derive(Subcommand, Debug)]
pub enum KakurasuCmd {
    /// Solve a board file: count its solutions (up to --cap), print them, say whether each rule
    /// set alone finishes it, and cross-check the count with the independent row verifier.
    Solve {
        /// Board file (see the format in docs/kakurasu.md).
        file: PathBuf,
        /// Rule set propagated inside the search (default: enumeration). Also accepted as
        /// --rules.
        #[arg(
            long = "rungs",
            alias = "rules",
            value_enum,
            default_value = "enumeration"
        )]
        rules: RuleSet,
        /// Stop counting at this many solutions, at least 1 (default 2).
        #[arg(long, default_value_t = 2)]
        cap: u64,
    },
    /// The next deduction for a board file (from its grid marks, if any), with its reason:
    /// intervals first, then enumeration.
    Hint {
        /// Board file: targets, optionally with grid marks (see docs/kakurasu.md).
        file: PathBuf,
        /// Deductions to print, each applied before the next (default 1; 0 = all until both
        /// rule sets stall or the board is complete, then the grid).
        #[arg(long, default_value_t = 1)]
        steps: u64,
        /// Same as --steps 0 (kept for older scripts).
        #[arg(long, hide = true)]
        all: bool,
    },
    /// Generate uniquely solvable boards by rejection sampling; prints board files.
    Generate {
        /// Board size n (1 to 9; default 6).
        #[arg(long, default_value_t = 6)]
        size: usize,
        /// Boards to print, at least 1 (default 1).
        #[arg(long, default_value_t = 1)]
        count: u64,
        /// Master seed (default 1); the same seed gives the same boards.
        #[arg(long, default_value_t = crate::engine::cli::DEFAULT_SEED)]
        seed: u64,
    },
    /// Difficulty table: per size, B generated boards, the share each rule set finishes without
    /// search, rolls to unique, search nodes, cells decided at the stall. Writes
    /// results/kakurasu_difficulty.csv (B = 200) or results/kakurasu_difficulty_b<B>.csv.
    Difficulty {
        /// Boards per size.
        #[arg(long, default_value_t = DEFAULT_BOARDS)]
        boards: u64,
        /// Sizes: one (8), a range (4-9) or a list (4,6,8).
        #[arg(long, default_value = "4-9")]
        sizes: String,
        /// Master seed.
        #[arg(long, default_value_t = DEFAULT_SEED)]
        seed: u64,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// Census of target vectors over all 2^(n²) shadings: distinct vectors, uniquely solvable
    /// ones, largest fibre. Writes results/kakurasu_census.csv and kakurasu_census_fibres.csv
    /// (rows of other sizes already there are kept).
    Census {
        /// Sizes n: one (5), a range (1-6) or a list (3,5); 1 to 7 (default 1-6). n = 7 by
        /// exhaustion is a cluster-sized run: see `gridcensus plan`.
        #[arg(long, default_value = "1-6")]
        sizes: String,
        /// Run n = 7 on one machine anyway (without --shard it is refused: about 2·10⁶
        /// CPU-seconds by exhaustion; default: refuse).
        #[arg(long)]
        confirm_long: bool,
        #[command(flatten)]
        engine: EngineArgs,
    },
}

/// Parse "8", "4-9" or "4,6,8" into sizes within 1..=max.
pub fn parse_sizes(s: &str, max: usize) -> Result<Vec<usize>> {
    crate::engine::cli::parse_int_list("--sizes", s, 1, max)
}

pub fn run(cmd: KakurasuCmd) -> Result<()> {
    match cmd {
        KakurasuCmd::Solve { file, rules, cap } => solve(&file, rules, cap),
        KakurasuCmd::Hint { file, steps, all } => hint(&file, if all { 0 } else { steps }),
        KakurasuCmd::Generate { size, count, seed } => generate(size, count, seed),
        KakurasuCmd::Difficulty {
            boards,
            sizes,
            seed,
            engine,
        } => difficulty(boards, &sizes, seed, &engine),
        KakurasuCmd::Census {
            sizes,
            confirm_long,
            engine,
        } => census(&sizes, confirm_long, &engine),
    }
}

fn solve(file: &Path, rules: RuleSet, cap: u64) -> Result<()> {
    if cap == 0 {
        return Err(input_error("--cap must be at least 1"));
    }
    let f = read_board(file)?;
    let b = &f.board;
    let n = b.n;
    let start = State::from_marks(n, &f.marks);
    println!("{n}×{n} board, rows {:?}, cols {:?}", b.rows, b.cols);
    for rule in [RuleSet::Intervals, RuleSet::Enumeration] {
        let line = match fixpoint(b, start.clone(), rule) {
            Fixpoint::Solved(_) => "finishes the board without search".to_string(),
            Fixpoint::Stalled(s) => {
                format!("stalls with {} of {} cells decided", s.decided(), n * n)
            }
            Fixpoint::Contradiction => "finds a contradiction: no solution".to_string(),
        };
        println!("{rule} alone: {line}");
    }
    let r = count_from(b, start.clone(), rules, cap);
    let verdict = match r.count {
        0 => "no solution: the targets (and marks) are unsatisfiable".to_string(),
        1 => "unique solution".to_string(),
        c if c >= cap => format!("at least {c} solutions (counting stopped at --cap {cap})"),
        c => format!("{c} solutions"),
    };
    println!(
        "search with {rules}: {verdict} ({} nodes, {} branches)",
        r.stats.nodes, r.stats.branches
    );
    let marks_free = f.marks.iter().all(|m| m.is_none());
    if marks_free {
        let v = super::verify::count_solutions_by_rows(&b.rows, &b.cols, cap);
        println!(
            "row verifier: {v} solution(s) up to the cap — {}",
            if v == r.count { "agrees" } else { "DISAGREES" }
        );
        if v != r.count {
            anyhow::bail!("internal error: search and verifier disagree");
        }
    }
    for (k, s) in r.solutions.iter().enumerate() {
        println!("solution {}:\n{}", k + 1, s.grid_text().trim_end());
    }
    Ok(())
}

fn hint(file: &Path, max_steps: u64) -> Result<()> {
    let all = max_steps == 0;
    let f = read_board(file)?;
    let b = &f.board;
    let mut state = State::from_marks(b.n, &f.marks);
    let mut steps = 0u64;
    loop {
        match next_hint(b, &state) {
            None => {
                if state.is_complete() {
                    println!("the board is complete");
                } else {
                    println!(
                        "no single-line deduction: both rule sets are stuck with {} of {} cells decided; the board needs a guess (search)",
                        state.decided(),
                        b.n * b.n
                    );
                }
                break;
            }
            Some(h) => {
                steps += 1;
                match h.cell {
                    None => {
                        println!("{} ({})", h.reason, h.rule);
                        break;
                    }
                    Some((i, j, v)) => {
                        println!(
                            "{}. row {}, column {}: {} — {} ({})",
                            steps,
                            i + 1,
                            j + 1,
                            if v { "shade" } else { "cross" },
                            h.reason,
                            h.rule
                        );
                        state.set(i, j, v);
                    }
                }
                if !all && steps >= max_steps {
                    break;
                }
            }
        }
    }
    if all {
        println!("grid\n{}", state.grid_text().trim_end());
    }
    Ok(())
}

fn generate(size: usize, count: u64, seed: u64) -> Result<()> {
    if size == 0 || size > MAX_N {
        return Err(input_error(format!(
            "--size {size} is out of range: Kakurasu boards are 1×1 to {MAX_N}×{MAX_N}"
        )));
    }
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    for k in 0..count {
        let g = super::generate::unique_board(size, &mut rng, super::difficulty::MAX_ROLLS)
            .ok_or_else(|| anyhow::anyhow!("no unique board found"))?;
        let ints = matches!(
            fixpoint(&g.board, State::empty(size), RuleSet::Intervals),
            Fixpoint::Solved(_)
        );
        let enums = matches!(
            fixpoint(&g.board, State::empty(size), RuleSet::Enumeration),
            Fixpoint::Solved(_)
        );
        if k > 0 {
            println!();
        }
        println!(
            "# {size}×{size}, seed {seed}, board {}: unique after {} roll(s); intervals {}, enumeration {}",
            k + 1,
            g.rolls,
            if ints { "finish" } else { "stall" },
            if enums { "finishes" } else { "stalls" }
        );
        print!("{}", g.board.to_text());
    }
    Ok(())
}

fn difficulty(boards: u64, sizes: &str, seed: u64, engine: &EngineArgs) -> Result<()> {
    let sizes = parse_sizes(sizes, MAX_N)?;
    engine.validate()?;
    let job = DifficultyJob::new(sizes, boards, seed)?;
    let Some((totals, st)) = execute(&job, engine)? else {
        return Ok(());
    };
    eprintln!(
        "difficulty: {} boards per size in {:.2} s on {} threads ({} units)",
        boards, st.elapsed_seconds, st.threads, st.units
    );
    write_difficulty(&engine.results, boards, seed, &totals, &st)
}

fn write_difficulty(
    results: &Path,
    boards: u64,
    seed: u64,
    totals: &DifficultyTotals,
    st: &RunStats,
) -> Result<()> {
    let path = results.join(super::difficulty::file_name(boards));
    write_result(&path, &super::difficulty::csv_bytes(totals, seed), &[st])?;
    st.cleanup();
    eprintln!("wrote {}", path.display());
    Ok(())
}

fn census(sizes: &str, confirm_long: bool, engine: &EngineArgs) -> Result<()> {
    let sizes = parse_sizes(sizes, MAX_CENSUS_N)?;
    engine.validate()?;
    if sizes.contains(&7) && engine.shard.is_none() && !confirm_long {
        return Err(input_error(
            "--sizes 7: the exhaustive census of n = 7 needs about 2·10⁶ CPU-seconds (8,192 × the n = 6 run); \
             run it as shards on a cluster (see `gridcensus plan -- kakurasu census --sizes 7`) or pass --confirm-long",
        ));
    }
    if engine.shard.is_some() && sizes.len() != 1 {
        return Err(input_error(
            "--shard runs one size at a time: give a single --sizes N",
        ));
    }
    let fpath = engine.results.join(FIBRES_FILE);
    let mut table = super::census::read_fibres(&fpath)?;
    let mut stats = Vec::new();
    for &n in &sizes {
        let job = CensusJob::new(n)?;
        let Some((hist, st)) = execute(&job, engine)? else {
            return Ok(());
        };
        report_census(n, &hist, &st)?;
        table.insert(n, hist);
        stats.push(st);
    }
    write_census(&engine.results, &table, &stats)
}

fn report_census(n: usize, hist: &Histogram, st: &RunStats) -> Result<()> {
    let s = CensusSummary::of(n, hist);
    if s.shadings != 1u128 << (n * n) {
        anyhow::bail!(
            "internal error: n = {n}: fibres cover {} shadings, not 2^{}",
            s.shadings,
            n * n
        );
    }
    eprintln!(
        "n = {n}: {} target vectors, {} uniquely solvable, largest fibre {} ({:.3} s on {} threads, {} units)",
        s.target_vectors, s.unique_vectors, s.max_fibre, st.elapsed_seconds, st.threads, st.units
    );
    Ok(())
}

fn write_census(
    results: &Path,
    table: &super::census::CensusTable,
    stats: &[RunStats],
) -> Result<()> {
    let refs: Vec<&RunStats> = stats.iter().collect();
    write_result(
        &results.join(FIBRES_FILE),
        &super::census::fibres_csv(table),
        &refs,
    )?;
    write_result(
        &results.join(CENSUS_FILE),
        &super::census::census_csv(table),
        &refs,
    )?;
    for s in stats {
        s.cleanup();
    }
    Ok(())
}

/// Merge partial files if `kind` is one of this module's jobs; `Ok(false)` otherwise.
pub fn merge(kind: &str, files: &[PathBuf], results: &Path) -> Result<bool> {
    match kind {
        "kakurasu-census" => {
            let fpath = results.join(FIBRES_FILE);
            let mut table = super::census::read_fibres(&fpath)?;
            let (spec, hist, stats) = crate::engine::cli::merge::<Histogram>(files)?;
            let n = spec.params["n"]
                .as_u64()
                .ok_or_else(|| input_error("kakurasu-census partial without n"))?
                as usize;
            let job = CensusJob::new(n)?;
            if job.spec() != spec {
                return Err(input_error(
                    "kakurasu-census partials do not match this version's job spec",
                ));
            }
            report_census(n, &hist, &stats)?;
            table.insert(n, hist);
            write_census(results, &table, &[stats])?;
            Ok(true)
        }
        "kakurasu-difficulty" => {
            let (spec, totals, stats) = crate::engine::cli::merge::<DifficultyTotals>(files)?;
            let p = &spec.params;
            let boards = p["boards"]
                .as_u64()
                .ok_or_else(|| input_error("kakurasu-difficulty partial without boards"))?;
            let seed = spec.seed;
            let sizes: Vec<usize> = p["sizes"]
                .as_array()
                .ok_or_else(|| input_error("kakurasu-difficulty partial without sizes"))?
                .iter()
                .filter_map(|v| v.as_u64().map(|x| x as usize))
                .collect();
            let job = DifficultyJob::new(sizes, boards, seed)?;
            if job.spec() != spec {
                return Err(input_error(
                    "kakurasu-difficulty partials do not match this version's job spec",
                ));
            }
            write_difficulty(results, boards, seed, &totals, &stats)?;
            Ok(true)
        }
        _ => Ok(false),
    }
}
