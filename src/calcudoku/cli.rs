//! `gridcensus calcudoku ...` subcommands: solve, hint, generate.

// The doc comments of the argument structs are the command-line help, written for a terminal
// (`[OPTIONS]`, `<results>/...`), not rustdoc links or HTML.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use super::agree::{AGREE_FILE, AGREE_KIND, AgreeJob, Tally, aggregate, agree_csv};
use super::board::{Board, grid_text};
use super::board::{MAX_CAGE, MAX_ORDER, MIN_ORDER};
use super::certificate::certified_flips;
use super::solver::{
    ALL_RUNGS, Count, Grade, HintEnd, RootProbe, Rung, Rungs, SearchPolicy, hints, solve,
    solve_with,
};
use crate::engine::Records;
use crate::engine::cli::{DEFAULT_NODE_CAP, DEFAULT_SEED, parse_int_list};
use crate::engine::cli::{EngineArgs, execute, write_result};
use crate::engine::run::progress_bar;
use crate::error::input_error;
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::{Path, PathBuf};

/// How search below the root runs (shared by `solve` and `time`).
#[derive(Args, Debug, Clone)]
pub struct SearchArgs {
    /// Deepest search node that still runs the probe rung: a number (0 = the root only) or
    /// `all` (every node) (default: 0).
    #[arg(long, default_value = "0")]
    pub probe_depth: String,
    /// Node budget unit of the search's randomised dom/wdeg restarts (the plain first run
    /// gets 8 units), or `off` for one plain depth-first run (default: 100).
    #[arg(long, default_value = "100")]
    pub restart_unit: String,
    /// Search nodes after which every node also runs the line-block balance (sums and prime
    /// exponents over blocks of consecutive rows or columns): a number, or `off` (default: 16).
    #[arg(long, default_value = "16")]
    pub balance_from: String,
    /// Branch on the operation (+ or ×) of a hidden cage of three cells or more while both
    /// still reach its target, before branching on cells: `on` or `off` (default: off).
    #[arg(long, default_value = "off")]
    pub op_branch: String,
    /// Let each restart skip the subtrees earlier runs searched to the end (nogoods recorded
    /// from restarts; no effect without restarts or with operation branches): `on` or `off`
    /// (default: on).
    #[arg(long, default_value = "on")]
    pub nogoods: String,
    /// When the root runs the probe rung: `first` (before the search) or `late` (only once the
    /// plain first run stops undecided, or after the search to grade a board with one answer
    /// met; grades and counts are the same either way) (default: late).
    #[arg(long, default_value = "late")]
    pub root_probe: String,
    /// How a failure adds to the restarts' dom/wdeg weight of its cage or line: `on` = one
    /// unit shared among the cells still open there, `off` = one unit (default: on).
    #[arg(long, default_value = "on")]
    pub fail_share: String,
    /// Learn nogoods inside a run: when a node fails, test whether its decision fails without
    /// its parent's too and, if so, keep the others as a nogood for the rest of the search (no
    /// effect with operation branches): `on` or `off` (default: off).
    #[arg(long, default_value = "off")]
    pub learn: String,
    /// Which family of random streams the restarts draw: a number; `time` also takes a range
    /// (0-4) or a list and times every set under each, with a row of each board's mean over
    /// them (default: 0).
    #[arg(long, default_value = "0")]
    pub restart_seed: String,
}

#[derive(Args, Debug, Clone)]
pub struct BoardArgs {
    /// Board file: plain text (`order N`, then one line per cage `OP TARGET rRcC ...`, OP one of
    /// + - * / = or ? for a hidden sign) or a Keen game ID (`W:DESC` / `Wdn:DESC`).
    pub file: PathBuf,
    /// Hide every operation sign: a cage holds if any operation its size allows reaches it
    /// (default: off; signs as written, `?` cages hidden).
    #[arg(long)]
    pub hide_signs: bool,
    /// Rungs to enable: all, none, default (= all), or a comma list of
    /// cage,single,hidden,must,subset,probe (default: all).
    #[arg(long, default_value = "all")]
    pub rungs: String,
}

/// Sign modes to time.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signs {
    Shown,
    Hidden,
    Both,
}

