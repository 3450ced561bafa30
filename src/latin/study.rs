//! The sampler study as one engine job (kind `latin-samplers`).
//!
//! Rows are (order, reader) pairs; each row's D draws are split into work units of `batch`
//! draws, each with its own RNG stream (`unit.rng()`), so the result is the same at any thread
//! count, shard split or resume. After the rows come the noise-floor units: for each order, R
//! simulations of D perfect draws from the exact census distribution. The total is a list of
//! per-unit records folded in unit order; [`StudyJob::finish`] turns it into one [`RowResult`]
//! per row.

use super::samplers::{BatchOutcome, ExactDist, Reader, draw_batch};
use crate::engine::{Histogram, Job, JobSpec, Records, Unit};
use crate::error::input_error;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const KIND: &str = "latin-samplers";
pub const CSV_FILE: &str = "latin_samplers.csv";
pub const TIMING_FILE: &str = "latin_samplers_timing.csv";
/// Orders the study accepts (the census covers 1–8; orders below 4 have too few squares for a
/// sampler study to say anything).
pub const MIN_ORDER: usize = 4;
pub const MAX_ORDER: usize = 8;

/// One row of the study.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowSpec {
    pub order: usize,
    pub reader: Reader,
}

/// Everything that changes the result (with the master seed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StudyParams {
    pub rows: Vec<RowSpec>,
    /// D: draws per row (and per noise-floor simulation).
    pub draws: u64,
    /// R: noise-floor simulations per order.
    pub floor_sims: u64,
    /// Draws per work unit.
    pub batch: u64,
    /// Digest of each order's census histogram (the exact distribution is an input).
    pub census: BTreeMap<usize, String>,
}

/// A stable digest of a census histogram (FNV-1a 64 of its counts).
pub fn census_digest(hist: &Histogram) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (k, &c) in hist.0.iter().enumerate() {
        for b in format!("{k}:{c};").bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

#[derive(Clone, Debug)]
enum UnitPlan {
    Row { row: usize, count: u64 },
    Floor { order: usize },
}

/// What a unit produced: which row or floor simulation, its draws, and its compute time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Row index, or `None` for a noise-floor simulation.
    pub row: Option<usize>,
    /// Order of a floor simulation (rows know their order).
    pub floor_order: Option<usize>,
    pub out: BatchOutcome,
    /// Wall-clock nanoseconds the unit took (a measurement, not part of the deterministic result).
    pub nanos: u64,
}

pub type StudyPartial = Records<Entry>;

pub struct StudyJob {
    params: StudyParams,
    seed: u64,
    exact: BTreeMap<usize, ExactDist>,
    units: Vec<UnitPlan>,
}

/// One finished row of `latin_samplers.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct RowResult {
    pub order: usize,
    pub sampler: String,
    pub t: Option<u64>,
    pub k: Option<u64>,
    pub burn_in: Option<u64>,
    pub draws: u64,
    pub mean: f64,
    pub exact_mean: f64,
    pub tv: f64,
    pub floor_mean: f64,
    pub floor_p95: f64,
    pub floor_sims: u64,
    /// Draws per floor simulation: D for readers of independent draws; for the thinned reader
    /// (dependent draws within a chain) its batch-means effective sample size.
    pub floor_draws: u64,
    /// Batch-means effective sample size of the row (units are independent batches): D times
    /// the exact variance of one draw over the between-batch variance of batch means.
    pub ess: f64,
    pub chains_per_square: Option<f64>,
    pub moves_per_square: Option<f64>,
    pub wall_seconds: f64,
    pub hist: Histogram,
}

/// Batch-means effective sample size: Σ draws · σ² / s², with σ² the exact variance of one
/// draw and s² = Σ_b B_b (m_b − m)² / (nb − 1) the between-batch variance (independent batches
/// of B_b draws with means m_b). NaN with fewer than two batches.
pub fn batch_means_ess(batches: &[(f64, f64)], d: &ExactDist) -> f64 {
    let nb = batches.len();
    let total: f64 = batches.iter().map(|b| b.0).sum();
    if nb < 2 || total == 0.0 {
        return f64::NAN;
    }
    let m = batches.iter().map(|b| b.0 * b.1).sum::<f64>() / total;
    let s2 = batches.iter().map(|b| b.0 * (b.1 - m).powi(2)).sum::<f64>() / (nb as f64 - 1.0);
    let mu = d.mean();
    let var: f64 = d
        .probs()
        .iter()
        .enumerate()
        .map(|(k, &p)| p * (k as f64 - mu).powi(2))
        .sum();
    if s2 == 0.0 {
        return total;
    }
    total * var / s2
}

