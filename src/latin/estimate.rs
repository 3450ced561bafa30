//! `gridcensus latin estimate`: the census by sampled work units, for orders the exact census
//! cannot reach on one machine.
//!
//! The census (see [`super::census`]) writes the reduced-square histogram as
//! `hist[k] = Σ_types N(type) · C_k(type) / (n − 1)`, where `C_k(type)` counts the sorted
//! completions with k intercalates of the rectangle (identity, representative of the cycle type).
//! Those completions form a tree: each level fixes the next row, chosen among the compatible rows
//! that start with the smallest symbol missing from column 0 (the level's *group*).
//!
//! A sampled unit is a random descent of `depth` levels in the tree of one type (Knuth's
//! estimator): at each level one row of the group is chosen uniformly, and the weight is the
//! product of the group sizes met. The subtree below is then counted exactly by the
//! independent kernel [`super::wide`]. Weight × subtree histogram is an unbiased estimate of
//! `C_k(type)` for every k at once (each subtree's selection probability is 1/weight).
//!
//! The design is stratified by the cycle type of row 1: the K units of a replicate are split over
//! the types in proportion to N(type) (at least two per type, largest remainders), each type's
//! mean is its estimate, and the standard error comes from the within-type sample variances.
//! Ratios (mean intercalates, variance, share without intercalates) are estimated as ratios of
//! the estimated totals, with delta-method (linearised) standard errors. Every unit's draw comes
//! from the engine's (seed, unit index) stream, so the result is byte-identical at any thread or
//! shard count.
//!
//! With `replicates` R > 1 the job runs R independent replicates (units R·K) at once; the
//! coverage study uses this to check the intervals' nominal rate against the exact census.

use super::census::cycle_classes;
use super::wide::{Row, WIDE_MAX_ORDER, compatible_rows, count_completions, next_first_symbol};
use crate::engine::{Job, JobSpec, Records, Unit};
use crate::error::input_error;
use anyhow::Result;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// Smallest order the estimator accepts.
pub const MIN_ORDER: usize = 4;
/// Largest order the estimator accepts.
pub const MAX_ORDER: usize = WIDE_MAX_ORDER;

/// Default number of randomly fixed rows (after rows 0 and 1) before the exact count, chosen so
/// that one unit costs milliseconds on one core.
pub fn default_depth(n: usize) -> usize {
    match n {
        0..=6 => 1,
        7 => 1,
        8 => 2,
        9 => 3,
        10 => 5,
        _ => 6,
    }
}

/// One sampled unit: its stratum (cycle type index), the group sizes met on the way down
/// (their product is the unit's weight; a 0 means a dead end) and the exact histogram of the
/// subtree it reached.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnitDraw {
    pub stratum: u32,
    pub groups: Vec<u64>,
    pub counts: Vec<u64>,
}

impl UnitDraw {
    pub fn weight(&self) -> f64 {
        self.groups.iter().map(|&g| g as f64).product()
    }
}

/// The sampled-unit census of one order.
pub struct EstimateJob {
    order: usize,
    depth: usize,
    units: u64,
    replicates: u64,
    seed: u64,
    /// Rows 0 and 1 of each stratum.
    starts: Vec<[Row; 2]>,
    /// Derangements per stratum.
    weights: Vec<u64>,
    /// Units per stratum in one replicate, and their cumulative starts.
    alloc: Vec<u64>,
}

/// Split `k` units over strata in proportion to `w`, at least two each (largest remainders).
pub fn allocate(k: u64, w: &[u64]) -> Vec<u64> {
    let m = w.len() as u64;
    let spare = k - 2 * m;
    let total: u128 = w.iter().map(|&x| x as u128).sum();
    let mut alloc: Vec<u64> = w
        .iter()
        .map(|&x| 2 + (spare as u128 * x as u128 / total) as u64)
        .collect();
    let mut rem: Vec<(u128, usize)> = w
        .iter()
        .enumerate()
        .map(|(i, &x)| ((spare as u128 * x as u128) % total, i))
        .collect();
    rem.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let given: u64 = alloc.iter().sum();
    for &(_, i) in rem.iter().take((k - given) as usize) {
        alloc[i] += 1;
    }
    alloc
}