#[derive(Subcommand, Debug)]
pub enum CalcudokuCmd {
    /// Solve a board: solution, grade, rung trace, search nodes, unique or not (with a second
    /// solution when there is one).
    Solve {
        #[command(flatten)]
        board: BoardArgs,
        /// Count solutions up to this many, at least 1 (default: 2, which decides uniqueness).
        #[arg(long, default_value_t = 2)]
        cap: u64,
        /// Search nodes per decision before the count is reported as unknown, at least 1
        /// (default: 1000000).
        #[arg(long, default_value_t = DEFAULT_NODE_CAP)]
        node_cap: u64,
        #[command(flatten)]
        search: SearchArgs,
    },
    /// The next deduction(s) from the empty grid, each with its rung and a one-line reason.
    Hint {
        #[command(flatten)]
        board: BoardArgs,
        /// How many successive deductions to print; 0 = all until solved or stuck (default: 1).
        #[arg(long, default_value_t = 1)]
        steps: usize,
    },
    /// Time uniqueness decisions (cap 2), board by board: median, p90, p99, max and mean of CPU
    /// time per (order, largest cage, sign mode) on seeded random-cut boards, or on board files.
    Time {
        /// Board files or directories of `*.txt` board files to time instead of random boards.
        files: Vec<PathBuf>,
        /// Orders of the random boards: one (7), a range (7-9) or a list (7,9); 3 to 9
        /// (default: 7).
        #[arg(long, alias = "order", default_value = "7")]
        orders: String,
        /// Largest cage sizes of the random boards, same syntax; 1 to 16 (default: 4).
        #[arg(long, alias = "max-cage", default_value = "4")]
        max_cages: String,
        /// Random boards per (order, largest cage), at least 1 (default: 1000).
        #[arg(long, default_value_t = 1000)]
        boards: usize,
        /// Master seed of the random boards (default: 1).
        #[arg(long, default_value_t = DEFAULT_SEED)]
        seed: u64,
        /// Sign modes to time: shown (as written), hidden (every sign hidden) or both
        /// (default: shown).
        #[arg(long, value_enum, default_value = "shown")]
        signs: Signs,
        /// Same as --signs hidden (default: off).
        #[arg(long)]
        hide_signs: bool,
        /// Random boards without one-cell cages (each folded into a neighbour, as Keen cuts)
        /// (default: off).
        #[arg(long)]
        no_singletons: bool,
        /// Search nodes per decision before it is reported as unknown, at least 1
        /// (default: 1000000).
        #[arg(long, default_value_t = DEFAULT_NODE_CAP)]
        node_cap: u64,
        /// Rungs to enable: all, none, default (= all), or a comma list (default: all).
        #[arg(long, default_value = "all")]
        rungs: String,
        #[command(flatten)]
        search: SearchArgs,
        /// Time each board this many times and keep the run with the least CPU time, at
        /// least 1 (default: 1).
        #[arg(long, default_value_t = 1)]
        repeats: usize,
        /// Save the slowest boards of each set as board files in this directory (default: none).
        #[arg(long, value_name = "DIR")]
        tail_out: Option<PathBuf>,
        /// How many slowest boards per set --tail-out saves, 1 to 1000 (default: 3).
        #[arg(long, default_value_t = 3)]
        tail_count: usize,
        /// Also write every board's time as CSV (set, board, cpu_us, wall_us, nodes, answers),
        /// for joining with another solver's times on the same board files (default: none).
        #[arg(long, value_name = "FILE")]
        boards_csv: Option<PathBuf>,
        /// Worker threads deciding boards side by side (default: all cores). Each board's CPU
        /// time is its own thread's, and verdicts and nodes do not depend on the count;
        /// `--threads 1` keeps other boards' cache traffic out of the figures.
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// Never draw a progress bar (it is drawn only when stderr is a terminal anyway).
        #[arg(long)]
        no_progress: bool,
    },
    /// Agreement study: random boards per (order, largest cage), solved with signs shown and
    /// hidden by ladder + search and by the independent verifier; certified flips checked.
    /// Writes results/calcudoku_agree.csv.
    Agree {
        /// Orders: one (5), a range (4-6) or a list (4,5,6); 3 to 7 (default: 4-6).
        #[arg(long, default_value = "4-6")]
        orders: String,
        /// Largest cage sizes, same syntax; 1 to 16 (default: 2-5).
        #[arg(long, default_value = "2-5")]
        max_cages: String,
        /// Boards per (order, largest cage), at least 1 (default: 500).
        #[arg(long, default_value_t = 500)]
        boards: u64,
        /// Master seed (default: 1).
        #[arg(long, default_value_t = DEFAULT_SEED)]
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
        /// Keep drawing until a unique board has this grade: the highest rung its root ladder
        /// needs (cage, single, hidden, must, subset, probe) or search; implies --unique
        /// (default: any grade).
        #[arg(long)]
        grade: Option<String>,
        /// No one-cell cages (Keen's rule): each is folded into a neighbouring cage; needs
        /// --max-cage 2 or more (default: off).
        #[arg(long)]
        no_singletons: bool,
        /// Multiplication only (Keen's option): every cage of two or more cells is × (default: off).
        #[arg(long)]
        mul_only: bool,
        /// Output: text (board file) or keen (Simon Tatham's Keen game ID) (default: text).
        #[arg(long, default_value = "text")]
        format: String,
        /// Draws before giving up, at least 1 (default: 100000).
        #[arg(long, default_value_t = 100_000)]
        max_draws: u64,
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
            search,
        } => cmd_solve(&board, cap, node_cap, &search),
        CalcudokuCmd::Hint { board, steps } => cmd_hint(&board, steps),
        CalcudokuCmd::Generate {
            order,
            max_cage,
            seed,
            method,
            node_cap,
            out,
            grade,
            no_singletons,
            mul_only,
            format,
            max_draws,
        } => cmd_generate(
            order,
            seed,
            method,
            node_cap,
            out.as_deref(),
            &GenArgs {
                opts: super::generate::GenOptions {
                    max_cage,
                    no_singletons,
                    mul_only,
                },
                grade,
                format,
                max_draws,
            },
        ),
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
            files,
            orders,
            max_cages,
            boards,
            seed,
            signs,
            hide_signs,
            no_singletons,
            node_cap,
            rungs,
            search,
            repeats,
            tail_out,
            tail_count,
            boards_csv,
            threads,
            no_progress,
        } => cmd_time(TimeArgs {
            files,
            orders,
            max_cages,
            boards,
            seed,
            signs: if hide_signs { Signs::Hidden } else { signs },
            no_singletons,
            node_cap,
            rungs,
            search,
            repeats,
            tail_out,
            tail_count,
            boards_csv,
            threads,
            no_progress,
        }),
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
    let board = super::keen::read_board(&text, args.hide_signs)
        .map_err(|e| input_error(format!("{}: {e}", args.file.display())))?;
    let rungs = Rungs::parse(&args.rungs).map_err(|e| input_error(format!("--rungs: {e}")))?;
    Ok((board, rungs))
}

