//! The exact census at order 9 (and, as a cross-check, any order 3..9) with the wide kernel.
//!
//! Same decomposition and work units as [`super::census`] — (row-1 cycle type, row 2), weighted
//! by the number of derangements of the type, one division by n − 1 at the end — but each unit
//! is counted by [`super::wide`], whose 128-bit rows reach past order 8. At order 9 the weighted total is 8·A000315(9) ≈ 3.0·10¹⁸, which fits the engine's
//! u64 histogram counts (checked additions: an overflow is an error, never a wrap). Order 10
//! (9·A000315(10) ≈ 6.8·10²⁵) would not fit, so the job stops at 9.
//!
//! One order-9 unit is a cluster-sized piece of work (see docs/latin-estimate.md for the measured
//! cost); the job exists so that `latin census --orders 9 --shard I/N` + `gridcensus merge` can
//! run it on many machines.

use super::census::cycle_classes;
use super::wide::{Row, compatible_rows, count_completions, next_first_symbol};
use crate::engine::{Histogram, Job, JobSpec, Unit};
use crate::error::input_error;
use anyhow::Result;

/// Largest order the wide census accepts (u64 weighted counts).
pub const WIDE_CENSUS_MAX_ORDER: usize = 9;

pub struct WideCensusJob {
    order: usize,
    /// (rows 0..=2, derangements of the type) per unit, in the census job's unit order.
    units: Vec<([Row; 3], u64)>,
}

impl WideCensusJob {
    pub fn new(order: usize) -> Result<Self> {
        if !(3..=WIDE_CENSUS_MAX_ORDER).contains(&order) {
            return Err(input_error(format!(
                "--orders {order} is out of range for the wide census (3 to {WIDE_CENSUS_MAX_ORDER})"
            )));
        }
        let n = order;
        let id: Vec<u8> = (0..n as u8).collect();
        let mut units = Vec::new();
        for class in cycle_classes(n) {
            let fixed = [Row::new(n, &id), Row::new(n, &class.representative)];
            let f = next_first_symbol(n, &fixed).expect("row 2 is missing");
            for row2 in compatible_rows(n, &fixed, Some(f)) {
                units.push(([fixed[0], fixed[1], row2], class.derangements));
            }
        }
        Ok(WideCensusJob { order, units })
    }

    pub fn order(&self) -> usize {
        self.order
    }

    /// Divide the weighted total by n − 1 (exactly; a remainder is an error).
    pub fn finish(&self, weighted: Histogram) -> Result<Histogram> {
        let div = (self.order - 1) as u64;
        let mut out = Vec::with_capacity(weighted.0.len());
        for (k, &c) in weighted.0.iter().enumerate() {
            if c % div != 0 {
                anyhow::bail!("weighted count {c} at k={k} is not divisible by {div}");
            }
            out.push(c / div);
        }
        while out.last() == Some(&0) {
            out.pop();
        }
        Ok(Histogram(out))
    }
}

impl Job for WideCensusJob {
    type Partial = Histogram;

    fn spec(&self) -> JobSpec {
        // The same job kind and parameters as the census of orders ≤ 8: one result table.
        JobSpec::new(
            "latin-census",
            serde_json::json!({ "order": self.order }),
            0,
        )
    }

    fn unit_count(&self) -> u64 {
        self.units.len() as u64
    }

    fn run_unit(&self, unit: Unit) -> Result<Histogram> {
        let (rows, w) = &self.units[unit.index as usize];
        let mut h = Histogram::default();
        for (k, &c) in count_completions(self.order, rows).iter().enumerate() {
            if c > 0 {
                let v = c
                    .checked_mul(*w)
                    .ok_or_else(|| anyhow::anyhow!("weighted count overflows u64"))?;
                h.add(k, v);
            }
        }
        Ok(h)
    }

    fn label(&self) -> String {
        format!("latin census (wide kernel) n={}", self.order)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_census_equals_a000315_up_to_order_7() {
        let want = [0u128, 1, 1, 1, 4, 56, 9408, 16_942_080];
        for n in 3..=7 {
            let job = WideCensusJob::new(n).unwrap();
            let total = crate::engine::run::run_simple(&job, Some(1)).unwrap();
            assert_eq!(job.finish(total).unwrap().total(), want[n], "n={n}");
        }
        assert!(WideCensusJob::new(10).is_err());
    }
}
