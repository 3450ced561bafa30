//! Moments of the intercalate count beyond the census, from squares drawn by the unbiased
//! Jacobson–Matthews readers (engine job kind `latin-moments`).
//!
//! Rows are (order, reader) pairs, each reader one of the two that the sampler study holds to the
//! exact census: *fixed-time* (exactly T moves from the cyclic square, kept if proper, else a new
//! chain: independent draws) and *thinned* (one chain per work unit, burn-in, then every k-th
//! proper state: dependent draws within a unit, independent units). Each row's D draws are split
//! into work units of `batch` draws, each with its RNG stream from (master seed, unit index), so
//! the result is the same at any thread count, shard split or resume. A unit returns the
//! histogram of the intercalate counts it drew.
//!
//! Estimators ([`row_estimates`]): the mean intercalate count, its variance, the share of squares
//! without intercalates, the largest count seen. Fixed-time draws are independent: standard errors
//! from the sample (the variance's from the fourth central moment). Thinned draws are correlated
//! within a unit: standard errors by batch means over the units (a cluster estimator, the
//! variance's by the delta method on the unit means of x and x²), and an effective sample size
//! ESS = s²/SE(mean)².

use super::estimate::Est;
use super::samplers::{BatchOutcome, ExactDist, Reader, draw_batch};
use crate::engine::{Histogram, Job, JobSpec, Records, Unit};
use crate::error::input_error;
use anyhow::Result;
use serde::{Deserialize, Serialize};

pub const KIND: &str = "latin-moments";
pub const CSV_FILE: &str = "latin_moments.csv";
pub const TIMING_FILE: &str = "latin_moments_timing.csv";
/// Orders the job accepts: from the smallest order the sampler study validates to the largest the
/// chain supports.
pub const MIN_ORDER: usize = 4;
pub const MAX_ORDER: usize = super::jm::MAX_ORDER;

/// One row: an order and a reader (fixed-time or thinned only).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MomentRow {
    pub order: usize,
    pub reader: Reader,
}

/// Everything that changes the result (with the master seed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MomentParams {
    pub rows: Vec<MomentRow>,
    /// D: draws per row.
    pub draws: u64,
    /// Draws per work unit (for the thinned reader: one chain, one batch).
    pub batch: u64,
}

/// What one unit produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MomentEntry {
    pub row: usize,
    pub out: BatchOutcome,
    /// Thread CPU nanoseconds the unit took (a measurement, kept out of the result CSV).
    pub cpu_nanos: u64,
}

pub type MomentPartial = Records<MomentEntry>;

pub struct MomentsJob {
    params: MomentParams,
    seed: u64,
    /// (row, draws) per unit.
    units: Vec<(usize, u64)>,
    /// Placeholder distribution `draw_batch` asks for (used by the `exact` reader only).
    dummy: ExactDist,
}

/// A finished row.
#[derive(Clone, Debug, PartialEq)]
pub struct MomentResult {
    pub order: usize,
    pub reader: Reader,
    pub draws: u64,
    pub units: u64,
    pub mean: Est,
    pub variance: Est,
    pub share_without: Est,
    pub max_seen: usize,
    /// Effective independent samples: D for the fixed-time reader, s²/SE(mean)² (batch means)
    /// for the thinned reader.
    pub ess: f64,
    pub moves_per_square: f64,
    pub chains_per_square: f64,
    pub cpu_seconds: f64,
}