impl EstimateJob {
    pub fn new(order: usize, depth: usize, units: u64, replicates: u64, seed: u64) -> Result<Self> {
        if !(MIN_ORDER..=MAX_ORDER).contains(&order) {
            return Err(input_error(format!(
                "--orders {order} is out of range: the estimate covers orders {MIN_ORDER} to {MAX_ORDER}"
            )));
        }
        if depth > order - 2 {
            return Err(input_error(format!(
                "--depth {depth} is out of range at order {order} (0 to {})",
                order - 2
            )));
        }
        if replicates == 0 {
            return Err(input_error("--replicates must be at least 1"));
        }
        let classes = cycle_classes(order);
        if units < 2 * classes.len() as u64 {
            return Err(input_error(format!(
                "--units {units} is too small at order {order}: at least two per row-1 cycle type ({} types), so at least {}",
                classes.len(),
                2 * classes.len()
            )));
        }
        let id: Vec<u8> = (0..order as u8).collect();
        let r0 = Row::new(order, &id);
        let starts = classes
            .iter()
            .map(|c| [r0, Row::new(order, &c.representative)])
            .collect();
        let weights: Vec<u64> = classes.iter().map(|c| c.derangements).collect();
        let alloc = allocate(units, &weights);
        Ok(EstimateJob {
            order,
            depth,
            units,
            replicates,
            seed,
            starts,
            weights,
            alloc,
        })
    }

    pub fn order(&self) -> usize {
        self.order
    }
    pub fn depth(&self) -> usize {
        self.depth
    }
    pub fn units(&self) -> u64 {
        self.units
    }
    pub fn replicates(&self) -> u64 {
        self.replicates
    }
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Stratum of the j-th unit of a replicate.
    fn stratum_of(&self, j: u64) -> usize {
        let mut acc = 0;
        for (t, &a) in self.alloc.iter().enumerate() {
            acc += a;
            if j < acc {
                return t;
            }
        }
        unreachable!("unit index within the replicate")
    }

    /// Combine the draws of one replicate (in unit order) into estimates.
    pub fn combine(&self, draws: &[UnitDraw]) -> Estimate {
        combine(self.order, &self.weights, draws)
    }
}

impl Job for EstimateJob {
    type Partial = Records<UnitDraw>;

    fn spec(&self) -> JobSpec {
        JobSpec::new(
            "latin-estimate",
            serde_json::json!({
                "order": self.order,
                "depth": self.depth,
                "units": self.units,
                "replicates": self.replicates,
            }),
            self.seed,
        )
    }

    fn unit_count(&self) -> u64 {
        self.units * self.replicates
    }

    fn run_unit(&self, unit: Unit) -> Result<Records<UnitDraw>> {
        let n = self.order;
        let t = self.stratum_of(unit.index % self.units);
        let mut rng = unit.rng();
        let mut fixed: Vec<Row> = self.starts[t].to_vec();
        let mut groups = Vec::with_capacity(self.depth);
        for _ in 0..self.depth {
            let f = next_first_symbol(n, &fixed).expect("a row is still missing");
            let group = compatible_rows(n, &fixed, Some(f));
            groups.push(group.len() as u64);
            if group.is_empty() {
                return Ok(Records(vec![UnitDraw {
                    stratum: t as u32,
                    groups,
                    counts: Vec::new(),
                }]));
            }
            fixed.push(group[rng.random_range(0..group.len())]);
        }
        let mut counts = count_completions(n, &fixed);
        while counts.last() == Some(&0) {
            counts.pop();
        }
        Ok(Records(vec![UnitDraw {
            stratum: t as u32,
            groups,
            counts,
        }]))
    }

    fn label(&self) -> String {
        format!("latin estimate n={}", self.order)
    }
}

/// A figure with its standard error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Est {
    pub value: f64,
    pub se: f64,
}

impl Est {
    /// Does `value ± z·se` contain `x`?
    pub fn covers(&self, x: f64, z: f64) -> bool {
        (self.value - x).abs() <= z * self.se
    }
}

/// Two-sided normal quantiles of the 95% and 99% intervals.
pub const Z95: f64 = 1.959_963_984_540_054;
pub const Z99: f64 = 2.575_829_303_548_901;

