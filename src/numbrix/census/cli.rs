//! `gridcensus numbrix census` and `gridcensus numbrix sampler`.

use super::census_job::{self, CENSUS_FILE, CensusJob};
use super::sampler_job::{self, SAMPLER_FILE};
use crate::engine::cli::{EngineArgs, RunStats, execute, write_result, write_result_keeping};
use crate::engine::{Job, Records};
use crate::error::input_error;
use anyhow::Result;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct CensusArgs {
    /// Rectangles m×n with m ≤ n ≤ this side are counted by the frontier counter (default 12;
    /// 1 to 17). Rows of larger rectangles already in the CSV are kept.
    #[arg(long, default_value_t = 12, value_name = "N")]
    pub max_side: usize,
    /// Rectangles (m ≤ n ≤ max side) with at most this many cells are also counted by brute
    /// force with the walk engine (default 49; 0 to 64; 0 = none).
    #[arg(long, default_value_t = 49, value_name = "CELLS")]
    pub walk_max_cells: usize,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Args, Debug)]
pub struct SamplerArgs {
    /// Grid sizes, e.g. "4x4,5x5,4x6": held to exact uniformity up to 36 cells; larger grids (up
    /// to 256 cells) record move statistics and distinct draws only.
    /// Rows of other sizes (or other moves per cell) already in the CSV are kept.
    #[arg(long, default_value = sampler_job::DEFAULT_SIZES, value_name = "SIZES")]
    pub sizes: String,
    /// Draws per size and variant (default: 50 per Hamiltonian path of the size, at least 20000;
    /// 200 past 36 cells).
    #[arg(long, value_name = "D")]
    pub draws: Option<u64>,
    /// Backbite moves per cell for each draw, starting from the boustrophedon snake.
    #[arg(long, default_value_t = 16, value_name = "K")]
    pub moves_per_cell: u64,
    /// Simulated perfect samplers per noise floor.
    #[arg(long, default_value_t = 200, value_name = "S")]
    pub floor_sims: u64,
    /// Master seed.
    #[arg(long, default_value_t = 2026)]
    pub seed: u64,
    #[command(flatten)]
    pub engine: EngineArgs,
}

pub fn run_census(args: CensusArgs) -> Result<()> {
    let job = CensusJob::new(args.max_side, args.walk_max_cells)?;
    args.engine.validate()?;
    // Read the existing table first: a malformed file is refused before any work.
    let mut table = existing_census(&args.engine.results)?;
    let Some((units, stats)) = execute(&job, &args.engine)? else {
        return Ok(());
    };
    let computed = census_job::finish(&units)?;
    table.extend(computed);
    eprintln!(
        "numbrix census to side {} (walk to {} cells): {} rows in {:.2} s on {} threads ({} units)",
        args.max_side,
        args.walk_max_cells,
        table.len(),
        stats.elapsed_seconds,
        stats.threads,
        stats.units
    );
    write_census(&args.engine.results, &table, &stats)
}

/// The census table already in the results directory (empty if there is none).
fn existing_census(results: &Path) -> Result<census_job::CensusTable> {
    let path = results.join(CENSUS_FILE);
    if path.exists() {
        census_job::read_census(&path)
    } else {
        Ok(census_job::CensusTable::new())
    }
}

/// The census CSV is a keyed table: a run replaces the rows it computed and keeps the others, so
/// the manifest keeps the records of earlier runs that reached further.
fn write_census(results: &Path, table: &census_job::CensusTable, stats: &RunStats) -> Result<()> {
    let this = &stats.spec.params;
    let beyond = |spec: &crate::engine::JobSpec, key: &str| {
        spec.params[key].as_u64().unwrap_or(0) > this[key].as_u64().unwrap_or(0)
    };
    let keep = |spec: &crate::engine::JobSpec| {
        spec.kind == census_job::KIND
            && spec.params["only"].is_null()
            && (beyond(spec, "max_side") || beyond(spec, "walk_max_cells"))
    };
    write_result_keeping(
        &results.join(CENSUS_FILE),
        &census_job::census_csv(table),
        &[stats],
        keep,
    )?;
    stats.cleanup();
    Ok(())
}

