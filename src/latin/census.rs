//! The exact census of reduced Latin squares by intercalate count, as an engine job.
//!
//! Symmetry reduction. Every Latin square is a row-and-column permutation of exactly one reduced
//! square in n!(n−1)! ways, and intercalate counts are invariant under row, column and symbol
//! permutations, so the reduced histogram is the histogram over all squares (scaled).
//! Count squares whose first row is the identity instead: there are (n−1)!·R(n) of them. Their
//! second row is a derangement d; the number of completions with a given d (and their intercalate
//! histogram) depends only on the cycle type of d, because conjugating by a permutation π
//! (relabel symbols by π, permute columns by π) fixes the identity row and maps d to π d π⁻¹.
//! Rows 3..n can be put in any order, so count only completions whose rows 3..n are sorted by
//! first-column symbol, and multiply by (n−2)!. Hence
//!
//!   hist_R[k] = Σ_types N(type) · C_k(rep(type)) / (n − 1)
//!
//! where N(type) is the number of derangements of that cycle type and C_k counts sorted
//! completions with k intercalates. Units are (type, third row): every valid third row of every
//! type's representative, weighted by N(type); the division by n − 1 happens once, on the total.

use crate::engine::{Histogram, Job, JobSpec, Unit};
use crate::error::input_error;
use anyhow::Result;

/// Largest order the census accepts.
pub const MAX_ORDER: usize = 8;

/// One work unit: a cycle-type representative for row 2 and one valid row 3.
#[derive(Clone, Debug)]
struct UnitPlan {
    type_index: usize,
    row3: Vec<u8>,
}

/// A cycle type of derangements: its representative second row and how many derangements share it.
#[derive(Clone, Debug)]
pub struct CycleClass {
    pub cycle_lengths: Vec<usize>,
    pub representative: Vec<u8>,
    pub derangements: u64,
}

/// The census of one order.
pub struct CensusJob {
    order: usize,
    classes: Vec<CycleClass>,
    units: Vec<UnitPlan>,
}

/// Partitions of n into parts ≥ 2, non-increasing.
fn partitions_no_ones(n: usize, max: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    if n == 0 {
        out.push(cur.clone());
        return;
    }
    for p in (2..=max.min(n)).rev() {
        cur.push(p);
        partitions_no_ones(n - p, p, cur, out);
        cur.pop();
    }
}

fn factorial(n: usize) -> u64 {
    (1..=n as u64).product()
}

/// Number of permutations of n with the given cycle lengths: n! / Π(l^{m_l} · m_l!).
fn class_size(n: usize, lengths: &[usize]) -> u64 {
    let mut denom: u128 = 1;
    let mut i = 0;
    while i < lengths.len() {
        let l = lengths[i];
        let m = lengths.iter().filter(|&&x| x == l).count();
        denom *= (l as u128).pow(m as u32) * factorial(m) as u128;
        i += m;
    }
    (factorial(n) as u128 / denom) as u64
}

/// The cycle classes of derangements of n, each with a representative (consecutive cycles).
pub fn cycle_classes(n: usize) -> Vec<CycleClass> {
    let mut parts = Vec::new();
    partitions_no_ones(n, n, &mut Vec::new(), &mut parts);
    parts
        .into_iter()
        .map(|lengths| {
            let mut rep = vec![0u8; n];
            let mut start = 0;
            for &l in &lengths {
                for j in 0..l {
                    rep[start + j] = (start + (j + 1) % l) as u8;
                }
                start += l;
            }
            let derangements = class_size(n, &lengths);
            CycleClass {
                cycle_lengths: lengths,
                representative: rep,
                derangements,
            }
        })
        .collect()
}

/// Every row that can follow `rows` (Latin in columns, a permutation) with first symbol `first`.
fn next_rows(n: usize, rows: &[Vec<u8>], first: u8) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut row = vec![0u8; n];
    row[0] = first;
    fn rec(
        n: usize,
        c: usize,
        used: u32,
        rows: &[Vec<u8>],
        row: &mut Vec<u8>,
        out: &mut Vec<Vec<u8>>,
    ) {
        if c == n {
            out.push(row.clone());
            return;
        }
        for s in 0..n as u8 {
            if used & (1 << s) != 0 || rows.iter().any(|r| r[c] == s) {
                continue;
            }
            row[c] = s;
            rec(n, c + 1, used | (1 << s), rows, row, out);
        }
    }
    if rows.iter().all(|r| r[0] != first) {
        rec(n, 1, 1 << first, rows, &mut row, &mut out);
    }
    out
}