/// The estimates of one replicate.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    pub reduced: Est,
    pub hist: Vec<Est>,
    pub mean: Est,
    pub variance: Est,
    pub share_without: Est,
    /// Largest intercalate count met in any counted subtree.
    pub max_seen: usize,
    pub units: usize,
}

/// Stratified estimates: `draws` may come in any stratum order; `weights[t]` = N(type t).
pub fn combine(n: usize, weights: &[u64], draws: &[UnitDraw]) -> Estimate {
    let kmax = draws
        .iter()
        .map(|d| d.counts.len())
        .max()
        .unwrap_or(1)
        .max(1);
    let scale = 1.0 / (n as f64 - 1.0);
    // Per-unit vectors: x[k] = weight·count[k].
    let per_unit = |d: &UnitDraw| -> Vec<f64> {
        let w = d.weight();
        let mut x = vec![0.0; kmax];
        for (k, &c) in d.counts.iter().enumerate() {
            x[k] = w * c as f64;
        }
        x
    };
    let strata = weights.len();
    let mut by: Vec<Vec<Vec<f64>>> = vec![Vec::new(); strata];
    for d in draws {
        by[d.stratum as usize].push(per_unit(d));
    }
    // Totals T[k] = Σ_t N_t·mean_t[k]·scale.
    let mut total = vec![0.0; kmax];
    for (t, xs) in by.iter().enumerate() {
        let m = xs.len() as f64;
        for x in xs {
            for k in 0..kmax {
                total[k] += weights[t] as f64 * scale * x[k] / m;
            }
        }
    }
    // Standard error of Σ_t N_t·scale·mean_t(z) for a per-unit linear statistic z.
    let se_of = |z: &dyn Fn(&[f64]) -> f64| -> f64 {
        let mut var = 0.0;
        for (t, xs) in by.iter().enumerate() {
            let m = xs.len() as f64;
            if xs.len() < 2 {
                continue;
            }
            let zs: Vec<f64> = xs.iter().map(|x| z(x)).collect();
            let mu = zs.iter().sum::<f64>() / m;
            let s2 = zs.iter().map(|v| (v - mu).powi(2)).sum::<f64>() / (m - 1.0);
            let c = weights[t] as f64 * scale;
            var += c * c * s2 / m;
        }
        var.sqrt()
    };
    let b = total.iter().sum::<f64>();
    let a: f64 = total.iter().enumerate().map(|(k, v)| k as f64 * v).sum();
    let c2: f64 = total
        .iter()
        .enumerate()
        .map(|(k, v)| (k * k) as f64 * v)
        .sum();
    let mu = a / b;
    let var = c2 / b - mu * mu;
    let p0 = total[0] / b;
    let sum = |x: &[f64]| x.iter().sum::<f64>();
    let first = |x: &[f64]| x.iter().enumerate().map(|(k, v)| k as f64 * v).sum::<f64>();
    let second = |x: &[f64]| {
        x.iter()
            .enumerate()
            .map(|(k, v)| (k * k) as f64 * v)
            .sum::<f64>()
    };
    let hist = (0..kmax)
        .map(|k| Est {
            value: total[k],
            se: se_of(&|x: &[f64]| x[k]),
        })
        .collect();
    Estimate {
        hist,
        reduced: Est {
            value: b,
            se: se_of(&sum),
        },
        mean: Est {
            value: mu,
            se: se_of(&|x: &[f64]| first(x) - mu * sum(x)) / b,
        },
        variance: Est {
            value: var,
            se: se_of(&|x: &[f64]| second(x) - 2.0 * mu * first(x) + (mu * mu - var) * sum(x)) / b,
        },
        share_without: Est {
            value: p0,
            se: se_of(&|x: &[f64]| x[0] - p0 * sum(x)) / b,
        },
        max_seen: draws
            .iter()
            .filter_map(|d| d.counts.iter().rposition(|&c| c > 0))
            .max()
            .unwrap_or(0),
        units: draws.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocation_is_proportional_with_a_floor() {
        let a = allocate(100, &[1, 1, 98]);
        assert_eq!(a.iter().sum::<u64>(), 100);
        assert!(a[0] >= 2 && a[1] >= 2 && a[2] > 90);
        assert_eq!(allocate(6, &[5, 7, 9]), vec![2, 2, 2]);
    }
}