fn cmd_solve(args: &BoardArgs, cap: u64, node_cap: u64, search: &SearchArgs) -> Result<()> {
    let (board, rungs) = load(args)?;
    check_node_cap(node_cap)?;
    let policy = parse_policy(search)?;
    if restart_seeds(search)?.len() != 1 {
        return Err(input_error("--restart-seed: solve takes one seed"));
    }
    if cap == 0 {
        return Err(input_error("--cap must be at least 1"));
    }
    let n = board.n;
    let t0 = std::time::Instant::now();
    let out = solve_with(&board, rungs, cap, node_cap, policy);
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
    let (hs, end) = hints(&board, rungs, if steps == 0 { usize::MAX } else { steps });
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

struct GenArgs {
    opts: super::generate::GenOptions,
    grade: Option<String>,
    format: String,
    max_draws: u64,
}

fn parse_grade(s: &str) -> Result<Grade> {
    if s == "search" {
        return Ok(Grade::Search);
    }
    Rung::from_name(s).map(Grade::Rung).ok_or_else(|| {
        input_error(format!(
            "--grade: unknown grade '{s}' (grades: cage, single, hidden, must, subset, probe, search)"
        ))
    })
}

fn cmd_generate(
    order: usize,
    seed: u64,
    method: super::repair::Method,
    node_cap: u64,
    out: Option<&Path>,
    g: &GenArgs,
) -> Result<()> {
    let max_cage = g.opts.max_cage;
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
    if g.opts.no_singletons && max_cage < 2 {
        return Err(input_error("--no-singletons needs --max-cage 2 or more"));
    }
    if g.max_draws == 0 {
        return Err(input_error("--max-draws must be at least 1"));
    }
    let keen = match g.format.as_str() {
        "text" => false,
        "keen" => true,
        f => {
            return Err(input_error(format!(
                "--format: unknown format '{f}' (text, keen)"
            )));
        }
    };
    let want = g.grade.as_deref().map(parse_grade).transpose()?;
    let keen_options = want.is_some() || g.opts.no_singletons || g.opts.mul_only;
    let mut flags = String::new();
    let (board, note) = if keen_options {
        // Keen's generator options draw whole boards (square, cut, labels) until one is unique
        // with the requested properties: the filter method, with the draws it cost reported.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut draws = 0u64;
        let (board, grade) = loop {
            draws += 1;
            let (b, _) = super::generate::random_board_with(order, g.opts, false, &mut rng);
            let o = solve(&b, Rungs::ALL, 2, node_cap);
            if o.unique() && want.is_none_or(|w| w == o.grade) {
                break (b, o.grade);
            }
            if draws >= g.max_draws {
                return Err(input_error(format!(
                    "no board with the requested properties in {} draws",
                    g.max_draws
                )));
            }
        };
        if let Some(w) = &g.grade {
            flags.push_str(&format!(" --grade {w}"));
        }
        if g.opts.no_singletons {
            flags.push_str(" --no-singletons");
        }
        if g.opts.mul_only {
            flags.push_str(" --mul-only");
        }
        eprintln!("calcudoku generate: draw {draws}, grade {grade}");
        (
            board,
            format!("filter with Keen's options: draw {draws}, grade {grade}"),
        )
    } else {
        flags.push_str(&format!(" --method {}", method.name()));
        super::repair::generate_seeded(order, max_cage, method, node_cap, seed)?
    };
    let text = if keen {
        format!("{}\n", super::keen::to_id(&board)?)
    } else {
        format!(
            "# gridcensus calcudoku generate --order {order} --max-cage {max_cage} --seed {seed}{flags} \
             ({note})\n{}",
            board.to_text()
        )
    };
    match out {
        Some(p) => crate::engine::atomic::write_atomic_str(p, &text)?,
        None => print!("{text}"),
    }
    Ok(())
}

struct TimeArgs {
    files: Vec<PathBuf>,
    orders: String,
    max_cages: String,
    boards: usize,
    seed: u64,
    signs: Signs,
    no_singletons: bool,
    node_cap: u64,
    rungs: String,
    search: SearchArgs,
    repeats: usize,
    tail_out: Option<PathBuf>,
    tail_count: usize,
    boards_csv: Option<PathBuf>,
    threads: Option<usize>,
    no_progress: bool,
}

/// The restart seeds of `--restart-seed`: one, a range or a list.
fn restart_seeds(a: &SearchArgs) -> Result<Vec<u64>> {
    Ok(parse_list("--restart-seed", &a.restart_seed)?
        .into_iter()
        .map(|s| s as u64)
        .collect())
}

/// The search policy of `a`, under its first restart seed.
fn parse_policy(a: &SearchArgs) -> Result<SearchPolicy> {
    let probe_depth = match a.probe_depth.trim() {
        "all" => u32::MAX,
        t => t
            .parse()
            .map_err(|_| input_error(format!("--probe-depth: '{t}' is not a number or 'all'")))?,
    };
    let restart_unit = match a.restart_unit.trim() {
        "off" => 0,
        t => match t.parse::<u64>() {
            Ok(u) if u >= 1 => u,
            _ => {
                return Err(input_error(format!(
                    "--restart-unit: '{t}' is not a number of at least 1 or 'off'"
                )));
            }
        },
    };
    let balance_from = match a.balance_from.trim() {
        "off" => u64::MAX,
        t => t
            .parse()
            .map_err(|_| input_error(format!("--balance-from: '{t}' is not a number or 'off'")))?,
    };
    Ok(SearchPolicy {
        probe_depth,
        restart_unit,
        balance_from,
        op_branch: on_off("--op-branch", &a.op_branch)?,
        nogoods: on_off("--nogoods", &a.nogoods)?,
        fail_share: on_off("--fail-share", &a.fail_share)?,
        learn: on_off("--learn", &a.learn)?,
        root_probe: RootProbe::from_name(a.root_probe.trim()).ok_or_else(|| {
            input_error(format!(
                "--root-probe: '{}' is not 'first' or 'late'",
                a.root_probe.trim()
            ))
        })?,
        restart_seed: restart_seeds(a)?[0],
    })
}

/// An `on` / `off` switch's value.
fn on_off(flag: &str, value: &str) -> Result<bool> {
    match value.trim() {
        "on" => Ok(true),
        "off" => Ok(false),
        t => Err(input_error(format!("{flag}: '{t}' is not 'on' or 'off'"))),
    }
}

fn cmd_time(a: TimeArgs) -> Result<()> {
    use super::timing::{
        TABLE_HEADER, board_files, file_set, mean_times, random_set, save_tail, summarize,
        table_row, time_set, write_board_times,
    };
    let rungs = Rungs::parse(&a.rungs).map_err(|e| input_error(format!("--rungs: {e}")))?;
    let policy = parse_policy(&a.search)?;
    let threads = crate::engine::run::resolve_threads(a.threads)?;
    let seeds = restart_seeds(&a.search)?;
    check_node_cap(a.node_cap)?;
    if a.boards == 0 || a.repeats == 0 {
        return Err(input_error("--boards and --repeats must be at least 1"));
    }
    if !(1..=1000).contains(&a.tail_count) {
        return Err(input_error("--tail-count must be in 1..=1000"));
    }
    let hides: &[bool] = match a.signs {
        Signs::Shown => &[false],
        Signs::Hidden => &[true],
        Signs::Both => &[false, true],
    };
    // Build every set first, so bad input is refused before any timing starts.
    let mut sets = Vec::new();
    if a.files.is_empty() {
        let orders = parse_int_list("--orders", &a.orders, MIN_ORDER, MAX_ORDER)?;
        let cages = parse_int_list("--max-cages", &a.max_cages, 1, MAX_CAGE)?;
        for &n in &orders {
            for &m in &cages {
                for &h in hides {
                    if a.no_singletons && m < 2 {
                        return Err(input_error(
                            "--no-singletons needs largest cages of 2 or more",
                        ));
                    }
                    sets.push(random_set(n, m, a.no_singletons, a.boards, a.seed, h));
                }
            }
        }
    } else {
        let files = board_files(&a.files)?;
        for &h in hides {
            sets.push(file_set(&files, h)?);
        }
    }
    println!(
        "uniqueness decisions (cap 2), rungs {}, probe depth {}, restart unit {}, balance from {}, op branch {}, nogoods {}, fail share {}, learn {}, root probe {}, restart seed {}, node cap {}, fastest of {} run(s) per board by CPU time, {} thread(s)",
        rungs.names(),
        a.search.probe_depth.trim(),
        a.search.restart_unit.trim(),
        a.search.balance_from.trim(),
        a.search.op_branch.trim(),
        a.search.nogoods.trim(),
        a.search.fail_share.trim(),
        a.search.learn.trim(),
        a.search.root_probe.trim(),
        a.search.restart_seed.trim(),
        a.node_cap,
        a.repeats,
        threads
    );
    if a.files.is_empty() {
        println!("random-cut boards, seed {}, {} per set", a.seed, a.boards);
    }
    println!("{TABLE_HEADER}");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot build the thread pool")?;
    let total: usize = sets.iter().map(|s| s.boards.len() * seeds.len()).sum();
    let bar = progress_bar(total as u64, !a.no_progress, "calcudoku time", "boards");
    let mut rows = Vec::new();
    for set in &sets {
        let mut per_seed = Vec::new();
        for &rs in &seeds {
            let policy = SearchPolicy {
                restart_seed: rs,
                ..policy
            };
            let (mut sum, times) =
                pool.install(|| time_set(set, rungs, a.node_cap, policy, a.repeats, &bar));
            if seeds.len() > 1 {
                sum.name = format!("{} rs{rs}", set.name);
            }
            println!("{}", table_row(&sum));
            if a.boards_csv.is_some() {
                rows.push((sum.name.clone(), set, times.clone()));
            }
            per_seed.push(times);
        }
        // Under several restart seeds, each board's mean over them, and the tail by that mean.
        let times = if seeds.len() > 1 {
            let times = mean_times(&per_seed);
            println!(
                "{}",
                table_row(&summarize(&format!("{} mean", set.name), &times))
            );
            times
        } else {
            per_seed.pop().expect("one seed")
        };
        if let Some(dir) = &a.tail_out {
            save_tail(dir, set, &times, a.tail_count)?;
        }
    }
    bar.finish_and_clear();
    if let Some(path) = &a.boards_csv {
        write_board_times(path, &rows)?;
    }
    Ok(())
}

fn check_node_cap(node_cap: u64) -> Result<()> {
    if node_cap == 0 {
        return Err(input_error("--node-cap must be at least 1"));
    }
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
