//! `gridcensus latin samplers`: the Jacobson–Matthews sampler study.

// The doc comments of the argument structs are the command-line help, written for a terminal
// (`[OPTIONS]`, `<results>/...`), not rustdoc links or HTML.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use super::census_csv::{CENSUS_FILE, read_census};
use super::samplers::Reader;
use super::study::{
    CSV_FILE, KIND, MAX_ORDER, MIN_ORDER, RowSpec, StudyJob, TIMING_FILE, rows_csv,
};
use crate::engine::Job;
use crate::engine::cli::{EngineArgs, RunStats, execute, write_result_keeping};
use crate::error::input_error;
use anyhow::Result;
use clap::Args;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct SamplerArgs {
    /// Orders to study: one order (8), a range (4-8) or a list (5,6,7); each within 4..8 and
    /// present in the census file.
    #[arg(long, default_value = "4-8", value_name = "ORDERS")]
    pub orders: String,
    /// D: draws per row (and per noise-floor simulation).
    #[arg(long, default_value_t = 20_000, value_name = "D")]
    pub draws: u64,
    /// R: noise-floor simulations (D perfect draws each) per order. Default: 400.
    #[arg(long, default_value_t = 400, value_name = "R")]
    pub floor_sims: u64,
    /// Samplers, comma-separated: naive, wait-for-proper, fixed-time, thinned, exact.
    #[arg(
        long,
        default_value = "naive,wait-for-proper,fixed-time,thinned,exact",
        value_name = "LIST"
    )]
    pub samplers: String,
    /// T values (moves) of the wait-for-proper and fixed-time readers, as terms in n:
    /// `7`, `n`, `n^3`, `10n^3`.
    #[arg(long, default_value = "n,n^3,10n^3", value_name = "LIST")]
    pub moves: String,
    /// k values of the thinned reader (keep every k-th proper state), as terms in n.
    #[arg(long, default_value = "1,n,n^2,n^3", value_name = "LIST")]
    pub thin: String,
    /// Burn-in moves of each thinned chain, as a term in n.
    #[arg(long, default_value = "10n^3", value_name = "TERM")]
    pub burn_in: String,
    /// Fixed-time reader: give up (error) after this many chains for one square.
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    pub chain_cap: u64,
    /// Wait-for-proper and thinned readers: give up (error) after this many moves without a
    /// proper state.
    #[arg(long, default_value_t = 10_000_000, value_name = "N")]
    pub wait_cap: u64,
    /// Draws per work unit.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub batch: u64,
    /// Master seed of the per-unit RNG streams.
    #[arg(long, default_value_t = 2026)]
    pub seed: u64,
    /// Census file with the exact distributions (default: <results>/latin_census.csv).
    #[arg(long, value_name = "FILE")]
    pub census: Option<PathBuf>,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Evaluate a term in n: `[coefficient][n[^p]]`, e.g. `7`, `n`, `n^3`, `10n^3`, `2n`.
pub fn eval_term(term: &str, n: u64) -> Result<u64> {
    let t = term.trim().replace(' ', "");
    let bad = || input_error(format!("'{term}' is not a number or a term like 10n^3"));
    let (coef, rest) = match t.find('n') {
        Some(i) => (&t[..i], &t[i..]),
        None => (t.as_str(), ""),
    };
    let c: u64 = if coef.is_empty() {
        if rest.is_empty() {
            return Err(bad());
        }
        1
    } else {
        coef.trim_end_matches('*').parse().map_err(|_| bad())?
    };
    let p: u32 = match rest {
        "" => 0,
        "n" => 1,
        r => r
            .strip_prefix("n^")
            .and_then(|e| e.parse().ok())
            .ok_or_else(bad)?,
    };
    n.checked_pow(p)
        .and_then(|v| v.checked_mul(c))
        .ok_or_else(|| input_error(format!("'{term}' overflows at n = {n}")))
}

