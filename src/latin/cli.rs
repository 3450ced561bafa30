//! `gridcensus latin ...` subcommands.

use super::census::{CensusJob, MAX_ORDER};
use super::census_csv::{CENSUS_FILE, SUMMARY_FILE, census_csv, read_census, summary_csv};
use crate::engine::cli::{EngineArgs, RunStats, execute, write_results_keeping};
use crate::engine::{Histogram, Job};
use crate::error::input_error;
use anyhow::Result;
use clap::Subcommand;
use std::path::{Path, PathBuf};

#[derive(Subcommand, Debug)]
pub enum LatinCmd {
    /// Exact intercalate census of reduced Latin squares; writes results/latin_census.csv and
    /// results/latin_census_summary.csv (rows of other orders already there are kept).
    Census {
        /// Orders to census: one order (8), a range (1-7) or a list (5,6,7); 1..9 (order 9 runs
        /// the wide kernel: hundreds of CPU-days, meant for --shard on a cluster). Default: 1-7.
        #[arg(long, default_value = "1-7", value_name = "ORDERS")]
        orders: String,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// Sampler study: naive backtracking and Jacobson–Matthews readers held to the exact census
    /// with total-variation noise floors; writes results/latin_samplers.csv.
    Samplers(super::sampler_cli::SamplerArgs),
    /// Census by sampled work units (orders 4..11): random descents counted exactly, combined
    /// into unbiased estimates with standard errors; writes results/latin_estimate.csv (or, with
    /// --replicates R ≥ 2, the coverage study results/latin_estimate_coverage.csv).
    Estimate(super::estimate_cli::EstimateArgs),
    /// Moments of the intercalate count (orders 4..16) from squares drawn by the unbiased
    /// Jacobson–Matthews readers (fixed-time, thinned), with standard errors; writes
    /// results/latin_moments.csv and results/latin_moments_timing.csv.
    Moments(super::moments_cli::MomentsArgs),
}

/// Parse "8", "1-7" or "5,6,8" into orders, each checked against the census range.
pub fn parse_orders(s: &str) -> Result<Vec<usize>> {
    crate::engine::cli::parse_int_list("--orders", s, 1, super::wide_census::WIDE_CENSUS_MAX_ORDER)
}

pub fn run(cmd: LatinCmd) -> Result<()> {
    match cmd {
        LatinCmd::Census { orders, engine } => census(&orders, &engine),
        LatinCmd::Samplers(args) => super::sampler_cli::run(args),
        LatinCmd::Estimate(args) => super::estimate_cli::run(args),
        LatinCmd::Moments(args) => super::moments_cli::run(args),
    }
}

fn census(orders: &str, engine: &EngineArgs) -> Result<()> {
    let orders = parse_orders(orders)?;
    engine.validate()?;
    if engine.shard.is_some() && orders.len() != 1 {
        return Err(input_error(
            "--shard runs one order at a time: give a single --orders N",
        ));
    }
    // Read the existing table first: a malformed file is refused before any work.
    let path = engine.results.join(CENSUS_FILE);
    let mut table = read_census(&path)?;
    let mut stats = Vec::new();
    for &n in &orders {
        let outcome = if n <= MAX_ORDER {
            let job = CensusJob::new(n)?;
            execute(&job, engine)?.map(|(w, st)| job.finish(w).map(|h| (h, st)))
        } else {
            let job = super::wide_census::WideCensusJob::new(n)?;
            execute(&job, engine)?.map(|(w, st)| job.finish(w).map(|h| (h, st)))
        };
        let Some(done) = outcome else {
            return Ok(()); // a shard: its partial file is written
        };
        let (hist, st) = done?;
        eprintln!(
            "order {n}: {} reduced squares in {:.3} s on {} threads ({} units)",
            hist.total(),
            st.elapsed_seconds,
            st.threads,
            st.units
        );
        table.insert(n, hist);
        stats.push(st);
    }
    write_tables(&engine.results, &table, &stats)
}

fn write_tables(
    results: &Path,
    table: &super::census_csv::CensusTable,
    stats: &[RunStats],
) -> Result<()> {
    let refs: Vec<&RunStats> = stats.iter().collect();
    // Keep the manifest records of the orders still in the table (computed by earlier runs).
    let keep = |spec: &crate::engine::JobSpec| {
        spec.kind == "latin-census"
            && spec.params["order"]
                .as_u64()
                .is_some_and(|n| table.contains_key(&(n as usize)))
    };
    // The census and its summary are written as one group: after a kill they are both new or
    // both old.
    write_results_keeping(
        &[
            (results.join(CENSUS_FILE), census_csv(table)),
            (results.join(SUMMARY_FILE), summary_csv(table)),
        ],
        &refs,
        keep,
    )?;
    for s in stats {
        s.cleanup();
    }
    Ok(())
}

/// Merge partial files if `kind` is one of this module's jobs; `Ok(false)` otherwise.
pub fn merge(kind: &str, files: &[PathBuf], results: &Path) -> Result<bool> {
    match kind {
        "latin-census" => {
            let path = results.join(CENSUS_FILE);
            let mut table = read_census(&path)?;
            let (spec, weighted, stats) = crate::engine::cli::merge::<Histogram>(files)?;
            let order = spec.params["order"]
                .as_u64()
                .ok_or_else(|| input_error("latin-census partial without an order"))?
                as usize;
            let hist = if order <= MAX_ORDER {
                let job = CensusJob::new(order)?;
                if job.spec() != spec {
                    return Err(input_error(
                        "latin-census partials do not match this version's job spec",
                    ));
                }
                job.finish(weighted)?
            } else {
                let job = super::wide_census::WideCensusJob::new(order)?;
                if job.spec() != spec {
                    return Err(input_error(
                        "latin-census partials do not match this version's job spec",
                    ));
                }
                job.finish(weighted)?
            };
            eprintln!(
                "order {order}: merged {} partial files, {} reduced squares",
                files.len(),
                hist.total()
            );
            table.insert(order, hist);
            write_tables(results, &table, &[stats])?;
            Ok(true)
        }
        _ => Ok(super::sampler_cli::merge(kind, files, results)?
            || super::estimate_cli::merge(kind, files, results)?
            || super::moments_cli::merge(kind, files, results)?),
    }
}
