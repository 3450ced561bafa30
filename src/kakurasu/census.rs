//! The census of Kakurasu target vectors: for each n, over all 2^(n²) shadings, how many distinct
//! target vectors (row targets, column targets) occur, how many of them have exactly one shading
//! (uniquely solvable boards), and the largest number of shadings sharing one vector. The result
//! is the full *fibre-size histogram*: `h[k]` = number of target vectors with exactly k shadings,
//! so that Σ h\[k\] is the number of distinct vectors, h\[1\] the unique ones, the top index the
//! largest fibre, and Σ k·h\[k\] = 2^(n²) is a built-in completeness check.
//!
//! # Method (no shading is hashed)
//!
//! A shading is a row-by-row choice: row i picks a subset s_i of the columns with Σ_{j∈s_i} j = r_i,
//! and contributes i·[j ∈ s_i] to column j. So fix the row-target vector r (a *group*): its
//! shadings are the product S(r_1) × ... × S(r_n), and the fibre sizes within the group are the
//! multiplicities of the column vectors c = Σ_i i·χ(s_i) over that product.
//!
//! * **Row-by-row DP over column sums.** The partial column-sum vectors of rows 1..k (packed six
//!   bits per column) with exact multiplicities form a sorted map M_k; M_{k+1} is M_k plus
//!   (k+1)·χ(s) for every s in S(r_{k+1}), merged. Groups sharing a prefix r_1..r_k share M_k
//!   (depth-first over r), so every layer but the last is cheap.
//! * **The last row, densely.** Adding n·χ(s) to a partial vector p (p_j ≤ n(n−1)/2) gives
//!   c_j = n·(q_j + s_j) + ρ_j with p_j = n·q_j + ρ_j, 0 ≤ ρ_j < n. So c determines ρ and q + s,
//!   collisions happen only within one residue class ρ, and q + s has digits at most
//!   ⌊(n−1)/2⌋ + 1: within a class the column vectors index a dense array of b^n counters
//!   (b = ⌊(n−1)/2⌋ + 2; 4096 for n = 6) by plain addition of base-b codes, no hashing.
//!   Scanning the touched counters gives the group's fibre sizes for each last-row target.
//! * **Complement symmetry.** Shading ↔ its complement maps r ↦ T − r and c ↦ T − c
//!   (T = n(n+1)/2) and preserves fibre sizes, so only groups with r ≤ T − r (lexicographically)
//!   are computed, those with r < T − r counted twice.
//! * **Work units** are the prefixes (r_1, ..., r_L) of the row-target vector (L = 3 for n ≥ 6),
//!   one unit per prefix; each unit runs the DP for every group extending its prefix.

use crate::engine::{Histogram, Job, JobSpec, Unit};
use crate::error::input_error;
use anyhow::Result;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Largest n the census command accepts (n = 7 is 2^49 shadings: a very long run).
pub const MAX_CENSUS_N: usize = 7;

pub const CENSUS_FILE: &str = "kakurasu_census.csv";
pub const FIBRES_FILE: &str = "kakurasu_census_fibres.csv";

const BITS: u32 = 6;

/// The census of one n, as an engine job.
pub struct CensusJob {
    n: usize,
    t_max: usize,
    prefix: usize,
    /// Subsets of the columns by weight sum.
    by_sum: Vec<Vec<u16>>,
    /// Σ_{j∈s} 1 << 6j: multiply by a row weight to add that row's contribution.
    spread: Vec<u64>,
    /// Final layer: residue and quotient codes of a packed column value, per column.
    base: u64,
    /// Base-b codes of the subsets, by weight sum (the last row's additions).
    enc_by_sum: Vec<Vec<u64>>,
}

impl CensusJob {
    pub fn new(n: usize) -> Result<Self> {
        if n == 0 || n > MAX_CENSUS_N {
            return Err(input_error(format!(
                "census size {n} is out of range: the census covers n = 1 to {MAX_CENSUS_N}"
            )));
        }
        let t_max = n * (n + 1) / 2;
        let mut by_sum = vec![Vec::new(); t_max + 1];
        let mut spread = Vec::with_capacity(1 << n);
        for s in 0u16..(1 << n) {
            let w: usize = (0..n).filter(|j| s >> j & 1 == 1).map(|j| j + 1).sum();
            by_sum[w].push(s);
            spread.push(
                (0..n)
                    .filter(|j| s >> j & 1 == 1)
                    .map(|j| 1u64 << (BITS * j as u32))
                    .sum(),
            );
        }
        let base = ((n - 1) / 2 + 2) as u64;
        let enc_by_sum = by_sum
            .iter()
            .map(|subs| {
                subs.iter()
                    .map(|&s| {
                        (0..n)
                            .filter(|j| s >> j & 1 == 1)
                            .map(|j| base.pow(j as u32))
                            .sum()
                    })
                    .collect()
            })
            .collect();
        let prefix = if n >= 6 { 3 } else { (n - 1).min(2) };
        Ok(CensusJob {
            n,
            t_max,
            prefix,
            by_sum,
            spread,
            base,
            enc_by_sum,
        })
    }

