//! `gridcensus latin moments`: command line, result files and merge of the moments job.
//!
//! `results/latin_moments.csv` is keyed by (order, reader, quantity): a run replaces the rows of
//! the (order, reader) pairs it computed and keeps the others. Per-row CPU seconds, moves per
//! CPU-second and effective samples per CPU-second go to `results/latin_moments_timing.csv` (a
//! measurement), so the result CSV stays byte-identical for one seed and parameter set.

use super::moments::{
    CSV_COLUMNS, CSV_FILE, KIND, MAX_ORDER, MIN_ORDER, MomentPartial, MomentRow, MomentsJob,
    TIMING_COLUMNS, TIMING_FILE, result_rows, timing_row,
};
use super::sampler_cli::eval_term;
use super::samplers::Reader;
use crate::engine::cli::{DEFAULT_SEED, EngineArgs, RunStats, execute, write_results_keeping};
use crate::engine::{Job, JobSpec};
use crate::error::input_error;
use anyhow::Result;
use clap::Args;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct MomentsArgs {
    /// Orders: one order (9), a range (4-16) or a list (9,12,16); each within 4..16.
    /// Default: 4-16.
    #[arg(long, default_value = "4-16", value_name = "ORDERS")]
    pub orders: String,
    /// Readers, comma-separated: fixed-time, thinned. Default: both.
    #[arg(long, default_value = "fixed-time,thinned", value_name = "LIST")]
    pub readers: String,
    /// D: draws per (order, reader), at least 1 (the thinned reader needs D ≥ 2·batch).
    /// Default: 20000.
    #[arg(long, default_value_t = 20_000, value_name = "D")]
    pub draws: u64,
    /// Fixed-time reader: T moves per chain, as a term in n (`n^3`, `10n^3`, `500`). Default: n^3.
    #[arg(long, default_value = "n^3", value_name = "TERM")]
    pub moves: String,
    /// Thinned reader: keep every k-th proper state, k as a term in n (≥ 1). Default: n.
    #[arg(long, default_value = "n", value_name = "TERM")]
    pub thin: String,
    /// Thinned reader: burn-in moves of each chain (one chain per work unit), as a term in n.
    /// Default: 10n^3.
    #[arg(long, default_value = "10n^3", value_name = "TERM")]
    pub burn_in: String,
    /// Draws per work unit (for the thinned reader also the batch of the batch means), ≥ 1.
    /// Default: 500.
    #[arg(long, default_value_t = 500, value_name = "N")]
    pub batch: u64,
    /// Fixed-time reader: give up (error) after this many chains for one square (≥ 1).
    /// Default: 100000.
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    pub chain_cap: u64,
    /// Thinned reader: give up (error) after this many moves without a proper state (≥ 1).
    /// Default: 10000000.
    #[arg(long, default_value_t = 10_000_000, value_name = "N")]
    pub wait_cap: u64,
    /// Master seed of the per-unit RNG streams. Default: 1.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// The rows of a run, per order: fixed-time then thinned (as chosen).
pub fn build_rows(args: &MomentsArgs) -> Result<Vec<MomentRow>> {
    let orders =
        crate::engine::cli::parse_int_list("--orders", &args.orders, MIN_ORDER, MAX_ORDER)?;
    let known = ["fixed-time", "thinned"];
    let chosen: Vec<&str> = args
        .readers
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if chosen.is_empty() {
        return Err(input_error("--readers: no reader given"));
    }
    for r in &chosen {
        if !known.contains(r) {
            return Err(input_error(format!(
                "--readers: unknown reader '{r}' (known: fixed-time, thinned)"
            )));
        }
    }
    let mut rows = Vec::new();
    for &n in &orders {
        let nn = n as u64;
        if chosen.contains(&"fixed-time") {
            rows.push(MomentRow {
                order: n,
                reader: Reader::FixedTime {
                    t: eval_term(&args.moves, nn)?,
                    chain_cap: args.chain_cap,
                },
            });
        }
        if chosen.contains(&"thinned") {
            rows.push(MomentRow {
                order: n,
                reader: Reader::Thinned {
                    k: eval_term(&args.thin, nn)?,
                    burn_in: eval_term(&args.burn_in, nn)?,
                    wait_cap: args.wait_cap,
                },
            });
        }
    }
    Ok(rows)
}

pub fn run(args: MomentsArgs) -> Result<()> {
    args.engine.validate()?;
    let rows = build_rows(&args)?;
    let job = MomentsJob::new(rows, args.draws, args.batch, args.seed)?;
    // Read the existing tables first: a malformed file is refused before any work.
    read_table(&args.engine.results.join(CSV_FILE), &CSV_COLUMNS)?;
    read_table(&args.engine.results.join(TIMING_FILE), &TIMING_COLUMNS)?;
    let Some((total, stats)) = execute(&job, &args.engine)? else {
        return Ok(()); // a shard: its partial file is written
    };
    eprintln!(
        "latin moments: {} rows, {} units in {:.2} s on {} threads",
        job.params().rows.len(),
        stats.units,
        stats.elapsed_seconds,
        stats.threads
    );
    write_rows(&job, total, &args.engine.results, &stats)
}

/// Rows of a keyed table grouped by (order, reader): the first two columns.
type Table = BTreeMap<(usize, String), Vec<Vec<String>>>;

fn read_table(path: &Path, columns: &[&str]) -> Result<Table> {
    let mut out = Table::new();
    if !path.exists() {
        return Ok(out);
    }
    let mut rdr = crate::engine::table::open_checked(path, columns).map_err(|e| {
        input_error(format!(
            "{e:#} (written by another version? move it aside to regenerate)"
        ))
    })?;
    for rec in rdr.records() {
        let rec = rec.map_err(|e| input_error(format!("{} is malformed: {e}", path.display())))?;
        let order: usize = rec
            .get(0)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| input_error(format!("{} has a row without an order", path.display())))?;
        let reader = rec.get(1).unwrap_or_default().to_string();
        out.entry((order, reader))
            .or_default()
            .push(rec.iter().map(str::to_string).collect());
    }
    Ok(out)
}