fn terms(list: &str) -> Vec<&str> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// The rows of the study, in CSV order: per order, naive, wait-for-proper (each T), fixed-time
/// (each T), thinned (each k), exact.
pub fn build_rows(args: &SamplerArgs) -> Result<Vec<RowSpec>> {
    let orders = super::cli::parse_orders(&args.orders)?;
    for &n in &orders {
        if !(MIN_ORDER..=MAX_ORDER).contains(&n) {
            return Err(input_error(format!(
                "order {n} is outside the sampler study's orders {MIN_ORDER} to {MAX_ORDER}"
            )));
        }
    }
    let known = ["naive", "wait-for-proper", "fixed-time", "thinned", "exact"];
    let chosen = terms(&args.samplers);
    for s in &chosen {
        if !known.contains(s) {
            return Err(input_error(format!(
                "--samplers: unknown sampler '{s}' (known: {})",
                known.join(", ")
            )));
        }
    }
    if chosen.is_empty() {
        return Err(input_error("--samplers: no sampler given"));
    }
    let mut rows = Vec::new();
    for &n in &orders {
        let nn = n as u64;
        let eval_list = |list: &str, what: &str| -> Result<Vec<u64>> {
            let v = terms(list)
                .into_iter()
                .map(|t| eval_term(t, nn))
                .collect::<Result<Vec<_>>>()?;
            if v.is_empty() {
                return Err(input_error(format!("{what}: empty list")));
            }
            if v.contains(&0) {
                return Err(input_error(match what {
                    "--thin" => "k = 0: the thinned reader keeps every k-th proper state, k ≥ 1",
                    _ => "T = 0: a reader needs at least one move",
                }));
            }
            Ok(v)
        };
        for s in known {
            if !chosen.contains(&s) {
                continue;
            }
            match s {
                "naive" => rows.push(RowSpec {
                    order: n,
                    reader: Reader::Naive,
                }),
                "wait-for-proper" => {
                    for t in eval_list(&args.moves, "--moves")? {
                        rows.push(RowSpec {
                            order: n,
                            reader: Reader::WaitForProper {
                                t,
                                wait_cap: args.wait_cap,
                            },
                        });
                    }
                }
                "fixed-time" => {
                    for t in eval_list(&args.moves, "--moves")? {
                        rows.push(RowSpec {
                            order: n,
                            reader: Reader::FixedTime {
                                t,
                                chain_cap: args.chain_cap,
                            },
                        });
                    }
                }
                "thinned" => {
                    let burn_in = eval_term(&args.burn_in, nn)?;
                    for k in eval_list(&args.thin, "--thin")? {
                        rows.push(RowSpec {
                            order: n,
                            reader: Reader::Thinned {
                                k,
                                burn_in,
                                wait_cap: args.wait_cap,
                            },
                        });
                    }
                }
                _ => rows.push(RowSpec {
                    order: n,
                    reader: Reader::Exact,
                }),
            }
        }
    }
    Ok(rows)
}

pub fn run(args: SamplerArgs) -> Result<()> {
    args.engine.validate()?;
    if args.draws == 0 {
        return Err(input_error("--draws must be at least 1"));
    }
    let rows = build_rows(&args)?;
    let census_path = args
        .census
        .clone()
        .unwrap_or_else(|| args.engine.results.join(CENSUS_FILE));
    let census = read_census(&census_path)?;
    let job = StudyJob::new(
        rows,
        args.draws,
        args.floor_sims,
        args.batch,
        args.seed,
        &missing_census_hint(&census, &census_path)?,
    )?;
    let Some((total, stats)) = execute(&job, &args.engine)? else {
        return Ok(()); // a shard: its partial file is written
    };
    eprintln!(
        "latin samplers: {} rows, {} units in {:.2} s on {} threads",
        job.params().rows.len(),
        stats.units,
        stats.elapsed_seconds,
        stats.threads
    );
    write_rows(&job, total, &args.engine.results, &stats)
}

/// The census table, or an error if the file does not exist at all.
fn missing_census_hint(
    census: &BTreeMap<usize, crate::engine::Histogram>,
    path: &Path,
) -> Result<BTreeMap<usize, crate::engine::Histogram>> {
    if census.is_empty() {
        return Err(input_error(format!(
            "no census at {}: run `gridcensus latin census` first",
            path.display()
        )));
    }
    Ok(census.clone())
}

