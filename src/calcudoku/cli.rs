//! `gridcensus calcudoku ...` subcommands: solve, hint, generate.

use super::agree::{AGREE_FILE, AGREE_KIND, AgreeJob, Tally, aggregate, agree_csv};
use super::board::{Board, grid_text};
use super::certificate::certified_flips;
use super::generate::random_board;
use super::solver::{ALL_RUNGS, Count, HintEnd, Rungs, hints, solve};
use crate::engine::Records;
use crate::engine::cli::{EngineArgs, execute, write_result};
use crate::error::input_error;
use anyhow::Result;
use clap::{Args, Subcommand};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::{Path, PathBuf};

#[derive(Args, Debug, Clone)]
pub struct BoardArgs {
    /// Board file (plain text: `order N`, then one line per cage `OP TARGET rRcC ...`).
    pub file: PathBuf,
    /// Hide every operation sign: a cage holds if any operation its size allows reaches it.
    #[arg(long)]
    pub hide_signs: bool,
    /// Rungs to enable: `all`, `none`, or a comma list of cage,single,hidden,must,subset,probe.
    #[arg(long, default_value = "all")]
    pub rungs: String,
}

#[derive(Subcommand, Debug)]
pub enum CalcudokuCmd {
    /// Solve a board: solution, grade, rung trace, search nodes, unique or not (with a second
    /// solution when there is one).
    Solve {
        #[command(flatten)]
        board: BoardArgs,
        /// Count solutions up to this many (2 decides uniqueness).
        #[arg(long, default_value_t = 2)]
        cap: u64,
        /// Give up after this many search nodes and report the count as unknown.
        #[arg(long, default_value_t = 10_000_000)]
        node_cap: u64,
    },
    /// The next deduction(s) from the empty grid, each with its rung and a one-line reason.
    Hint {
        #[command(flatten)]
        board: BoardArgs,
        /// How many successive deductions to print.
        #[arg(long, default_value_t = 1)]
        steps: usize,
    },
    /// Time uniqueness decisions (cap 2) on seeded random boards: median, p90, p99, max.
    Time {
        #[arg(long, default_value_t = 7)]
        order: usize,
        #[arg(long, default_value_t = 4)]
        max_cage: usize,
        #[arg(long, default_value_t = 1000)]
        boards: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        hide_signs: bool,
        #[arg(long, default_value_t = 10_000_000)]
        node_cap: u64,
        /// Rungs to enable (as for solve).
        #[arg(long, default_value = "all")]
        rungs: String,
        /// Time each board this many times and keep the fastest run.
        #[arg(long, default_value_t = 1)]
        repeats: usize,
    },
    /// Agreement study: random boards per (order, largest cage), solved with signs shown and
    /// hidden by ladder + search and by the independent verifier; certified flips checked.
    /// Writes results/calcudoku_agree.csv.
    Agree {
        /// Orders: one (5), a range (4-6) or a list (4,5,6); at most 7.
        #[arg(long, default_value = "4-6")]
        orders: String,
        /// Largest cage sizes, same syntax.
        #[arg(long, default_value = "2-5")]
        max_cages: String,
        /// Boards per (order, largest cage).
        #[arg(long, default_value_t = 500)]
        boards: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// Random-cut study: boards cut from uniform (or backtracking) squares per (order, largest
    /// cage), decided with signs shown and hidden, certified flips, intercalates of unique and
    /// non-unique boards. Writes results/calcudoku_cuts.csv and calcudoku_cuts_timing.csv.
    Cuts(super::cuts::CutsCmd),
    /// Sign ablation per cage kind over the cages of the random cuts (same parameters, same
    /// boards as `cuts`): fillings with and without the sign. Writes results/calcudoku_signs.csv.
    Signs(super::cuts::CutsArgs),
    /// Print (or write) a board with exactly one answer. `repair` (default): uniform square,
    /// random cut, split cages until unique, then merge while unique. `filter`: draw square, cut
    /// and labels again until a cut comes out unique (discards squares).
    Generate {
        /// Order of the board (3 to 9; default 6).
        #[arg(long, default_value_t = 6)]
        order: usize,
        /// Largest cage size of the cut (and of tighten's merges); 2 to 16, default 4.
        #[arg(long, default_value_t = 4)]
        max_cage: usize,
        /// Master seed (default 1); the same seed gives the same board.
        #[arg(long, default_value_t = crate::engine::cli::DEFAULT_SEED)]
        seed: u64,
        /// Generator: repair (default) or filter.
        #[arg(long, value_enum, default_value_t = super::repair::Method::Repair)]
        method: super::repair::Method,
        /// Search nodes per uniqueness decision (default 1,000,000; at least 1); a capped
        /// search refuses the candidate.
        #[arg(long, default_value_t = crate::engine::cli::DEFAULT_NODE_CAP)]
        node_cap: u64,
        /// Write the board here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Board bank: repair-and-tighten boards per order on uniform squares, each proved unique by
    /// ladder+search and (orders up to 7) the independent verifier; a keep-only-unique filter bank
    /// beside it; generator timing with and without the flip check. Writes
    /// <results>/calcudoku_bank.csv, _summary.csv, _timing.csv and board files under --out.
    Bank {
        /// Orders: one (7), a range (5-9) or a list (5,7); 3 to 9; default 5-9.
        #[arg(long, default_value = "5-9")]
        orders: String,
        /// Boards per order (default 1000; at least 1).
        #[arg(long, default_value_t = 1000)]
        boards: u64,
        /// Largest cage size (2 to 16, default 4).
        #[arg(long, default_value_t = 4)]
        max_cage: usize,
        /// Search nodes per uniqueness decision (default 1,000,000; at least 1).
        #[arg(long, default_value_t = crate::engine::cli::DEFAULT_NODE_CAP)]
        node_cap: u64,
        /// Master seed (default 1).
        #[arg(long, default_value_t = crate::engine::cli::DEFAULT_SEED)]
        seed: u64,
        /// Directory of board files (default bank/calcudoku; NxN/NxN-IIII.txt inside).
        #[arg(long, default_value = super::bank::DEFAULT_BANK_DIR)]
        out: PathBuf,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// Rung pricing over the bank: per rung, cells settled climbing, boards finished climbing and
    /// without it, search nodes without it against with it, containment. Writes
    /// <results>/calcudoku_pricing.csv.
    Pricing {
        /// Directory of bank board files (default bank/calcudoku).
        #[arg(long, default_value = super::bank::DEFAULT_BANK_DIR)]
        bank: PathBuf,
        /// Search nodes per uniqueness decision (default 1,000,000; at least 1).
        #[arg(long, default_value_t = crate::engine::cli::DEFAULT_NODE_CAP)]
        node_cap: u64,
        #[command(flatten)]
        engine: EngineArgs,
    },
}

pub fn run(cmd: CalcudokuCmd) -> Result<()> {
    match cmd {
        CalcudokuCmd::Solve {
            board,
            cap,
            node_cap,
        } => cmd_solve(&board, cap, node_cap),
        CalcudokuCmd::Hint { board, steps } => cmd_hint(&board, steps),
        CalcudokuCmd::Generate {
            order,
            max_cage,
            seed,
            method,
            node_cap,
            out,
        } => cmd_generate(order, max_cage, seed, method, node_cap, out.as_deref()),
        CalcudokuCmd::Bank {
            orders,
            boards,
            max_cage,
            node_cap,
            seed,
            out,
            engine,
        } => super::bank::cmd_bank(
            super::bank::BankJob::new(
                crate::engine::cli::parse_int_list("--orders", &orders, 3, 9)?,
                boards,
                max_cage,
                node_cap,
                seed,
            )?,
            &out,
            &engine,
        ),
        CalcudokuCmd::Pricing {
            bank,
            node_cap,
            engine,
        } => super::pricing::cmd_pricing(&bank, node_cap, &engine),
        CalcudokuCmd::Agree {
            orders,
            max_cages,
            boards,
            seed,
            engine,
        } => cmd_agree(&orders, &max_cages, boards, seed, &engine),
        CalcudokuCmd::Cuts(c) => super::cuts::cmd_cuts(&c),
        CalcudokuCmd::Signs(a) => super::cuts::cmd_signs(&a),
        CalcudokuCmd::Time {
            order,
            max_cage,
            boards,
            seed,
            hide_signs,
            node_cap,
            rungs,
            repeats,
        } => cmd_time(
            order, max_cage, boards, seed, hide_signs, node_cap, &rungs, repeats,
        ),
    }
}

fn load(args: &BoardArgs) -> Result<(Board, Rungs)> {
    let text = std::fs::read_to_string(&args.file).map_err(|e| {
        input_error(format!(
            "cannot read board file {}: {e}",
            args.file.display()
        ))
    })?;
    // Keep the InputError kind (exit 2) and a one-line message naming the file.
    let board = Board::parse(&text, args.hide_signs)
        .map_err(|e| input_error(format!("{}: {e}", args.file.display())))?;
    let rungs = Rungs::parse(&args.rungs).map_err(|e| input_error(format!("--rungs: {e}")))?;
    Ok((board, rungs))
}

fn cmd_solve(args: &BoardArgs, cap: u64, node_cap: u64) -> Result<()> {
    let (board, rungs) = load(args)?;
    if cap == 0 {
        return Err(input_error("--cap must be at least 1"));
    }
    let n = board.n;
    let t0 = std::time::Instant::now();
    let out = solve(&board, rungs, cap, node_cap);
    let dt = t0.elapsed();
    println!(
        "board: order {n}, {} cages, signs {}, rungs {}",
        board.cages.len(),
        if board.hide_signs { "hidden" } else { "shown" },
        rungs.names()
    );
    match out.solutions.first() {
        Some(s) => print!("solution:\n{}", grid_text(n, s)),
        None => println!("solution: none"),
    }
    println!("grade: {}", out.grade);
    println!("rung trace (root ladder, then whole solve):");
    println!(
        "  {:<7} {:>8} {:>8} {:>6}   {:>8} {:>8}",
        "rung", "removed", "settled", "fired", "removed", "settled"
    );
    for r in ALL_RUNGS {
        if !rungs.has(r) {
            continue;
        }
        let (a, t) = (out.root[r as usize], out.stats[r as usize]);
        println!(
            "  {:<7} {:>8} {:>8} {:>6}   {:>8} {:>8}",
            r.name(),
            a.removed,
            a.settled,
            a.fired,
            t.removed,
            t.settled
        );
    }
    println!("nodes: {}", out.nodes);
    println!("time: {:.3} ms", dt.as_secs_f64() * 1e3);
    match out.count {
        Count::Exact(0) => println!("answers: 0 (no solution)"),
        Count::Exact(1) => println!("answers: 1 (unique)"),
        Count::Exact(k) => println!("answers: {k} (not unique)"),
        Count::AtLeast(k) => {
            println!("answers: at least {k} (not unique; search stopped at --cap)")
        }
        Count::Unknown => println!(
            "answers: unknown (node cap {node_cap} hit after {} found)",
            out.solutions.len()
        ),
    }
    if out.solutions.len() >= 2 {
        let (s0, s1) = (&out.solutions[0], &out.solutions[1]);
        print!("second solution:\n{}", grid_text(n, s1));
        let diff: Vec<String> = (0..n * n)
            .filter(|&c| s0[c] != s1[c])
            .map(|c| super::board::cell_name(n, c))
            .collect();
        println!("differs at: {}", diff.join(" "));
    }
    if let Some(s0) = out.solutions.first() {
        let flips = certified_flips(&board, s0);
        if !flips.is_empty() {
            println!(
                "certified intercalate flips of the first solution ({}): each is a second answer",
                flips.len()
            );
            for f in flips.iter().take(5) {
                println!("  {}", f.describe());
            }
        }
    }
    Ok(())
}

fn cmd_hint(args: &BoardArgs, steps: usize) -> Result<()> {
    let (board, rungs) = load(args)?;
    let (hs, end) = hints(&board, rungs, steps.max(1));
    for (i, h) in hs.iter().enumerate() {
        println!("{}. {} ({})", i + 1, h.reason, h.rung);
    }
    match end {
        HintEnd::More => {}
        HintEnd::Solved => println!("solved by the ladder"),
        HintEnd::Stuck => println!("no further deduction: the enabled rungs are stuck (search)"),
        HintEnd::Contradiction => println!("contradiction: the board has no solution"),
    }
    Ok(())
}

fn cmd_generate(
    order: usize,
    max_cage: usize,
    seed: u64,
    method: super::repair::Method,
    node_cap: u64,
    out: Option<&Path>,
) -> Result<()> {
    if !(super::board::MIN_ORDER..=super::board::MAX_ORDER).contains(&order) {
        return Err(input_error(format!(
            "--order {order} is out of range 3..=9"
        )));
    }
    if !(2..=super::board::MAX_CAGE).contains(&max_cage) {
        return Err(input_error(format!(
            "--max-cage {max_cage} is out of range 2..={}",
            super::board::MAX_CAGE
        )));
    }
    if node_cap == 0 {
        return Err(input_error("--node-cap must be at least 1"));
    }
    let (board, note) = super::repair::generate_seeded(order, max_cage, method, node_cap, seed)?;
    let text = format!(
        "# gridcensus calcudoku generate --order {order} --max-cage {max_cage} --seed {seed} \
         --method {} ({note})\n{}",
        method.name(),
        board.to_text()
    );
    match out {
        Some(p) => crate::engine::atomic::write_atomic_str(p, &text)?,
        None => print!("{text}"),
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn cmd_time(
    order: usize,
    max_cage: usize,
    boards: usize,
    seed: u64,
    hide_signs: bool,
    node_cap: u64,
    rungs: &str,
    repeats: usize,
) -> Result<()> {
    let rungs = Rungs::parse(rungs).map_err(|e| input_error(format!("--rungs: {e}")))?;
    if !(super::board::MIN_ORDER..=super::board::MAX_ORDER).contains(&order) {
        return Err(input_error(format!(
            "--order {order} is out of range 3..=9"
        )));
    }
    if !(1..=super::board::MAX_CAGE).contains(&max_cage) || boards == 0 {
        return Err(input_error(
            "--max-cage must be in 1..=16 and --boards positive",
        ));
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let set: Vec<Board> = (0..boards)
        .map(|_| random_board(order, max_cage, hide_signs, &mut rng).0)
        .collect();
    let mut hist = hdrhistogram::Histogram::<u64>::new(3).expect("histogram");
    let (mut unique, mut unknown, mut nodes, mut ladder_only) = (0u64, 0u64, 0u64, 0u64);
    let t_all = std::time::Instant::now();
    let mut slowest = (0u64, 0u64, String::new());
    for b in &set {
        // The fastest of `repeats` runs: the machine is shared, and a run that loses its time
        // slice would otherwise show up as a multi-millisecond board.
        let mut ns = u64::MAX;
        let mut out = None;
        for _ in 0..repeats.max(1) {
            let t0 = std::time::Instant::now();
            let o = solve(b, rungs, 2, node_cap);
            ns = ns.min(t0.elapsed().as_nanos() as u64);
            out = Some(o);
        }
        let out = out.expect("one run");
        if ns > slowest.0 {
            slowest = (ns, out.nodes, b.to_text());
        }
        hist.record(ns.max(1)).expect("record");
        unique += out.unique() as u64;
        unknown += (out.count == Count::Unknown) as u64;
        nodes += out.nodes;
        ladder_only += (out.nodes == 1 && out.grade != super::solver::Grade::Search) as u64;
    }
    let total = t_all.elapsed().as_secs_f64();
    if let Ok(p) = std::env::var("GRIDCENSUS_SLOWEST_OUT") {
        std::fs::write(&p, &slowest.2)?;
        eprintln!(
            "slowest board ({} us, {} nodes) written to {p}",
            slowest.0 / 1000,
            slowest.1
        );
    }
    let us = |q: f64| hist.value_at_quantile(q) as f64 / 1e3;
    println!(
        "order {order}, largest cage {max_cage}, signs {}, {boards} boards (seed {seed}), rungs {}",
        if hide_signs { "hidden" } else { "shown" },
        rungs.names()
    );
    println!("timing: fastest of {} run(s) per board", repeats.max(1));
    println!(
        "uniqueness decision (cap 2): median {:.1} us, p90 {:.1} us, p99 {:.1} us, max {:.1} us",
        us(0.5),
        us(0.9),
        us(0.99),
        hist.max() as f64 / 1e3
    );
    println!(
        "{:.0} boards/s (wall clock over all runs / repeats); unique {unique}/{boards}; unknown {unknown}; mean nodes {:.2}; \
         decided by the ladder alone {ladder_only}",
        (boards * repeats.max(1)) as f64 / total,
        nodes as f64 / boards as f64
    );
    Ok(())
}

/// Parse "5", "4-6" or "4,5,6".
fn parse_list(flag: &str, s: &str) -> Result<Vec<usize>> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let p = |x: &str| -> Result<usize> {
            x.trim()
                .parse()
                .map_err(|_| input_error(format!("{flag}: '{x}' is not a number")))
        };
        let (a, b) = (p(a)?, p(b)?);
        if a > b {
            return Err(input_error(format!("{flag}: empty range {a}-{b}")));
        }
        out.extend(a..=b);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

fn cmd_agree(
    orders: &str,
    max_cages: &str,
    boards: u64,
    seed: u64,
    engine: &EngineArgs,
) -> Result<()> {
    let job = AgreeJob::new(
        parse_list("--orders", orders)?,
        parse_list("--max-cages", max_cages)?,
        boards,
        seed,
    )?;
    engine.validate()?;
    let Some((parts, st)) = execute(&job, engine)? else {
        return Ok(()); // a shard: its partial file is written
    };
    let table = aggregate(&parts);
    eprintln!(
        "calcudoku agree: {} boards in {:.1} s on {} threads",
        table.values().map(|t| t.boards).sum::<u64>(),
        st.elapsed_seconds,
        st.threads
    );
    write_result(
        &engine.results.join(AGREE_FILE),
        agree_csv(&table).as_bytes(),
        &[&st],
    )?;
    st.cleanup();
    Ok(())
}

/// Merge partial files if `kind` is one of this module's jobs; `Ok(false)` otherwise.
pub fn merge(kind: &str, files: &[PathBuf], results: &Path) -> Result<bool> {
    if kind == super::bank::BANK_KIND {
        super::bank::merge(files, results)?;
        return Ok(true);
    }
    if kind == super::pricing::PRICING_KIND {
        super::pricing::merge(files, results)?;
        return Ok(true);
    }
    if kind != AGREE_KIND {
        return super::cuts::merge(kind, files, results);
    }
    let (_spec, parts, stats) = crate::engine::cli::merge::<Records<Tally>>(files)?;
    let table = aggregate(&parts);
    write_result(
        &results.join(AGREE_FILE),
        agree_csv(&table).as_bytes(),
        &[&stats],
    )?;
    stats.cleanup();
    Ok(true)
}
