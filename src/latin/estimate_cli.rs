//! `gridcensus latin estimate`: command line, result files and merge of the sampled-unit census.
//!
//! `results/latin_estimate.csv` (one replicate per order):
//! `order,depth,units,seed,quantity,intercalates,estimate,std_error` with quantities
//! `reduced_squares`, `mean_intercalates`, `variance_intercalates`, `share_without`, `max_seen`
//! (no standard error: the largest count met, a lower bound) and `count` (one row per
//! intercalate count k, the estimated number of reduced squares with k intercalates).
//!
//! `results/latin_estimate_coverage.csv` (R replicates at orders with an exact census):
//! `order,depth,units,replicates,seed,quantity,exact,covered95,covered99`: how many of the R
//! replicates' 95% and 99% intervals contain the exact census value.
//!
//! Both are keyed tables: a run replaces the rows of the orders it computed and keeps the rest.

// The doc comments of the argument structs are the command-line help, written for a terminal
// (`[OPTIONS]`, `<results>/...`), not rustdoc links or HTML.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use super::census_csv::{CENSUS_FILE, read_census, summarize};
use super::estimate::{
    Estimate, EstimateJob, MAX_ORDER, MIN_ORDER, UnitDraw, Z95, Z99, default_depth,
};
use crate::engine::cli::{DEFAULT_SEED, EngineArgs, RunStats, execute, write_result_keeping};
use crate::engine::{Job, JobSpec, Records};
use crate::error::input_error;
use anyhow::Result;
use clap::Args;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const ESTIMATE_FILE: &str = "latin_estimate.csv";
pub const COVERAGE_FILE: &str = "latin_estimate_coverage.csv";
pub const KIND: &str = "latin-estimate";

pub const ESTIMATE_COLUMNS: [&str; 8] = [
    "order",
    "depth",
    "units",
    "seed",
    "quantity",
    "intercalates",
    "estimate",
    "std_error",
];
pub const COVERAGE_COLUMNS: [&str; 9] = [
    "order",
    "depth",
    "units",
    "replicates",
    "seed",
    "quantity",
    "exact",
    "covered95",
    "covered99",
];

#[derive(Args, Debug)]
pub struct EstimateArgs {
    /// Orders to estimate: one order (9), a range (8-10) or a list (8,9); each within 4..11.
    /// Default: 9.
    #[arg(long, default_value = "9", value_name = "ORDERS")]
    pub orders: String,
    /// K: sampled work units per order (per replicate); at least two per row-1 cycle type.
    /// Default: 2000.
    #[arg(long, default_value_t = 2000, value_name = "K")]
    pub units: u64,
    /// Rows fixed by random descent below rows 0 and 1 before the exact count (0 to n−2).
    /// Default: 1 up to order 7, 2 at order 8, 3 at order 9, 5 at order 10, 6 at order 11.
    #[arg(long, value_name = "D")]
    pub depth: Option<usize>,
    /// R: independent replicates. R = 1 (default) writes results/latin_estimate.csv; R ≥ 2 runs
    /// the coverage study against the exact census (orders 4..8) and writes
    /// results/latin_estimate_coverage.csv. Range 1..1000000.
    #[arg(long, default_value_t = 1, value_name = "R")]
    pub replicates: u64,
    /// Master seed of the per-unit RNG streams. Default: 1.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Census file with the exact values for the coverage study (default:
    /// <results>/latin_census.csv).
    #[arg(long, value_name = "FILE")]
    pub census: Option<PathBuf>,
    #[command(flatten)]
    pub engine: EngineArgs,
}