/// Read `latin_moments.csv` (for the report): rows by (order, reader).
pub fn read_moments(path: &Path) -> Result<BTreeMap<(usize, String), Vec<Vec<String>>>> {
    read_table(path, &CSV_COLUMNS)
}

/// Read `latin_moments_timing.csv` (for the report): one row per (order, reader).
pub fn read_timing(path: &Path) -> Result<BTreeMap<(usize, String), Vec<Vec<String>>>> {
    read_table(path, &TIMING_COLUMNS)
}

fn table_bytes(columns: &[&str], table: &Table) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(columns).expect("in-memory writer");
    for rows in table.values() {
        for r in rows {
            w.write_record(r).expect("in-memory writer");
        }
    }
    w.into_inner().expect("in-memory writer")
}

fn write_rows(
    job: &MomentsJob,
    total: MomentPartial,
    results: &Path,
    stats: &RunStats,
) -> Result<()> {
    let rows = job.finish(total)?;
    let csv_path = results.join(CSV_FILE);
    let timing_path = results.join(TIMING_FILE);
    let mut table = read_table(&csv_path, &CSV_COLUMNS)?;
    let mut timing = read_table(&timing_path, &TIMING_COLUMNS)?;
    let mut computed = BTreeSet::new();
    for r in &rows {
        eprintln!(
            "  n={:<2} {:<10} mean {:.4} ± {:.4}  variance {:.3} ± {:.3}  share without {:.2e} ± {:.1e}  max {}  ESS {:.0}  {:.1} CPU s",
            r.order,
            r.reader.name(),
            r.mean.value,
            r.mean.se,
            r.variance.value,
            r.variance.se,
            r.share_without.value,
            r.share_without.se,
            r.max_seen,
            r.ess,
            r.cpu_seconds
        );
        let key = (r.order, r.reader.name().to_string());
        table.insert(key.clone(), result_rows(r, job.seed()));
        timing.insert(key.clone(), vec![timing_row(r)]);
        computed.insert(key);
    }
    // Keep the manifest records of earlier runs that still own a row of the table.
    let keep = |spec: &JobSpec| {
        spec.kind == KIND
            && spec.params["rows"].as_array().is_some_and(|rs| {
                rs.iter().any(|r| {
                    let order = r["order"].as_u64().unwrap_or(0) as usize;
                    let reader = r["reader"]["reader"].as_str().unwrap_or("").to_string();
                    let key = (order, reader);
                    table.contains_key(&key) && !computed.contains(&key)
                })
            })
    };
    write_results_keeping(
        &[
            (csv_path, table_bytes(&CSV_COLUMNS, &table)),
            (timing_path, table_bytes(&TIMING_COLUMNS, &timing)),
        ],
        &[stats],
        keep,
    )?;
    stats.cleanup();
    Ok(())
}

/// Merge partial files if `kind` is this module's job; `Ok(false)` otherwise.
pub fn merge(kind: &str, files: &[PathBuf], results: &Path) -> Result<bool> {
    if kind != KIND {
        return Ok(false);
    }
    let (spec, total, stats) = crate::engine::cli::merge::<MomentPartial>(files)?;
    let job = MomentsJob::from_spec(&spec)?;
    debug_assert_eq!(job.spec(), spec);
    eprintln!("latin moments: merged {} partial files", files.len());
    write_rows(&job, total, results, &stats)?;
    Ok(true)
}