impl MomentsJob {
    pub fn new(rows: Vec<MomentRow>, draws: u64, batch: u64, seed: u64) -> Result<Self> {
        if draws == 0 {
            return Err(input_error("--draws must be at least 1"));
        }
        if batch == 0 {
            return Err(input_error("--batch must be at least 1"));
        }
        if rows.is_empty() {
            return Err(input_error(
                "no rows: give at least one order and one reader",
            ));
        }
        for row in &rows {
            let n = row.order;
            if !(MIN_ORDER..=MAX_ORDER).contains(&n) {
                return Err(input_error(format!(
                    "order {n} is outside the moments job's orders {MIN_ORDER} to {MAX_ORDER}"
                )));
            }
            match &row.reader {
                Reader::FixedTime { t, chain_cap } => {
                    if *t == 0 {
                        return Err(input_error("T = 0: a reader needs at least one move"));
                    }
                    if *chain_cap == 0 {
                        return Err(input_error("--chain-cap must be at least 1"));
                    }
                }
                Reader::Thinned { k, wait_cap, .. } => {
                    if *k == 0 {
                        return Err(input_error(
                            "k = 0: the thinned reader keeps every k-th proper state, k ≥ 1",
                        ));
                    }
                    if *wait_cap == 0 {
                        return Err(input_error("--wait-cap must be at least 1"));
                    }
                    if draws < 2 * batch {
                        return Err(input_error(format!(
                            "the thinned reader's standard errors need at least two work units: \
                             --draws {draws} < 2 × --batch {batch}"
                        )));
                    }
                }
                other => {
                    return Err(input_error(format!(
                        "reader {} is not one of the unbiased readers (fixed-time, thinned)",
                        other.name()
                    )));
                }
            }
        }
        let mut units = Vec::new();
        for i in 0..rows.len() {
            let mut left = draws;
            while left > 0 {
                let count = left.min(batch);
                units.push((i, count));
                left -= count;
            }
        }
        Ok(MomentsJob {
            params: MomentParams { rows, draws, batch },
            seed,
            units,
            dummy: ExactDist::new(&Histogram(vec![1]))?,
        })
    }

    /// Rebuild a job from a spec (for `merge`).
    pub fn from_spec(spec: &JobSpec) -> Result<Self> {
        let p: MomentParams = serde_json::from_value(spec.params.clone())
            .map_err(|e| input_error(format!("latin-moments partial with bad parameters: {e}")))?;
        let job = MomentsJob::new(p.rows, p.draws, p.batch, spec.seed)?;
        if job.spec() != *spec {
            return Err(input_error(
                "latin-moments partials do not match this version's job spec",
            ));
        }
        Ok(job)
    }

    pub fn params(&self) -> &MomentParams {
        &self.params
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Turn the folded records into rows (in row order).
    pub fn finish(&self, total: MomentPartial) -> Result<Vec<MomentResult>> {
        let p = &self.params;
        let mut per_row: Vec<Vec<MomentEntry>> = vec![Vec::new(); p.rows.len()];
        for e in total.0 {
            if e.row >= per_row.len() {
                anyhow::bail!("latin-moments record of unknown row {}", e.row);
            }
            per_row[e.row].push(e);
        }
        let mut out = Vec::new();
        for (i, row) in p.rows.iter().enumerate() {
            let entries = &per_row[i];
            let draws: u64 = entries.iter().map(|e| e.out.draws).sum();
            if draws != p.draws {
                anyhow::bail!("row {i}: {draws} draws, expected {}", p.draws);
            }
            let hists: Vec<&Histogram> = entries.iter().map(|e| &e.out.hist).collect();
            let independent = matches!(row.reader, Reader::FixedTime { .. });
            let est = row_estimates(&hists, independent);
            let chains: u64 = entries.iter().map(|e| e.out.chains).sum();
            let moves: u64 = entries.iter().map(|e| e.out.moves).sum();
            let cpu: u64 = entries.iter().map(|e| e.cpu_nanos).sum();
            out.push(MomentResult {
                order: row.order,
                reader: row.reader.clone(),
                draws,
                units: entries.len() as u64,
                mean: est.mean,
                variance: est.variance,
                share_without: est.share_without,
                max_seen: est.max_seen,
                ess: est.ess,
                moves_per_square: moves as f64 / draws as f64,
                chains_per_square: chains as f64 / draws as f64,
                cpu_seconds: cpu as f64 * 1e-9,
            });
        }
        Ok(out)
    }
}

impl Job for MomentsJob {
    type Partial = MomentPartial;

    fn spec(&self) -> JobSpec {
        JobSpec::new(
            KIND,
            serde_json::to_value(&self.params).expect("params serialise"),
            self.seed,
        )
    }

    fn unit_count(&self) -> u64 {
        self.units.len() as u64
    }