pub fn run(args: EstimateArgs) -> Result<()> {
    args.engine.validate()?;
    let orders =
        crate::engine::cli::parse_int_list("--orders", &args.orders, MIN_ORDER, MAX_ORDER)?;
    if args.replicates == 0 || args.replicates > 1_000_000 {
        return Err(input_error("--replicates must be between 1 and 1000000"));
    }
    if args.engine.shard.is_some() && orders.len() != 1 {
        return Err(input_error(
            "--shard runs one order at a time: give a single --orders N",
        ));
    }
    let census = if args.replicates > 1 {
        let path = args
            .census
            .clone()
            .unwrap_or_else(|| args.engine.results.join(CENSUS_FILE));
        let table = read_census(&path)?;
        for &n in &orders {
            if !table.contains_key(&n) {
                return Err(input_error(format!(
                    "the coverage study (--replicates ≥ 2) needs the exact census of order {n}, absent from {}",
                    path.display()
                )));
            }
        }
        Some(table)
    } else {
        None
    };
    // Build every job first: bad parameters are refused before any work.
    let jobs = orders
        .iter()
        .map(|&n| {
            EstimateJob::new(
                n,
                args.depth.unwrap_or_else(|| default_depth(n)),
                args.units,
                args.replicates,
                args.seed,
            )
        })
        .collect::<Result<Vec<_>>>()?;
    let mut done = Vec::new();
    for job in &jobs {
        let Some((draws, st)) = execute(job, &args.engine)? else {
            return Ok(());
        };
        eprintln!(
            "order {}: {} units (depth {}) in {:.2} s on {} threads",
            job.order(),
            st.units,
            job.depth(),
            st.elapsed_seconds,
            st.threads
        );
        done.push((draws, st));
    }
    let results = args.engine.results.clone();
    let pairs: Vec<(&EstimateJob, Records<UnitDraw>, RunStats)> =
        jobs.iter().zip(done).map(|(j, (d, s))| (j, d, s)).collect();
    write_all(&results, pairs, census.as_ref())
}

fn write_all(
    results: &Path,
    runs: Vec<(&EstimateJob, Records<UnitDraw>, RunStats)>,
    census: Option<&super::census_csv::CensusTable>,
) -> Result<()> {
    let coverage = runs.first().is_some_and(|r| r.0.replicates() > 1);
    let (file, columns): (&str, &[&str]) = if coverage {
        (COVERAGE_FILE, &COVERAGE_COLUMNS)
    } else {
        (ESTIMATE_FILE, &ESTIMATE_COLUMNS)
    };
    let path = results.join(file);
    let mut table = read_keyed(&path, columns)?;
    let mut stats = Vec::new();
    for (job, draws, st) in runs {
        let rows = if coverage {
            let census = census.expect("coverage runs read the census");
            coverage_rows(job, &draws.0, census)
        } else {
            let est = job.combine(&draws.0);
            eprintln!(
                "order {}: reduced squares {:.6e} ± {:.2e}, mean intercalates {:.4} ± {:.4}, share without {:.5} ± {:.5}",
                job.order(),
                est.reduced.value,
                est.reduced.se,
                est.mean.value,
                est.mean.se,
                est.share_without.value,
                est.share_without.se
            );
            estimate_rows(job, &est)
        };
        table.insert(job.order(), rows);
        stats.push(st);
    }
    let bytes = write_keyed(columns, &table);
    let refs: Vec<&RunStats> = stats.iter().collect();
    let keep = |spec: &JobSpec| {
        spec.kind == KIND
            && (spec.params["replicates"].as_u64().unwrap_or(1) > 1) == coverage
            && spec.params["order"]
                .as_u64()
                .is_some_and(|n| table.contains_key(&(n as usize)))
    };
    write_result_keeping(&path, &bytes, &refs, keep)?;
    for s in &stats {
        s.cleanup();
    }
    Ok(())
}

fn estimate_rows(job: &EstimateJob, e: &Estimate) -> Vec<Vec<String>> {
    let head = [
        job.order().to_string(),
        job.depth().to_string(),
        job.units().to_string(),
        job.seed().to_string(),
    ];
    let row = |q: &str, k: String, v: String, se: String| {
        let mut r: Vec<String> = head.to_vec();
        r.extend([q.to_string(), k, v, se]);
        r
    };
    let mut rows = vec![
        row(
            "reduced_squares",
            String::new(),
            e.reduced.value.to_string(),
            e.reduced.se.to_string(),
        ),
        row(
            "mean_intercalates",
            String::new(),
            e.mean.value.to_string(),
            e.mean.se.to_string(),
        ),
        row(
            "variance_intercalates",
            String::new(),
            e.variance.value.to_string(),
            e.variance.se.to_string(),
        ),
        row(
            "share_without",
            String::new(),
            e.share_without.value.to_string(),
            e.share_without.se.to_string(),
        ),
        row(
            "max_seen",
            String::new(),
            e.max_seen.to_string(),
            String::new(),
        ),
    ];
    for (k, h) in e.hist.iter().enumerate() {
        if h.value > 0.0 {
            rows.push(row(
                "count",
                k.to_string(),
                h.value.to_string(),
                h.se.to_string(),
            ));
        }
    }
    rows
}