    pub fn n(&self) -> usize {
        self.n
    }

    /// Digits of unit `u`: the row targets r_1..r_L (r_1 most significant).
    fn prefix_of(&self, u: u64) -> Vec<usize> {
        let b = (self.t_max + 1) as u64;
        let mut d = vec![0usize; self.prefix];
        let mut x = u;
        for k in (0..self.prefix).rev() {
            d[k] = (x % b) as usize;
            x /= b;
        }
        d
    }

    /// M_{k+1} from M_k: add (k+1)·χ(s) for s in S(t), merge equal keys.
    fn extend(&self, map: &[(u64, u64)], k: usize, t: usize, out: &mut Vec<(u64, u64)>) {
        out.clear();
        let w = (k + 1) as u64;
        let subs = &self.by_sum[t];
        out.reserve(map.len() * subs.len());
        for &(key, cnt) in map {
            for &s in subs {
                out.push((key + w * self.spread[s as usize], cnt));
            }
        }
        out.sort_unstable_by_key(|e| e.0);
        let mut m = 0;
        for i in 0..out.len() {
            if m > 0 && out[m - 1].0 == out[i].0 {
                out[m - 1].1 += out[i].1;
            } else {
                out[m] = out[i];
                m += 1;
            }
        }
        out.truncate(m);
    }

    /// Depth-first over the remaining row targets. `eq`: the prefix equals its complement so far.
    fn dfs(
        &self,
        k: usize,
        map: &[(u64, u64)],
        eq: bool,
        scratch: &mut Scratch,
        hist: &mut Vec<u64>,
    ) {
        if k == self.n - 1 {
            self.last_row(map, eq, scratch, hist);
            return;
        }
        let mut next = Vec::new();
        for t in 0..=self.t_max {
            let ct = self.t_max - t;
            if eq && t > ct {
                continue;
            }
            self.extend(map, k, t, &mut next);
            self.dfs(k + 1, &next, eq && t == ct, scratch, hist);
        }
    }

    /// The last row, for every last-row target at once per residue class.
    fn last_row(&self, map: &[(u64, u64)], eq: bool, sc: &mut Scratch, hist: &mut Vec<u64>) {
        let n = self.n;
        let nn = n as u64;
        // (residue code, quotient code, count), sorted by residue code.
        sc.coded.clear();
        for &(key, cnt) in map {
            let (mut r, mut q) = (0u64, 0u64);
            let (mut rp, mut qp) = (1u64, 1u64);
            for j in 0..n {
                let v = (key >> (BITS * j as u32)) & 63;
                r += (v % nn) * rp;
                q += (v / nn) * qp;
                rp *= nn;
                qp *= self.base;
            }
            sc.coded.push((r, q, cnt));
        }
        sc.coded.sort_unstable_by_key(|e| e.0);
        let coded = std::mem::take(&mut sc.coded);
        let mut start = 0;
        while start < coded.len() {
            let mut end = start + 1;
            while end < coded.len() && coded[end].0 == coded[start].0 {
                end += 1;
            }
            let block = &coded[start..end];
            for t in 0..=self.t_max {
                let ct = self.t_max - t;
                // Complement symmetry: r < T − r counts twice, r = T − r once, r > T − r never.
                let weight = if !eq || t < ct {
                    2
                } else if t == ct {
                    1
                } else {
                    continue;
                };
                let encs = &self.enc_by_sum[t];
                for &(_, q, cnt) in block {
                    for &e in encs {
                        let idx = (q + e) as usize;
                        if sc.dense[idx] == 0 {
                            sc.touched.push(idx as u32);
                        }
                        sc.dense[idx] += cnt;
                    }
                }
                for &idx in &sc.touched {
                    let m = sc.dense[idx as usize] as usize;
                    if hist.len() <= m {
                        hist.resize(m + 1, 0);
                    }
                    hist[m] += weight;
                    sc.dense[idx as usize] = 0;
                }
                sc.touched.clear();
            }
            start = end;
        }
        sc.coded = coded;
    }
}

struct Scratch {
    dense: Vec<u64>,
    touched: Vec<u32>,
    coded: Vec<(u64, u64, u64)>,
}

impl Job for CensusJob {
    type Partial = Histogram;

    fn spec(&self) -> JobSpec {
        JobSpec::new(
            "kakurasu-census",
            serde_json::json!({"n": self.n, "prefix_rows": self.prefix, "method": "row-dp-residue-v1"}),
            0,
        )
    }

    fn unit_count(&self) -> u64 {
        ((self.t_max + 1) as u64).pow(self.prefix as u32)
    }

