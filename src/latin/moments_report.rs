//! The "moments" report section: intercalate moments of orders 4–16 from the unbiased
//! Jacobson–Matthews readers, held to the exact census (orders 4–8) and to the estimate by
//! sampled work units (orders 9–11), and the two readers held to each other beyond the census.

use super::census_csv::{CENSUS_FILE, read_census, summarize};
use super::estimate::{Est, Z99};
use super::estimate_cli::{ESTIMATE_COLUMNS, ESTIMATE_FILE, exact_figures, read_keyed};
use super::moments::{CSV_COLUMNS, CSV_FILE, TIMING_COLUMNS, TIMING_FILE};
use super::moments_cli::{read_moments, read_timing};
use crate::report::{Check, Section};
use anyhow::{Result, anyhow};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Orders the committed moments file must hold, for both readers.
pub const EXPECTED_ORDERS: std::ops::RangeInclusive<usize> = 4..=16;
pub const READERS: [&str; 2] = ["fixed-time", "thinned"];
/// The normal quantile of a family-wise 1% two-sided test over the 8 orders 9–16 (Bonferroni:
/// z for 0.01/8).
pub const Z_BONFERRONI_8: f64 = 3.227_218_600_264_954;

/// One row's figures read back from the CSV.
#[derive(Clone, Debug, Default)]
pub struct RowFigures {
    pub params: String,
    pub draws: String,
    pub mean: Option<Est>,
    pub variance: Option<Est>,
    pub share_without: Option<Est>,
    pub max_seen: String,
    pub ess: String,
}

fn col(name: &str) -> usize {
    CSV_COLUMNS
        .iter()
        .position(|c| *c == name)
        .expect("known column")
}

fn parse_row(rows: &[Vec<String>]) -> Result<RowFigures> {
    let mut f = RowFigures::default();
    let first = rows.first().ok_or_else(|| anyhow!("empty row group"))?;
    f.params = match first[col("reader")].as_str() {
        "fixed-time" => format!("T = {}", first[col("t")]),
        _ => format!("k = {}, burn-in {}", first[col("k")], first[col("burn_in")]),
    };
    f.draws = first[col("draws")].clone();
    for r in rows {
        let v = &r[col("estimate")];
        let est = || -> Result<Est> {
            let value: f64 = v
                .parse()
                .map_err(|_| anyhow!("estimate '{v}' is not a number"))?;
            let se_s = &r[col("std_error")];
            let se: f64 = se_s
                .parse()
                .map_err(|_| anyhow!("std_error '{se_s}' is not a number"))?;
            Ok(Est { value, se })
        };
        match r[col("quantity")].as_str() {
            "mean_intercalates" => f.mean = Some(est()?),
            "variance_intercalates" => f.variance = Some(est()?),
            "share_without" => f.share_without = Some(est()?),
            "max_seen" => f.max_seen = v.clone(),
            "ess" => f.ess = v.clone(),
            _ => {}
        }
    }
    Ok(f)
}

/// The JM means by order for the mean-over-n²/4 table: the fixed-time reader's (independent
/// draws), else the thinned reader's. Empty if the file is absent.
pub fn jm_means(results: &Path) -> Result<BTreeMap<usize, (Est, &'static str)>> {
    let path = results.join(CSV_FILE);
    let mut out = BTreeMap::new();
    if !path.exists() {
        return Ok(out);
    }
    let table = read_moments(&path)?;
    for reader in READERS.iter().rev() {
        for ((n, r), rows) in &table {
            if r == reader
                && let Some(m) = parse_row(rows)?.mean
            {
                out.insert(*n, (m, *reader));
            }
        }
    }
    Ok(out)
}

/// |a − b| ≤ z·√(se_a² + se_b²).
pub fn agree(a: Est, b: Est, z: f64) -> (bool, f64) {
    let s = (a.se * a.se + b.se * b.se).sqrt();
    let d = (a.value - b.value) / s;
    (d.abs() <= z, d)
}