pub fn run_sampler(args: SamplerArgs) -> Result<()> {
    let sizes = sampler_job::parse_sizes(&args.sizes)?;
    args.engine.validate()?;
    if args.engine.shard.is_some() && sizes.len() != 1 {
        return Err(input_error(
            "--shard runs one size at a time: give a single --sizes RxC",
        ));
    }
    if args.moves_per_cell == 0 || args.floor_sims == 0 || args.draws == Some(0) {
        return Err(input_error(
            "--moves-per-cell, --floor-sims and --draws must be positive",
        ));
    }
    let mut rows = Vec::new();
    let mut stats = Vec::new();
    for (r, c) in sizes {
        let job = sampler_job::SamplerJob::new(
            r,
            c,
            args.draws,
            args.moves_per_cell,
            args.floor_sims,
            args.seed,
        )?;
        let Some((partial, st)) = execute(&job, &args.engine)? else {
            return Ok(());
        };
        let out = job.finish(&partial)?;
        for row in &out {
            if row.paths > 0 {
                eprintln!(
                    "{r}x{c} {}: {} draws, TV {:.4} (floor p95 {:.4}), uniform: {}",
                    row.variant, row.draws, row.tv_uniform, row.floor_uniform_p95, row.uniform
                );
            } else {
                eprintln!(
                    "{r}x{c} {}: {} draws, {} distinct, {:.1}% accepted, {:.2} turns (snake {})",
                    row.variant,
                    row.draws,
                    row.distinct_paths,
                    100.0 * row.acceptance_rate,
                    row.mean_turns,
                    row.snake_turns
                );
            }
        }
        eprintln!(
            "{r}x{c}: {:.2} s on {} threads ({} units)",
            st.elapsed_seconds, st.threads, st.units
        );
        rows.extend(out);
        stats.push(st);
    }
    write_sampler(&args.engine.results, &rows, &stats)
}

fn write_sampler(
    results: &Path,
    rows: &[sampler_job::SamplerRow],
    stats: &[RunStats],
) -> Result<()> {
    // Rows of other sizes already in the file are kept.
    let path = results.join(SAMPLER_FILE);
    let mut all = if path.exists() {
        sampler_job::read_sampler(&path)?
    } else {
        Vec::new()
    };
    all.retain(|o| {
        !rows
            .iter()
            .any(|n| (n.rows, n.cols, n.moves_per_cell) == (o.rows, o.cols, o.moves_per_cell))
    });
    all.extend_from_slice(rows);
    let variant_order = |v: &str| {
        super::backbite::Variant::ALL
            .iter()
            .position(|x| x.name() == v)
            .unwrap_or(usize::MAX)
    };
    all.sort_by_key(|r| {
        (
            r.moves_per_cell,
            r.rows * r.cols,
            r.rows,
            r.cols,
            variant_order(&r.variant),
        )
    });
    let refs: Vec<&RunStats> = stats.iter().collect();
    write_result(&path, &sampler_job::sampler_csv(&all), &refs)?;
    for s in stats {
        s.cleanup();
    }
    Ok(())
}

/// Merge partial files if `kind` is one of this module's jobs; `Ok(false)` otherwise.
pub fn merge(kind: &str, files: &[PathBuf], results: &Path) -> Result<bool> {
    match kind {
        census_job::KIND => {
            let (spec, units, stats) =
                crate::engine::cli::merge::<Records<census_job::UnitOut>>(files)?;
            let p = &spec.params;
            let get = |k: &str| {
                p[k].as_u64()
                    .ok_or_else(|| input_error(format!("{} partial without {k}", census_job::KIND)))
            };
            let job = CensusJob::new(get("max_side")? as usize, get("walk_max_cells")? as usize)?;
            if job.spec() != spec {
                return Err(input_error(
                    "numbrix-census partials do not match this version's job spec",
                ));
            }
            let mut table = existing_census(results)?;
            table.extend(census_job::finish(&units)?);
            write_census(results, &table, &stats)?;
            Ok(true)
        }
        sampler_job::KIND => {
            let (spec, partial, stats) =
                crate::engine::cli::merge::<sampler_job::SamplerPartial>(files)?;
            let job = sampler_job::SamplerJob::from_spec(&spec)?;
            if job.spec() != spec {
                return Err(input_error(
                    "numbrix-sampler partials do not match this version's job spec",
                ));
            }
            let rows = job.finish(&partial)?;
            write_sampler(results, &rows, &[stats])?;
            Ok(true)
        }
        _ => Ok(false),
    }
}