/// The 95th percentile by nearest rank: the ⌈0.95·R⌉-th smallest of R values.
pub fn p95(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let rank = ((0.95 * v.len() as f64).ceil() as usize).max(1);
    v[rank - 1]
}

impl StudyJob {
    /// Build the job. `census` maps each order to its exact (reduced-square) histogram.
    pub fn new(
        rows: Vec<RowSpec>,
        draws: u64,
        floor_sims: u64,
        batch: u64,
        seed: u64,
        census: &BTreeMap<usize, Histogram>,
    ) -> Result<Self> {
        if draws == 0 {
            return Err(input_error("--draws must be at least 1"));
        }
        if floor_sims == 0 {
            return Err(input_error("--floor-sims must be at least 1"));
        }
        if batch == 0 {
            return Err(input_error("--batch must be at least 1"));
        }
        if rows.is_empty() {
            return Err(input_error("the study has no rows"));
        }
        let mut exact = BTreeMap::new();
        let mut digests = BTreeMap::new();
        for row in &rows {
            let n = row.order;
            if !(MIN_ORDER..=MAX_ORDER).contains(&n) {
                return Err(input_error(format!(
                    "order {n} is outside the sampler study's orders {MIN_ORDER} to {MAX_ORDER}"
                )));
            }
            match &row.reader {
                Reader::WaitForProper { t, wait_cap } => {
                    if *t == 0 {
                        return Err(input_error("T = 0: a reader needs at least one move"));
                    }
                    if *wait_cap == 0 {
                        return Err(input_error("--wait-cap must be at least 1"));
                    }
                }
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
                }
                Reader::Naive | Reader::Exact => {}
            }
            if let std::collections::btree_map::Entry::Vacant(slot) = exact.entry(n) {
                let hist = census.get(&n).ok_or_else(|| {
                    input_error(format!(
                        "order {n} is missing from the census file: run `gridcensus latin census --orders {n}` first"
                    ))
                })?;
                slot.insert(ExactDist::new(hist)?);
                digests.insert(n, census_digest(hist));
            }
        }
        let mut units = Vec::new();
        for (i, _) in rows.iter().enumerate() {
            let mut left = draws;
            while left > 0 {
                let count = left.min(batch);
                units.push(UnitPlan::Row { row: i, count });
                left -= count;
            }
        }
        for &order in exact.keys() {
            for _ in 0..floor_sims {
                units.push(UnitPlan::Floor { order });
            }
        }
        Ok(StudyJob {
            params: StudyParams {
                rows,
                draws,
                floor_sims,
                batch,
                census: digests,
            },
            seed,
            exact,
            units,
        })
    }

    /// Rebuild a job from a spec (for `merge`), checking the census digests.
    pub fn from_spec(spec: &JobSpec, census: &BTreeMap<usize, Histogram>) -> Result<Self> {
        let p: StudyParams = serde_json::from_value(spec.params.clone())
            .map_err(|e| input_error(format!("latin-samplers partial with bad parameters: {e}")))?;
        let job = StudyJob::new(p.rows, p.draws, p.floor_sims, p.batch, spec.seed, census)?;
        if job.spec() != *spec {
            return Err(input_error(
                "latin-samplers partials were made with a different census file or version",
            ));
        }
        Ok(job)
    }

    pub fn params(&self) -> &StudyParams {
        &self.params
    }

    /// Turn the folded records into rows.
    pub fn finish(&self, total: StudyPartial) -> Result<Vec<RowResult>> {
        let p = &self.params;
        let mut acc: Vec<(BatchOutcome, u64)> = vec![(BatchOutcome::default(), 0); p.rows.len()];
        // Per row: (draws, mean intercalates) of each batch, for the batch-means ESS.
        let mut batches: Vec<Vec<(f64, f64)>> = vec![Vec::new(); p.rows.len()];
        let mut floors: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
        for e in total.0 {
            match (e.row, e.floor_order) {
                (Some(r), _) if r < acc.len() => {
                    let b = e.out.draws as f64;
                    let w: u128 = e
                        .out
                        .hist
                        .0
                        .iter()
                        .enumerate()
                        .map(|(k, &c)| k as u128 * c as u128)
                        .sum();
                    batches[r].push((b, w as f64 / b.max(1.0)));
                    let a = &mut acc[r];
                    crate::engine::Partial::merge(&mut a.0.hist, e.out.hist);
                    a.0.draws += e.out.draws;
                    a.0.chains += e.out.chains;
                    a.0.moves += e.out.moves;
                    a.1 += e.nanos;
                }
                (None, Some(order)) => {
                    let d = self
                        .exact
                        .get(&order)
                        .ok_or_else(|| anyhow::anyhow!("floor record of unknown order {order}"))?;
                    floors.entry(order).or_default().push(d.tv(&e.out.hist));
                }
                _ => anyhow::bail!("malformed latin-samplers record"),
            }
        }
        let mut out = Vec::new();
        for (i, row) in p.rows.iter().enumerate() {
            let (o, nanos) = &acc[i];
            if o.draws != p.draws {
                anyhow::bail!("row {i}: {} draws, expected {}", o.draws, p.draws);
            }
            let d = &self.exact[&row.order];
            let mut fl = floors.get(&row.order).cloned().unwrap_or_default();
            if fl.len() as u64 != p.floor_sims {
                anyhow::bail!("order {}: {} floor simulations", row.order, fl.len());
            }
            let ess = batch_means_ess(&batches[i], d);
            let mut floor_draws = p.draws;
            if matches!(row.reader, Reader::Thinned { .. }) {
                // The thinned reader's draws are dependent: its own floor, R simulations of
                // ESS perfect draws (from a stream of its own, fixed by seed and row).
                floor_draws = (ess.round() as u64).clamp(1, p.draws);
                let mut rng = crate::engine::seed::unit_rng(self.seed, u64::MAX - i as u64);
                fl = (0..p.floor_sims)
                    .map(|_| {
                        let mut h = Histogram::default();
                        for _ in 0..floor_draws {
                            h.add(d.sample(&mut rng), 1);
                        }
                        d.tv(&h)
                    })
                    .collect();
            }
            let weighted: u128 = o
                .hist
                .0
                .iter()
                .enumerate()
                .map(|(k, &c)| k as u128 * c as u128)
                .sum();
            let jm = matches!(
                row.reader,
                Reader::WaitForProper { .. } | Reader::FixedTime { .. } | Reader::Thinned { .. }
            );
            let (t, k, burn_in) = match &row.reader {
                Reader::WaitForProper { t, .. } | Reader::FixedTime { t, .. } => {
                    (Some(*t), None, None)
                }
                Reader::Thinned { k, burn_in, .. } => (None, Some(*k), Some(*burn_in)),
                _ => (None, None, None),
            };
            out.push(RowResult {
                order: row.order,
                sampler: row.reader.name().to_string(),
                t,
                k,
                burn_in,
                draws: o.draws,
                mean: weighted as f64 / o.draws as f64,
                exact_mean: d.mean(),
                tv: d.tv(&o.hist),
                floor_mean: fl.iter().sum::<f64>() / fl.len() as f64,
                floor_p95: p95(&fl),
                floor_sims: fl.len() as u64,
                floor_draws,
                ess,
                chains_per_square: jm.then(|| o.chains as f64 / o.draws as f64),
                moves_per_square: jm.then(|| o.moves as f64 / o.draws as f64),
                wall_seconds: *nanos as f64 * 1e-9,
                hist: o.hist.clone(),
            });
        }
        Ok(out)
    }
}