fn write_rows(
    job: &StudyJob,
    total: super::study::StudyPartial,
    results: &Path,
    stats: &RunStats,
) -> Result<()> {
    let rows = job.finish(total)?;
    for r in &rows {
        eprintln!(
            "  n={} {:<16} T={:<6} k={:<4} mean {:.3} (exact {:.3})  TV {:.4}  floor {:.4}/{:.4}  {:.1} s",
            r.order,
            r.sampler,
            r.t.map(|v| v.to_string()).unwrap_or("-".into()),
            r.k.map(|v| v.to_string()).unwrap_or("-".into()),
            r.mean,
            r.exact_mean,
            r.tv,
            r.floor_mean,
            r.floor_p95,
            r.wall_seconds
        );
    }
    // Keyed tables: rows of orders this run did not compute are kept.
    let computed: std::collections::BTreeSet<usize> = rows.iter().map(|r| r.order).collect();
    let csv_path = results.join(CSV_FILE);
    let timing_path = results.join(TIMING_FILE);
    let kept = keep_other_orders(&csv_path, &rows_csv(&rows), &computed)?;
    let kept_orders: std::collections::BTreeSet<usize> = kept.1.clone();
    let keep = |spec: &crate::engine::JobSpec| {
        spec.kind == KIND
            && spec.params["rows"].as_array().is_some_and(|rs| {
                rs.iter().any(|r| {
                    r["order"]
                        .as_u64()
                        .is_some_and(|n| kept_orders.contains(&(n as usize)))
                })
            })
    };
    write_result_keeping(&csv_path, &kept.0, &[stats], keep)?;
    let timing = keep_other_orders(&timing_path, &super::study::timing_csv(&rows), &computed)?;
    write_result_keeping(&timing_path, &timing.0, &[stats], keep)?;
    stats.cleanup();
    Ok(())
}

/// Merge partial files if `kind` is one of this module's jobs; `Ok(false)` otherwise.
pub fn merge(kind: &str, files: &[PathBuf], results: &Path) -> Result<bool> {
    if kind != KIND {
        return Ok(false);
    }
    let (spec, total, stats) = crate::engine::cli::merge::<super::study::StudyPartial>(files)?;
    let census_path = results.join(CENSUS_FILE);
    let census = read_census(&census_path)?;
    let job = StudyJob::from_spec(&spec, &missing_census_hint(&census, &census_path)?)?;
    debug_assert_eq!(job.spec(), spec);
    eprintln!("latin samplers: merged {} partial files", files.len());
    write_rows(&job, total, results, &stats)?;
    Ok(true)
}

/// Merge freshly computed CSV bytes (rows of the orders in `computed`) with the rows of other
/// orders already in `path` (same header required). Returns the bytes, sorted by order (rows of
/// one order keep their order), and the orders kept from the old file.
fn keep_other_orders(
    path: &Path,
    fresh: &[u8],
    computed: &std::collections::BTreeSet<usize>,
) -> Result<(Vec<u8>, std::collections::BTreeSet<usize>)> {
    let mut fresh_rdr = csv::Reader::from_reader(fresh);
    let header = fresh_rdr.headers()?.clone();
    let mut rows: Vec<(usize, csv::StringRecord)> = Vec::new();
    let mut kept = std::collections::BTreeSet::new();
    if path.exists() {
        let cols: Vec<&str> = header.iter().collect();
        let mut old = crate::engine::table::open_checked(path, &cols).map_err(|e| {
            input_error(format!(
                "{e:#} (written by another version? move it aside to regenerate)"
            ))
        })?;
        for rec in old.records() {
            let rec =
                rec.map_err(|e| input_error(format!("{} is malformed: {e}", path.display())))?;
            let n: usize = rec.get(0).and_then(|v| v.parse().ok()).ok_or_else(|| {
                input_error(format!("{} has a row without an order", path.display()))
            })?;
            if !computed.contains(&n) {
                kept.insert(n);
                rows.push((n, rec));
            }
        }
    }
    for rec in fresh_rdr.records() {
        let rec = rec?;
        let n: usize = rec.get(0).and_then(|v| v.parse().ok()).unwrap_or(0);
        rows.push((n, rec));
    }
    rows.sort_by_key(|r| r.0); // stable: rows of one order keep their order
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&header)?;
    for (_, r) in &rows {
        w.write_record(r)?;
    }
    Ok((w.into_inner().expect("in-memory writer"), kept))
}