    fn run_unit(&self, unit: Unit) -> Result<MomentPartial> {
        let start = crate::engine::clock::thread_cpu_ns();
        let mut rng = unit.rng();
        let (row, count) = self.units[unit.index as usize];
        let spec = &self.params.rows[row];
        let out = draw_batch(&spec.reader, spec.order, &self.dummy, count, &mut rng)?;
        let cpu_nanos = crate::engine::clock::thread_cpu_ns().saturating_sub(start);
        Ok(Records(vec![MomentEntry {
            row,
            out,
            cpu_nanos,
        }]))
    }

    fn label(&self) -> String {
        format!("latin moments ({} rows)", self.params.rows.len())
    }
}

/// The estimates of one row.
#[derive(Clone, Debug, PartialEq)]
pub struct RowEstimates {
    pub draws: u64,
    pub mean: Est,
    pub variance: Est,
    pub share_without: Est,
    pub max_seen: usize,
    pub ess: f64,
}

/// Σ over a histogram of count·f(value).
fn hsum(h: &Histogram, f: impl Fn(f64) -> f64) -> f64 {
    h.0.iter()
        .enumerate()
        .filter(|&(_, &c)| c > 0)
        .map(|(k, &c)| c as f64 * f(k as f64))
        .sum()
}

/// Estimates from the per-unit histograms of one row. `independent`: every draw is independent
/// (fixed-time); otherwise draws are dependent within a unit and units are independent
/// (thinned), and standard errors come from the between-unit spread (needs ≥ 2 units).
pub fn row_estimates(units: &[&Histogram], independent: bool) -> RowEstimates {
    let mut all = Histogram::default();
    for h in units {
        crate::engine::Partial::merge(&mut all, (*h).clone());
    }
    let n = all.total() as f64;
    let m = hsum(&all, |x| x) / n;
    let m2c = hsum(&all, |x| (x - m).powi(2)) / n; // biased central second moment
    let m4c = hsum(&all, |x| (x - m).powi(4)) / n;
    let s2 = if n > 1.0 { m2c * n / (n - 1.0) } else { 0.0 };
    let p0 = all.0.first().copied().unwrap_or(0) as f64 / n;
    let max_seen = all.0.iter().rposition(|&c| c > 0).unwrap_or(0);
    if independent {
        // Var(s²) ≈ (μ4 − (N−3)/(N−1)·σ⁴)/N.
        let var_s2 = ((m4c - (n - 3.0) / (n - 1.0) * s2 * s2) / n).max(0.0);
        return RowEstimates {
            draws: n as u64,
            mean: Est {
                value: m,
                se: (s2 / n).sqrt(),
            },
            variance: Est {
                value: s2,
                se: var_s2.sqrt(),
            },
            share_without: Est {
                value: p0,
                se: (p0 * (1.0 - p0) / n).sqrt(),
            },
            max_seen,
            ess: n,
        };
    }
    // Cluster (batch-means) estimator: with unit sizes B_b, N = Σ B_b and a per-unit linearised
    // value z_b (unit mean minus overall, or the delta-method influence of the variance),
    // Var ≈ nb/(nb−1) · Σ B_b² z_b² / N².
    let nb = units.len() as f64;
    let cluster = |z: &dyn Fn(&Histogram, f64) -> f64| -> f64 {
        if nb < 2.0 {
            return f64::NAN;
        }
        let s: f64 = units
            .iter()
            .map(|h| {
                let b = h.total() as f64;
                (b * z(h, b)).powi(2)
            })
            .sum();
        (nb / (nb - 1.0) * s / (n * n)).sqrt()
    };
    let e2 = hsum(&all, |x| x * x) / n;
    let se_mean = cluster(&|h, b| hsum(h, |x| x) / b - m);
    let se_p0 = cluster(&|h, b| h.0.first().copied().unwrap_or(0) as f64 / b - p0);
    let se_var = cluster(&|h, b| {
        let (u1, u2) = (hsum(h, |x| x) / b, hsum(h, |x| x * x) / b);
        (u2 - e2) - 2.0 * m * (u1 - m)
    });
    let ess = if se_mean > 0.0 {
        s2 / (se_mean * se_mean)
    } else {
        n
    };
    RowEstimates {
        draws: n as u64,
        mean: Est {
            value: m,
            se: se_mean,
        },
        variance: Est {
            value: s2,
            se: se_var * n / (n - 1.0).max(1.0),
        },
        share_without: Est {
            value: p0,
            se: se_p0,
        },
        max_seen,
        ess,
    }
}

/// Columns of `latin_moments.csv`: keyed by (order, reader, quantity).
pub const CSV_COLUMNS: [&str; 11] = [
    "order",
    "reader",
    "t",
    "k",
    "burn_in",
    "draws",
    "units",
    "seed",
    "quantity",
    "estimate",
    "std_error",
];

/// Columns of `latin_moments_timing.csv` (measurements, not results).
pub const TIMING_COLUMNS: [&str; 8] = [
    "order",
    "reader",
    "draws",
    "cpu_seconds",
    "moves_per_cpu_second",
    "squares_per_cpu_second",
    "ess",
    "ess_per_cpu_second",
];

/// (t, k, burn_in) of a reader, as CSV fields.
pub fn reader_params(r: &Reader) -> [String; 3] {
    match r {
        Reader::FixedTime { t, .. } | Reader::WaitForProper { t, .. } => {
            [t.to_string(), String::new(), String::new()]
        }
        Reader::Thinned { k, burn_in, .. } => [String::new(), k.to_string(), burn_in.to_string()],
        _ => [String::new(), String::new(), String::new()],
    }
}

/// The result rows of one finished row, in the CSV's column order.
pub fn result_rows(r: &MomentResult, seed: u64) -> Vec<Vec<String>> {
    let [t, k, burn_in] = reader_params(&r.reader);
    let head = vec![
        r.order.to_string(),
        r.reader.name().to_string(),
        t,
        k,
        burn_in,
        r.draws.to_string(),
        r.units.to_string(),
        seed.to_string(),
    ];
    let row = |q: &str, v: String, se: String| {
        let mut x = head.clone();
        x.extend([q.to_string(), v, se]);
        x
    };
    vec![
        row(
            "mean_intercalates",
            r.mean.value.to_string(),
            r.mean.se.to_string(),
        ),
        row(
            "variance_intercalates",
            r.variance.value.to_string(),
            r.variance.se.to_string(),
        ),
        row(
            "share_without",
            r.share_without.value.to_string(),
            r.share_without.se.to_string(),
        ),
        row("max_seen", r.max_seen.to_string(), String::new()),
        row("ess", format!("{:.1}", r.ess), String::new()),
        row(
            "chains_per_square",
            r.chains_per_square.to_string(),
            String::new(),
        ),
        row(
            "moves_per_square",
            r.moves_per_square.to_string(),
            String::new(),
        ),
    ]
}

/// The timing row of one finished row.
pub fn timing_row(r: &MomentResult) -> Vec<String> {
    let cpu = r.cpu_seconds.max(1e-9);
    vec![
        r.order.to_string(),
        r.reader.name().to_string(),
        r.draws.to_string(),
        format!("{:.3}", r.cpu_seconds),
        format!("{:.0}", r.moves_per_square * r.draws as f64 / cpu),
        format!("{:.1}", r.draws as f64 / cpu),
        format!("{:.1}", r.ess),
        format!("{:.1}", r.ess / cpu),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;
    use rand::SeedableRng;

    fn hist_of(values: &[usize]) -> Histogram {
        let mut h = Histogram::default();
        for &v in values {
            h.add(v, 1);
        }
        h
    }

    #[test]
    fn independent_estimates_match_direct_formulas() {
        let xs = [0usize, 2, 2, 3, 5, 7, 7, 7, 10, 1];
        let h = hist_of(&xs);
        let e = row_estimates(&[&h], true);
        let n = xs.len() as f64;
        let m = xs.iter().sum::<usize>() as f64 / n;
        let s2 = xs.iter().map(|&x| (x as f64 - m).powi(2)).sum::<f64>() / (n - 1.0);
        assert!((e.mean.value - 4.4).abs() < 1e-12);
        assert!((e.mean.se - (s2 / n).sqrt()).abs() < 1e-12);
        assert!((e.variance.value - s2).abs() < 1e-12);
        assert!((e.share_without.value - 0.1).abs() < 1e-12);
        assert!((e.share_without.se - (0.1f64 * 0.9 / n).sqrt()).abs() < 1e-12);
        assert_eq!(e.max_seen, 10);
        assert_eq!(e.ess, n);
    }

    #[test]
    fn variance_standard_error_matches_simulation() {
        // Independent draws of a skewed law: the spread of s² over many replicates is close to
        // the fourth-moment standard error of one replicate.
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let draw = |rng: &mut rand_xoshiro::Xoshiro256PlusPlus| -> usize {
            let u: f64 = rng.random();
            (-(1.0 - u).ln() * 4.0) as usize // geometric-like, mean about 3.5
        };
        let mut s2s = Vec::new();
        let mut ses = Vec::new();
        for _ in 0..400 {
            let h = hist_of(&(0..2000).map(|_| draw(&mut rng)).collect::<Vec<_>>());
            let e = row_estimates(&[&h], true);
            s2s.push(e.variance.value);
            ses.push(e.variance.se);
        }
        let mean = s2s.iter().sum::<f64>() / 400.0;
        let sd = (s2s.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 399.0).sqrt();
        let se = ses.iter().sum::<f64>() / 400.0;
        assert!((se / sd - 1.0).abs() < 0.15, "se {se} sd {sd}");
    }

    #[test]
    fn batch_means_see_correlation_within_units() {
        // Units whose draws are all equal (perfect correlation within a unit): the cluster
        // standard error is the spread of unit means, far above the naive s/√N, and the ESS is
        // about the number of units.
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let hs: Vec<Histogram> = (0..50)
            .map(|_| {
                let mut h = Histogram::default();
                h.add(rng.random_range(0..10usize), 100);
                h
            })
            .collect();
        let refs: Vec<&Histogram> = hs.iter().collect();
        let dep = row_estimates(&refs, false);
        let ind = row_estimates(&refs, true);
        assert_eq!(dep.mean.value, ind.mean.value);
        assert!(dep.mean.se > 5.0 * ind.mean.se);
        assert!((dep.ess - 50.0).abs() < 5.0, "ess {}", dep.ess);
        // Independent units of independent draws: the cluster SE agrees with s/√N.
        let hs: Vec<Histogram> = (0..40)
            .map(|_| {
                hist_of(
                    &(0..500)
                        .map(|_| rng.random_range(0..10usize))
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        let refs: Vec<&Histogram> = hs.iter().collect();
        let dep = row_estimates(&refs, false);
        let ind = row_estimates(&refs, true);
        assert!((dep.mean.se / ind.mean.se - 1.0).abs() < 0.35);
        assert!((dep.variance.se / ind.variance.se - 1.0).abs() < 0.4);
    }

    #[test]
    fn job_is_deterministic_across_threads_and_refuses_bad_rows() {
        let rows = vec![
            MomentRow {
                order: 5,
                reader: Reader::FixedTime {
                    t: 125,
                    chain_cap: 100_000,
                },
            },
            MomentRow {
                order: 5,
                reader: Reader::Thinned {
                    k: 5,
                    burn_in: 1250,
                    wait_cap: 10_000_000,
                },
            },
        ];
        let job = MomentsJob::new(rows.clone(), 600, 200, 9).unwrap();
        assert_eq!(job.unit_count(), 6);
        let a = job
            .finish(crate::engine::run::run_simple(&job, Some(1)).unwrap())
            .unwrap();
        let b = job
            .finish(crate::engine::run::run_simple(&job, Some(2)).unwrap())
            .unwrap();
        let bytes = |rs: &[MomentResult]| -> Vec<Vec<String>> {
            rs.iter().flat_map(|r| result_rows(r, 9)).collect()
        };
        assert_eq!(bytes(&a), bytes(&b));
        assert_eq!(a[0].draws, 600);
        assert_eq!(a[1].units, 3);
        assert!(MomentsJob::from_spec(&job.spec()).is_ok());
        // Refused: a biased reader, an order out of range, a thinned row with one unit.
        let bad = |reader: Reader, order: usize, draws: u64| {
            MomentsJob::new(vec![MomentRow { order, reader }], draws, 200, 1).is_err()
        };
        assert!(bad(Reader::Naive, 5, 600));
        assert!(bad(
            Reader::FixedTime {
                t: 27,
                chain_cap: 10
            },
            17,
            600
        ));
        assert!(bad(rows[1].reader.clone(), 5, 300));
    }
}