impl Job for StudyJob {
    type Partial = StudyPartial;

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

    fn run_unit(&self, unit: Unit) -> Result<StudyPartial> {
        let start = std::time::Instant::now();
        let mut rng = unit.rng();
        let entry = match &self.units[unit.index as usize] {
            UnitPlan::Row { row, count } => {
                let spec = &self.params.rows[*row];
                let d = &self.exact[&spec.order];
                let out = draw_batch(&spec.reader, spec.order, d, *count, &mut rng)?;
                Entry {
                    row: Some(*row),
                    floor_order: None,
                    out,
                    nanos: 0,
                }
            }
            UnitPlan::Floor { order } => {
                let d = &self.exact[order];
                let out = draw_batch(&Reader::Exact, *order, d, self.params.draws, &mut rng)?;
                Entry {
                    row: None,
                    floor_order: Some(*order),
                    out,
                    nanos: 0,
                }
            }
        };
        let mut entry = entry;
        entry.nanos = start.elapsed().as_nanos() as u64;
        Ok(Records(vec![entry]))
    }

    fn label(&self) -> String {
        format!("latin samplers ({} rows)", self.params.rows.len())
    }
}

/// The CSV columns of `latin_samplers.csv`, in order.
pub const CSV_COLUMNS: [&str; 18] = [
    "order",
    "sampler",
    "t",
    "k",
    "burn_in",
    "draws",
    "mean_intercalates",
    "exact_mean",
    "tv",
    "floor_mean",
    "floor_p95",
    "floor_sims",
    "within_floor",
    "floor_draws",
    "ess",
    "chains_per_square",
    "moves_per_square",
    "histogram",
];