pub fn sections(results: &Path) -> Result<Vec<Section>> {
    let mut s =
        Section::new("Latin squares beyond the census: moments from the Jacobson–Matthews readers");
    s.body.push_str(
        "`gridcensus latin moments` draws squares with the two readers of the Jacobson–Matthews \
         chain that the sampler study holds to the exact census: *fixed-time* (exactly T = n³ moves \
         from the cyclic square, kept if proper, else a new chain: independent draws) and *thinned* \
         (one chain per work unit, burn-in 10n³ moves, then every n-th proper state). Fixed-time \
         standard errors come from the sample (the variance's from the fourth central moment); \
         thinned ones by batch means over the independent chains (the variance's by the delta \
         method), with ESS = s²/SE². Intervals are estimate ± 2.576·SE (99%). Figures: \
         `results/latin_moments.csv`; CPU seconds in `results/latin_moments_timing.csv`.\n\n",
    );
    let path = results.join(CSV_FILE);
    if !path.exists() {
        s.checks.push(Check::new(
            format!("{} present", path.display()),
            false,
            "missing: run `gridcensus latin moments --orders 4-16`",
        ));
        return Ok(vec![s]);
    }
    let table = read_moments(&path)?;
    let timing_path = results.join(TIMING_FILE);
    let timing = if timing_path.exists() {
        read_timing(&timing_path)?
    } else {
        BTreeMap::new()
    };
    let missing: Vec<String> = EXPECTED_ORDERS
        .flat_map(|n| READERS.iter().map(move |r| (n, r.to_string())))
        .filter(|k| !table.contains_key(k))
        .map(|(n, r)| format!("order {n} {r}"))
        .collect();
    s.checks.push(Check::rows_present(
        "moments: every order 4–16 with both readers present",
        EXPECTED_ORDERS.count() * READERS.len(),
        &missing,
    ));
    let census = read_census(&results.join(CENSUS_FILE)).unwrap_or_default();
    let est_path = results.join(ESTIMATE_FILE);
    let estimate: BTreeMap<usize, Est> = if est_path.exists() {
        let t = read_keyed(&est_path, &ESTIMATE_COLUMNS)?;
        let c = &ESTIMATE_COLUMNS;
        let i = |name: &str| c.iter().position(|x| *x == name).expect("known column");
        let mut out = BTreeMap::new();
        for (&n, rows) in &t {
            if let Some(r) = rows
                .iter()
                .find(|r| r[i("quantity")] == "mean_intercalates")
            {
                let value: f64 = r[i("estimate")].parse().map_err(|_| {
                    anyhow!("{}: order {n} mean is not a number", est_path.display())
                })?;
                let se: f64 = r[i("std_error")].parse().map_err(|_| {
                    anyhow!(
                        "{}: order {n} std_error is not a number",
                        est_path.display()
                    )
                })?;
                out.insert(n, Est { value, se });
            }
        }
        out
    } else {
        BTreeMap::new()
    };
    s.body.push_str(
        "| n | reader | parameters | draws | mean intercalates ± SE | variance ± SE | share without ± SE | max seen | ESS | ESS per CPU-second |\n\
         | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let mut figs: BTreeMap<(usize, String), RowFigures> = BTreeMap::new();
    let mut variance_outside = Vec::new();
    let mut variance_held = 0usize;
    for ((n, reader), rows) in &table {
        let f = parse_row(rows)?;
        let ess_cpu = timing
            .get(&(*n, reader.clone()))
            .and_then(|t| t.first())
            .map(|t| {
                let i = TIMING_COLUMNS
                    .iter()
                    .position(|c| *c == "ess_per_cpu_second")
                    .expect("known column");
                t[i].clone()
            })
            .unwrap_or_default();
        let show = |e: Option<Est>, d: usize| {
            e.map(|e| format!("{:.d$} ± {:.d$}", e.value, e.se))
                .unwrap_or_else(|| "—".into())
        };
        let _ = writeln!(
            s.body,
            "| {n} | {reader} | {} | {} | {} | {} | {} | {} | {} | {ess_cpu} |",
            f.params,
            f.draws,
            show(f.mean, 4),
            show(f.variance, 3),
            f.share_without
                .map(|e| format!("{:.2e} ± {:.1e}", e.value, e.se))
                .unwrap_or_else(|| "—".into()),
            f.max_seen,
            f.ess
        );
        let Some(mean) = f.mean else {
            s.checks.push(Check::new(
                format!("moments order {n} {reader}: mean present"),
                false,
                "no mean_intercalates row",
            ));
            continue;
        };
        if (4..=8).contains(n) {
            match census.get(n) {
                Some(hist) => {
                    let want = summarize(*n, hist).mean;
                    let z = (mean.value - want) / mean.se;
                    s.checks.push(Check::new(
                        format!("moments order {n} {reader}: census mean inside the 99% interval"),
                        z.abs() <= Z99,
                        format!(
                            "estimate {:.5} ± {:.5}, census {want:.5}, z = {z:.2}",
                            mean.value, mean.se
                        ),
                    ));
                    if let Some(v) = f.variance {
                        let want = exact_figures(*n, hist)[2].1;
                        let z = (v.value - want) / v.se;
                        variance_held += 1;
                        if z.abs() > Z99 {
                            variance_outside.push(format!("order {n} {reader} z = {z:.2}"));
                        }
                    }
                }
                None => s.checks.push(Check::new(
                    format!("moments order {n} {reader}: census mean available"),
                    false,
                    format!("order {n} is missing from {CENSUS_FILE}"),
                )),
            }
        }
        if let Some(&e) = estimate.get(n)
            && *n >= 9
        {
            let (ok, z) = agree(mean, e, Z99);
            s.checks.push(Check::new(
                format!(
                    "moments order {n} {reader}: mean agrees with the sampled-units estimate (99%)"
                ),
                ok,
                format!(
                    "JM {:.4} ± {:.4}, sampled units {:.4} ± {:.4}, z = {z:.2}",
                    mean.value, mean.se, e.value, e.se
                ),
            ));
        }
        figs.insert((*n, reader.clone()), f);
    }
    s.body.push('\n');
    // The variance at orders 4–8, as a family: with correct standard errors each of m intervals
    // misses with probability 1%; more than 2 misses of 10 happens with probability < 0.1%.
    if variance_held > 0 {
        let allowed = if variance_held <= 10 { 2 } else { 3 };
        s.checks.push(Check::new(
            "moments orders 4–8: census variance inside the 99% intervals (as a family)",
            variance_outside.len() <= allowed,
            format!(
                "{} of {variance_held} outside (at most {allowed} allowed){}{}",
                variance_outside.len(),
                if variance_outside.is_empty() {
                    ""
                } else {
                    ": "
                },
                variance_outside.join(", ")
            ),
        ));
    }
    // Beyond the census the two readers are held to each other (Bonferroni over orders 9–16).
    for n in 9..=16usize {
        let a = figs.get(&(n, READERS[0].to_string())).and_then(|f| f.mean);
        let b = figs.get(&(n, READERS[1].to_string())).and_then(|f| f.mean);
        if let (Some(a), Some(b)) = (a, b) {
            let (ok, z) = agree(a, b, Z_BONFERRONI_8);
            s.checks.push(Check::new(
                format!("moments order {n}: fixed-time and thinned means agree"),
                ok,
                format!(
                    "fixed-time {:.4} ± {:.4}, thinned {:.4} ± {:.4}, z = {z:.2} (family-wise 1% over orders 9–16: |z| ≤ {Z_BONFERRONI_8:.3})",
                    a.value, a.se, b.value, b.se
                ),
            ));
        }
    }
    // Effective samples per CPU-second (measured, informational).
    for ((n, reader), t) in &timing {
        if let Some(t) = t.first() {
            let i = |name: &str| {
                TIMING_COLUMNS
                    .iter()
                    .position(|c| *c == name)
                    .expect("known column")
            };
            s.checks.push(Check::finding(
                format!("moments order {n} {reader}: effective samples per CPU-second"),
                format!(
                    "{} (ESS {} in {} CPU s; {} squares, {} moves per CPU-second)",
                    t[i("ess_per_cpu_second")],
                    t[i("ess")],
                    t[i("cpu_seconds")],
                    t[i("squares_per_cpu_second")],
                    t[i("moves_per_cpu_second")]
                ),
            ));
        }
    }
    Ok(vec![s])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::latin::moments::{MomentResult, result_rows};
    use crate::latin::samplers::Reader;

    fn result(order: usize, reader: &str, mean: f64, se: f64, var: f64, vse: f64) -> MomentResult {
        MomentResult {
            order,
            reader: if reader == "fixed-time" {
                Reader::FixedTime {
                    t: (order as u64).pow(3),
                    chain_cap: 100_000,
                }
            } else {
                Reader::Thinned {
                    k: order as u64,
                    burn_in: 10 * (order as u64).pow(3),
                    wait_cap: 10_000_000,
                }
            },
            draws: 20_000,
            units: 40,
            mean: Est { value: mean, se },
            variance: Est {
                value: var,
                se: vse,
            },
            share_without: Est {
                value: 0.0,
                se: 0.0,
            },
            max_seen: 40,
            ess: 20_000.0,
            moves_per_square: 1.0,
            chains_per_square: 1.0,
            cpu_seconds: 1.0,
        }
    }

    /// A results directory with the committed census and estimate and a moments file whose
    /// rows agree with them, except as `doctor` changes them.
    fn dir_with(doctor: impl Fn(&mut MomentResult)) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
        for f in [CENSUS_FILE, ESTIMATE_FILE] {
            std::fs::copy(repo.join(f), dir.path().join(f)).unwrap();
        }
        let census = read_census(&dir.path().join(CENSUS_FILE)).unwrap();
        let est = read_keyed(&dir.path().join(ESTIMATE_FILE), &ESTIMATE_COLUMNS).unwrap();
        let est_mean = |n: usize| -> f64 {
            est[&n]
                .iter()
                .find(|r| r[4] == "mean_intercalates")
                .unwrap()[6]
                .parse()
                .unwrap()
        };
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(CSV_COLUMNS).unwrap();
        for n in EXPECTED_ORDERS {
            let (mean, var) = match census.get(&n) {
                Some(h) => {
                    let f = exact_figures(n, h);
                    (f[1].1, f[2].1)
                }
                None if est.contains_key(&n) => (est_mean(n), 20.0),
                None => ((n * n) as f64 / 4.0, 20.0),
            };
            for reader in READERS {
                let mut r = result(n, reader, mean, 0.03, var, 0.2);
                doctor(&mut r);
                for row in result_rows(&r, 1) {
                    w.write_record(&row).unwrap();
                }
            }
        }
        std::fs::write(dir.path().join(CSV_FILE), w.into_inner().unwrap()).unwrap();
        dir
    }

    fn failed(dir: &Path) -> Vec<String> {
        let s = sections(dir).unwrap();
        s.iter()
            .flat_map(|s| &s.checks)
            .filter(|c| c.is_check() && !c.ok)
            .map(|c| c.name.clone())
            .collect()
    }

    #[test]
    fn consistent_input_passes_every_check() {
        let d = dir_with(|_| {});
        assert_eq!(failed(d.path()), Vec::<String>::new());
        let s = sections(d.path()).unwrap();
        let checks = s[0].checks.iter().filter(|c| c.is_check()).count();
        // present + 10 census means + 6 estimate agreements (orders 9-11) + variance family +
        // 8 reader pairs.
        assert_eq!(checks, 1 + 10 + 6 + 1 + 8);
    }

    #[test]
    fn a_biased_mean_at_a_census_order_fails() {
        let d = dir_with(|r| {
            if r.order == 7 && r.reader.name() == "thinned" {
                r.mean.value += 0.1; // 3.3 standard errors off
            }
        });
        assert_eq!(
            failed(d.path()),
            vec!["moments order 7 thinned: census mean inside the 99% interval".to_string()]
        );
    }

    #[test]
    fn disagreement_with_the_sampled_units_estimate_fails() {
        let d = dir_with(|r| {
            if r.order == 9 && r.reader.name() == "fixed-time" {
                r.mean.value -= 0.2; // estimate SE 0.043, ours 0.03: z ≈ −3.8
            }
        });
        let f = failed(d.path());
        assert!(
            f.contains(
                &"moments order 9 fixed-time: mean agrees with the sampled-units estimate (99%)"
                    .to_string()
            ),
            "{f:?}"
        );
    }

    #[test]
    fn readers_that_disagree_beyond_the_census_fail() {
        let d = dir_with(|r| {
            if r.order == 14 && r.reader.name() == "thinned" {
                r.mean.value += 0.2; // combined SE 0.042: z ≈ 4.7
            }
        });
        assert_eq!(
            failed(d.path()),
            vec!["moments order 14: fixed-time and thinned means agree".to_string()]
        );
    }

    #[test]
    fn a_family_of_wrong_variances_fails_and_missing_rows_fail() {
        let d = dir_with(|r| {
            if (4..=6).contains(&r.order) {
                r.variance.value += 1.0; // 5 standard errors off at three orders, both readers
            }
        });
        assert_eq!(
            failed(d.path()),
            vec![
                "moments orders 4–8: census variance inside the 99% intervals (as a family)"
                    .to_string()
            ]
        );
        // A file without order 16's rows fails the presence check.
        let d = dir_with(|_| {});
        let p = d.path().join(CSV_FILE);
        let text = std::fs::read_to_string(&p).unwrap();
        let kept: Vec<&str> = text.lines().filter(|l| !l.starts_with("16,")).collect();
        std::fs::write(&p, kept.join("\n") + "\n").unwrap();
        assert_eq!(
            failed(d.path()),
            vec!["moments: every order 4–16 with both readers present".to_string()]
        );
    }
}