/// Intercalates between row `a` and row `b` (the 2-cycle trick of the write-up).
fn intercalates_between(n: usize, a: &[u8], b: &[u8]) -> usize {
    let mut pos_b = [0u8; 32];
    for c in 0..n {
        pos_b[b[c] as usize] = c as u8;
    }
    let mut k = 0;
    for c in 0..n {
        let c2 = pos_b[a[c] as usize] as usize;
        if c2 > c && a[c2] == b[c] {
            k += 1;
        }
    }
    k
}

impl CensusJob {
    pub fn new(order: usize) -> Result<Self> {
        if order == 0 || order > MAX_ORDER {
            return Err(input_error(format!(
                "--order {order} is out of range: the census covers orders 1 to {MAX_ORDER}"
            )));
        }
        let classes = if order >= 2 {
            cycle_classes(order)
        } else {
            Vec::new()
        };
        let mut units = Vec::new();
        if order >= 3 {
            let id: Vec<u8> = (0..order as u8).collect();
            for (t, class) in classes.iter().enumerate() {
                let first3 = (0..order as u8)
                    .find(|&s| s != 0 && s != class.representative[0])
                    .unwrap();
                for row3 in next_rows(order, &[id.clone(), class.representative.clone()], first3) {
                    units.push(UnitPlan {
                        type_index: t,
                        row3,
                    });
                }
            }
        }
        Ok(CensusJob {
            order,
            classes,
            units,
        })
    }

    pub fn order(&self) -> usize {
        self.order
    }

    /// Turn the weighted total (Σ N(type)·C_k) into the reduced-square histogram.
    pub fn finish(&self, weighted: Histogram) -> Result<Histogram> {
        let n = self.order;
        if n <= 2 {
            // Order 1: one square, no intercalate. Order 2: one reduced square, one intercalate.
            return Ok(Histogram(if n == 1 { vec![1] } else { vec![0, 1] }));
        }
        let div = (n - 1) as u64;
        let mut out = Vec::with_capacity(weighted.0.len());
        for (k, &c) in weighted.0.iter().enumerate() {
            if c % div != 0 {
                anyhow::bail!(
                    "internal error: weighted count {c} at k={k} is not divisible by {div}"
                );
            }
            out.push(c / div);
        }
        while out.last() == Some(&0) {
            out.pop();
        }
        Ok(Histogram(out))
    }

    /// Enumerate sorted completions below `rows`, adding `weight` per completion at its count.
    fn complete(&self, rows: &mut Vec<Vec<u8>>, k: usize, weight: u64, hist: &mut Histogram) {
        let n = self.order;
        let r = rows.len();
        if r == n - 1 {
            // The last row is forced: each column's missing symbol.
            let mut last = vec![0u8; n];
            for c in 0..n {
                let mut used = 0u32;
                for row in rows.iter() {
                    used |= 1 << row[c];
                }
                last[c] = (!used & ((1u32 << n) - 1)).trailing_zeros() as u8;
            }
            let mut kk = k;
            for row in rows.iter() {
                kk += intercalates_between(n, row, &last);
            }
            hist.add(kk, weight);
            return;
        }
        // Row r's first symbol: the smallest symbol not yet in column 0 (rows sorted by it).
        let first = (0..n as u8)
            .find(|&s| rows.iter().all(|row| row[0] != s))
            .unwrap();
        for row in next_rows(n, rows, first) {
            let mut kk = k;
            for prev in rows.iter() {
                kk += intercalates_between(n, prev, &row);
            }
            rows.push(row);
            self.complete(rows, kk, weight, hist);
            rows.pop();
        }
    }
}

impl Job for CensusJob {
    type Partial = Histogram;

    fn spec(&self) -> JobSpec {
        JobSpec::new(
            "latin-census",
            serde_json::json!({ "order": self.order }),
            0,
        )
    }

    fn unit_count(&self) -> u64 {
        self.units.len().max(1) as u64
    }

    fn run_unit(&self, unit: Unit) -> Result<Histogram> {
        let n = self.order;
        let mut hist = Histogram::default();
        if n <= 2 {
            return Ok(hist); // handled in finish
        }
        let plan = &self.units[unit.index as usize];
        let class = &self.classes[plan.type_index];
        let id: Vec<u8> = (0..n as u8).collect();
        let k0 = intercalates_between(n, &id, &class.representative);
        let mut rows = vec![id, class.representative.clone(), plan.row3.clone()];
        let k = k0
            + intercalates_between(n, &rows[0], &rows[2])
            + intercalates_between(n, &rows[1], &rows[2]);
        if n == 3 {
            hist.add(k, class.derangements);
        } else {
            self.complete(&mut rows, k, class.derangements, &mut hist);
        }
        Ok(hist)
    }

    fn label(&self) -> String {
        format!("latin census n={}", self.order)
    }
}