/// The columns of `latin_samplers_timing.csv`: wall-clock seconds are a measurement, not a
/// result, so they live beside the deterministic CSV rather than in it.
pub const TIMING_COLUMNS: [&str; 5] = ["order", "sampler", "t", "k", "wall_seconds"];

/// Bytes of `latin_samplers_timing.csv` (summed wall-clock time of each row's work units).
pub fn timing_csv(rows: &[RowResult]) -> Vec<u8> {
    let opt = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_default();
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(TIMING_COLUMNS).unwrap();
    for r in rows {
        w.write_record([
            r.order.to_string(),
            r.sampler.clone(),
            opt(r.t),
            opt(r.k),
            format!("{:.3}", r.wall_seconds),
        ])
        .unwrap();
    }
    w.into_inner().expect("in-memory writer")
}

/// Bytes of `latin_samplers.csv`.
pub fn rows_csv(rows: &[RowResult]) -> Vec<u8> {
    let opt = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_default();
    let optf = |v: Option<f64>, d: usize| v.map(|x| format!("{x:.d$}")).unwrap_or_default();
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(CSV_COLUMNS).unwrap();
    for r in rows {
        let hist: Vec<String> = r
            .hist
            .0
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .map(|(k, &c)| format!("{k}:{c}"))
            .collect();
        w.write_record([
            r.order.to_string(),
            r.sampler.clone(),
            opt(r.t),
            opt(r.k),
            opt(r.burn_in),
            r.draws.to_string(),
            format!("{:.4}", r.mean),
            format!("{:.4}", r.exact_mean),
            format!("{:.5}", r.tv),
            format!("{:.5}", r.floor_mean),
            format!("{:.5}", r.floor_p95),
            r.floor_sims.to_string(),
            (r.tv <= r.floor_p95).to_string(),
            r.floor_draws.to_string(),
            if r.ess.is_finite() {
                format!("{:.0}", r.ess)
            } else {
                String::new()
            },
            optf(r.chains_per_square, 3),
            optf(r.moves_per_square, 1),
            hist.join(" "),
        ])
        .unwrap();
    }
    w.into_inner().expect("in-memory writer")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p95_is_the_nearest_rank() {
        let v: Vec<f64> = (1..=40).rev().map(f64::from).collect();
        assert_eq!(p95(&v), 38.0);
        assert_eq!(p95(&[3.0]), 3.0);
        assert_eq!(p95(&(1..=100).map(f64::from).collect::<Vec<_>>()), 95.0);
    }

    #[test]
    fn units_cover_every_draw_and_floor_simulation() {
        let census: BTreeMap<usize, Histogram> =
            [(4, Histogram(vec![0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1]))].into();
        let rows = vec![
            RowSpec {
                order: 4,
                reader: Reader::Naive,
            },
            RowSpec {
                order: 4,
                reader: Reader::Exact,
            },
        ];
        let job = StudyJob::new(rows, 250, 3, 100, 1, &census).unwrap();
        // 3 + 3 row units (100, 100, 50 draws) and 3 floor simulations.
        assert_eq!(job.unit_count(), 9);
        let total = crate::engine::run::run_simple(&job, Some(2)).unwrap();
        let rows = job.finish(total).unwrap();
        assert_eq!(rows.len(), 2);
        assert!(rows.iter().all(|r| r.draws == 250 && r.hist.total() == 250));
        assert_eq!(rows[0].floor_sims, 3);
        assert_eq!(rows[0].exact_mean, 6.0);
        // A changed census is a different job.
        let other: BTreeMap<usize, Histogram> =
            [(4, Histogram(vec![0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1]))].into();
        assert!(StudyJob::from_spec(&job.spec(), &other).is_err());
        assert!(StudyJob::from_spec(&job.spec(), &census).is_ok());
    }
}