    fn run_unit(&self, unit: Unit) -> Result<Histogram> {
        let pre = self.prefix_of(unit.index);
        // Complement pruning on the prefix.
        let mut eq = true;
        for &t in &pre {
            let ct = self.t_max - t;
            if eq && t > ct {
                return Ok(Histogram::default());
            }
            eq = eq && t == ct;
        }
        let mut map = vec![(0u64, 1u64)];
        let mut next = Vec::new();
        for (k, &t) in pre.iter().enumerate() {
            self.extend(&map, k, t, &mut next);
            std::mem::swap(&mut map, &mut next);
        }
        let mut sc = Scratch {
            dense: vec![0; (self.base as usize).pow(self.n as u32)],
            touched: Vec::new(),
            coded: Vec::new(),
        };
        let mut hist = Vec::new();
        self.dfs(self.prefix, &map, eq, &mut sc, &mut hist);
        Ok(Histogram(hist))
    }

    fn label(&self) -> String {
        format!("kakurasu census n={}", self.n)
    }
}

/// Direct brute force (tests, n ≤ 4): every shading's targets into a hash map.
pub fn brute_force(n: usize) -> Histogram {
    assert!(n <= 4, "brute force is for n ≤ 4");
    let mut fib: HashMap<(Vec<u32>, Vec<u32>), u64> = HashMap::new();
    for m in 0u64..(1u64 << (n * n)) {
        let mut rows = vec![0u32; n];
        let mut cols = vec![0u32; n];
        for i in 0..n {
            for j in 0..n {
                if m >> (i * n + j) & 1 == 1 {
                    rows[i] += j as u32 + 1;
                    cols[j] += i as u32 + 1;
                }
            }
        }
        *fib.entry((rows, cols)).or_default() += 1;
    }
    let mut h = Histogram::default();
    for (_, k) in fib {
        h.add(k as usize, 1);
    }
    h
}

/// Summary figures of one n.
#[derive(Clone, Debug, PartialEq)]
pub struct CensusSummary {
    pub n: usize,
    pub shadings: u128,
    pub target_vectors: u128,
    pub unique_vectors: u128,
    pub ambiguous_vectors: u128,
    pub max_fibre: usize,
}

impl CensusSummary {
    pub fn of(n: usize, h: &Histogram) -> CensusSummary {
        let target_vectors = h.total();
        let unique = h.0.get(1).copied().unwrap_or(0) as u128;
        CensusSummary {
            n,
            shadings: h
                .0
                .iter()
                .enumerate()
                .map(|(k, &c)| k as u128 * c as u128)
                .sum(),
            target_vectors,
            unique_vectors: unique,
            ambiguous_vectors: target_vectors - unique,
            max_fibre: h.0.iter().rposition(|&c| c > 0).unwrap_or(0),
        }
    }
    /// Share of target vectors that are uniquely solvable.
    pub fn unique_share(&self) -> f64 {
        self.unique_vectors as f64 / self.target_vectors as f64
    }
    /// Share of all shadings that are the unique solution of their targets.
    pub fn unique_share_of_shadings(&self) -> f64 {
        self.unique_vectors as f64 / self.shadings as f64
    }
}

pub type CensusTable = BTreeMap<usize, Histogram>;

/// Read the fibre histogram file; missing = empty, malformed = `InputError`.
pub fn read_fibres(path: &Path) -> Result<CensusTable> {
    crate::engine::table::read_histograms(path, &FIBRES_COLUMNS)
}

pub fn fibres_csv(table: &CensusTable) -> Vec<u8> {
    crate::engine::table::histograms_csv(&FIBRES_COLUMNS, table)
}

/// Columns of `kakurasu_census_fibres.csv`.
pub const FIBRES_COLUMNS: [&str; 3] = ["n", "shadings_per_vector", "target_vectors"];

pub const CENSUS_COLUMNS: [&str; 8] = [
    "n",
    "shadings",
    "target_vectors",
    "unique_vectors",
    "unique_share",
    "ambiguous_vectors",
    "max_shadings_per_vector",
    "unique_share_of_shadings",
];

pub fn census_csv(table: &CensusTable) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(CENSUS_COLUMNS).unwrap();
    for (&n, h) in table {
        let s = CensusSummary::of(n, h);
        w.write_record([
            n.to_string(),
            s.shadings.to_string(),
            s.target_vectors.to_string(),
            s.unique_vectors.to_string(),
            format!("{:.9}", s.unique_share()),
            s.ambiguous_vectors.to_string(),
            s.max_fibre.to_string(),
            format!("{:.9}", s.unique_share_of_shadings()),
        ])
        .unwrap();
    }
    w.into_inner().expect("in-memory writer")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run::run_simple;

    #[test]
    fn dp_equals_brute_force_small() {
        for n in 1..=4 {
            let job = CensusJob::new(n).unwrap();
            let h = run_simple(&job, Some(2)).unwrap();
            assert_eq!(h, brute_force(n), "n = {n}");
        }
    }
}