/// The exact figures the coverage study is judged against.
pub fn exact_figures(n: usize, hist: &crate::engine::Histogram) -> [(&'static str, f64); 4] {
    let s = summarize(n, hist);
    let b = hist.total() as f64;
    let second: f64 = hist
        .0
        .iter()
        .enumerate()
        .map(|(k, &c)| (k * k) as f64 * c as f64)
        .sum::<f64>()
        / b;
    [
        ("reduced_squares", s.reduced as f64),
        ("mean_intercalates", s.mean),
        ("variance_intercalates", second - s.mean * s.mean),
        ("share_without", s.share_without),
    ]
}

fn coverage_rows(
    job: &EstimateJob,
    draws: &[UnitDraw],
    census: &super::census_csv::CensusTable,
) -> Vec<Vec<String>> {
    let n = job.order();
    let exact = exact_figures(n, &census[&n]);
    let k = job.units() as usize;
    let mut hits = [[0u64; 2]; 4];
    for rep in draws.chunks(k) {
        let e = job.combine(rep);
        let ests = [e.reduced, e.mean, e.variance, e.share_without];
        for (i, (est, (_, x))) in ests.iter().zip(exact.iter()).enumerate() {
            hits[i][0] += est.covers(*x, Z95) as u64;
            hits[i][1] += est.covers(*x, Z99) as u64;
        }
    }
    exact
        .iter()
        .zip(hits)
        .map(|((q, x), h)| {
            vec![
                n.to_string(),
                job.depth().to_string(),
                job.units().to_string(),
                job.replicates().to_string(),
                job.seed().to_string(),
                q.to_string(),
                x.to_string(),
                h[0].to_string(),
                h[1].to_string(),
            ]
        })
        .collect()
}

/// A keyed result table: rows grouped by their first column (the order).
pub type KeyedRows = BTreeMap<usize, Vec<Vec<String>>>;

/// Read a keyed table; a missing file is empty, a malformed one an input error naming it.
pub fn read_keyed(path: &Path, columns: &[&str]) -> Result<KeyedRows> {
    let mut out = KeyedRows::new();
    if !path.exists() {
        return Ok(out);
    }
    let mut rdr = crate::engine::table::open_checked(path, columns)?;
    for rec in rdr.records() {
        let rec = rec.map_err(|e| input_error(format!("{} is malformed: {e}", path.display())))?;
        let order: usize = rec
            .get(0)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| input_error(format!("{} has a row without an order", path.display())))?;
        out.entry(order)
            .or_default()
            .push(rec.iter().map(str::to_string).collect());
    }
    Ok(out)
}

fn write_keyed(columns: &[&str], table: &KeyedRows) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(columns).expect("in-memory writer");
    for rows in table.values() {
        for r in rows {
            w.write_record(r).expect("in-memory writer");
        }
    }
    w.into_inner().expect("in-memory writer")
}

/// Merge partial files if `kind` is this module's job; `Ok(false)` otherwise.
pub fn merge(kind: &str, files: &[PathBuf], results: &Path) -> Result<bool> {
    if kind != KIND {
        return Ok(false);
    }
    let (spec, draws, stats) = crate::engine::cli::merge::<Records<UnitDraw>>(files)?;
    let p = &spec.params;
    let field = |name: &str| {
        p[name]
            .as_u64()
            .ok_or_else(|| input_error(format!("latin-estimate partial without {name}")))
    };
    let job = EstimateJob::new(
        field("order")? as usize,
        field("depth")? as usize,
        field("units")?,
        field("replicates")?,
        spec.seed,
    )?;
    if job.spec() != spec {
        return Err(input_error(
            "latin-estimate partials do not match this version's job spec",
        ));
    }
    let census = read_census(&results.join(CENSUS_FILE))?;
    if job.replicates() > 1 && !census.contains_key(&job.order()) {
        return Err(input_error(format!(
            "the coverage study needs the exact census of order {} in {}",
            job.order(),
            results.join(CENSUS_FILE).display()
        )));
    }
    eprintln!("latin estimate: merged {} partial files", files.len());
    write_all(results, vec![(&job, draws, stats)], Some(&census))?;
    Ok(true)
}
