//! The census result files: `latin_census.csv` (order,intercalates,reduced_squares) and
//! `latin_census_summary.csv` (order,reduced_squares,all_squares,mean_intercalates,
//! share_without,max_intercalates,distinct_counts). A run replaces the rows of the orders it
//! computed and keeps the others, so `make census` (orders 1–7) keeps a committed order 8.

use crate::engine::Histogram;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;

pub const CENSUS_FILE: &str = "latin_census.csv";
pub const SUMMARY_FILE: &str = "latin_census_summary.csv";

/// Reduced-square histograms by order.
pub type CensusTable = BTreeMap<usize, Histogram>;

/// Read `latin_census.csv`; a missing file is an empty table, a malformed one an error.
pub fn read_census(path: &Path) -> Result<CensusTable> {
    crate::engine::table::read_histograms(path, &CENSUS_COLUMNS)
}

/// Columns of `latin_census.csv`.
pub const CENSUS_COLUMNS: [&str; 3] = ["order", "intercalates", "reduced_squares"];

/// Bytes of `latin_census.csv` for a table.
pub fn census_csv(table: &CensusTable) -> Vec<u8> {
    crate::engine::table::histograms_csv(&CENSUS_COLUMNS, table)
}

/// Summary figures of one order's histogram.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub order: usize,
    pub reduced: u128,
    pub all: u128,
    pub mean: f64,
    pub share_without: f64,
    pub max: usize,
    pub distinct: usize,
}

fn factorial(n: usize) -> u128 {
    (1..=n as u128).product()
}

pub fn summarize(order: usize, hist: &Histogram) -> Summary {
    let reduced = hist.total();
    let weighted: u128 = hist
        .0
        .iter()
        .enumerate()
        .map(|(k, &c)| k as u128 * c as u128)
        .sum();
    Summary {
        order,
        reduced,
        all: factorial(order) * factorial(order.saturating_sub(1)) * reduced,
        mean: weighted as f64 / reduced as f64,
        share_without: hist.0.first().copied().unwrap_or(0) as f64 / reduced as f64,
        max: hist.0.iter().rposition(|&c| c > 0).unwrap_or(0),
        distinct: hist.0.iter().filter(|&&c| c > 0).count(),
    }
}

/// Bytes of `latin_census_summary.csv`.
pub fn summary_csv(table: &CensusTable) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "order",
        "reduced_squares",
        "all_squares",
        "mean_intercalates",
        "share_without",
        "max_intercalates",
        "distinct_counts",
    ])
    .unwrap();
    for (&order, hist) in table {
        let s = summarize(order, hist);
        w.write_record([
            order.to_string(),
            s.reduced.to_string(),
            s.all.to_string(),
            format!("{:.6}", s.mean),
            format!("{:.6}", s.share_without),
            s.max.to_string(),
            s.distinct.to_string(),
        ])
        .unwrap();
    }
    w.into_inner().expect("in-memory writer")
}
