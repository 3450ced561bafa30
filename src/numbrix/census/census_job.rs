//! The Hamiltonian-path census as an engine job, and its result file `numbrix_census.csv`.
//!
//! Two independent methods, both in one job:
//!
//! * `frontier`: one unit per width w = 1..=max_side, a plug-DP sweep counting w×L for every
//!   L = w..=max_side (undirected paths; directed = 2× undirected for more than one cell, by
//!   reversal).
//! * `walk`: brute force for every m×n (m ≤ n ≤ max_side) with m·n ≤ walk_max_cells (at most 64).
//!   Directed paths are counted from each start cell; a symmetry of the rectangle maps the paths
//!   from s one-to-one onto the paths from its image, so only one start per symmetry orbit is
//!   walked and its count weighted by the orbit size (rotations and reflections of the
//!   rectangle; the square's diagonal ones only for squares). Each orbit representative is split
//!   further by its first moves (a unit walks the paths with one fixed prefix). Undirected =
//!   directed / 2 (each undirected path has two directions), refused if odd.

use super::frontier;
use super::walk::{self, Geometry, MAX_CENSUS_CELLS};
use crate::engine::{Job, JobSpec, Records, Unit};
use crate::error::input_error;
use anyhow::Result;
use num_bigint::BigUint;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

pub const KIND: &str = "numbrix-census";
pub const CENSUS_FILE: &str = "numbrix_census.csv";
/// Largest side the job accepts. The width-15 sweep takes minutes; 16 and 17 are cluster-sized
/// (CPU-hours and tens of GB; see the census docs for the measured growth).
pub const MAX_SIDE: usize = 17;
/// Cells in a walk unit's fixed prefix (start cell included).
const PREFIX_CELLS: usize = 4;

#[derive(Clone, Debug)]
enum Task {
    Frontier {
        width: usize,
    },
    Walk {
        rows: usize,
        cols: usize,
        prefix: Vec<u8>,
        weight: u64,
    },
}

/// One unit's output.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct UnitOut {
    pub method: String,
    pub rows: usize,
    pub cols: usize,
    /// Frontier: undirected counts for L = rows..=max_side (as decimal strings: u128).
    /// Walk: one entry, the weighted directed count of the prefix.
    pub counts: Vec<String>,
    /// Frontier: max states up to each L (parallel to counts). Walk: one entry, search nodes.
    pub work: Vec<u64>,
}

pub struct CensusJob {
    pub max_side: usize,
    pub walk_max_cells: usize,
    /// Set for a walk census of one rectangle only (benches and timing).
    only: Option<(usize, usize)>,
    tasks: Vec<Task>,
}

fn walk_tasks(rows: usize, cols: usize, tasks: &mut Vec<Task>) {
    let g = Geometry::new(rows, cols);
    for (start, weight) in start_orbits(rows, cols) {
        for prefix in prefixes(&g, start, PREFIX_CELLS) {
            tasks.push(Task::Walk {
                rows,
                cols,
                prefix,
                weight,
            });
        }
    }
}

/// The symmetries of a rows×cols rectangle as cell maps.
fn symmetries(rows: usize, cols: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let idx = |r: usize, c: usize, cols: usize| r * cols + c;
    let map = |f: &dyn Fn(usize, usize) -> (usize, usize), tcols: usize| -> Vec<usize> {
        (0..rows * cols)
            .map(|i| {
                let (r, c) = f(i / cols, i % cols);
                idx(r, c, tcols)
            })
            .collect()
    };
    let (h, w) = (rows - 1, cols - 1);
    out.push(map(&|r, c| (r, c), cols));
    out.push(map(&|r, c| (h - r, c), cols));
    out.push(map(&|r, c| (r, w - c), cols));
    out.push(map(&|r, c| (h - r, w - c), cols));
    if rows == cols {
        out.push(map(&|r, c| (c, r), cols));
        out.push(map(&|r, c| (w - c, r), cols));
        out.push(map(&|r, c| (c, h - r), cols));
        out.push(map(&|r, c| (w - c, h - r), cols));
    }
    out
}

/// Orbit representatives (smallest index) with orbit sizes.
pub fn start_orbits(rows: usize, cols: usize) -> Vec<(usize, u64)> {
    let syms = symmetries(rows, cols);
    let mut out = Vec::new();
    for s in 0..rows * cols {
        let mut orbit: Vec<usize> = syms.iter().map(|m| m[s]).collect();
        orbit.sort_unstable();
        orbit.dedup();
        if orbit[0] == s {
            out.push((s, orbit.len() as u64));
        }
    }
    out
}

/// Self-avoiding walks of `len` cells (or shorter walks that cover the grid) from `start`.
fn prefixes(g: &Geometry, start: usize, len: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut cur = vec![start as u8];
    fn rec(g: &Geometry, cur: &mut Vec<u8>, len: usize, out: &mut Vec<Vec<u8>>) {
        if cur.len() == len || cur.len() == g.cells() {
            out.push(cur.clone());
            return;
        }
        let head = *cur.last().unwrap() as usize;
        let mut m = g.nbr[head];
        while m != 0 {
            let x = m.trailing_zeros() as u8;
            m &= m - 1;
            if !cur.contains(&x) {
                cur.push(x);
                rec(g, cur, len, out);
                cur.pop();
            }
        }
    }
    rec(g, &mut cur, len, &mut out);
    out
}

impl CensusJob {
    pub fn new(max_side: usize, walk_max_cells: usize) -> Result<Self> {
        if !(1..=MAX_SIDE).contains(&max_side) {
            return Err(input_error(format!(
                "--max-side {max_side} is out of range: 1 to {MAX_SIDE}"
            )));
        }
        if walk_max_cells > MAX_CENSUS_CELLS {
            return Err(input_error(format!(
                "--walk-max-cells {walk_max_cells} is out of range: 0 to {MAX_CENSUS_CELLS}"
            )));
        }
        let mut tasks = Vec::new();
        // Widest sweeps first: they are the longest units.
        for width in (1..=max_side).rev() {
            tasks.push(Task::Frontier { width });
        }
        for rows in 1..=max_side {
            for cols in rows..=max_side {
                if rows * cols > walk_max_cells {
                    continue;
                }
                walk_tasks(rows, cols, &mut tasks);
            }
        }
        Ok(CensusJob {
            max_side,
            walk_max_cells,
            only: None,
            tasks,
        })
    }

    /// The brute-force walk census of one rectangle only (no frontier units).
    pub fn walk_only(rows: usize, cols: usize) -> Result<Self> {
        if rows * cols == 0 || rows * cols > MAX_CENSUS_CELLS {
            return Err(input_error(format!(
                "walk census: {rows}x{cols} out of range"
            )));
        }
        let mut tasks = Vec::new();
        walk_tasks(rows, cols, &mut tasks);
        Ok(CensusJob {
            max_side: rows.max(cols),
            walk_max_cells: rows * cols,
            only: Some((rows, cols)),
            tasks,
        })
    }
}

impl Job for CensusJob {
    type Partial = Records<UnitOut>;

    fn spec(&self) -> JobSpec {
        JobSpec::new(
            KIND,
            serde_json::json!({
                "max_side": self.max_side,
                "walk_max_cells": self.walk_max_cells,
                "prefix_cells": PREFIX_CELLS,
                "only": self.only,
            }),
            0,
        )
    }

    fn unit_count(&self) -> u64 {
        self.tasks.len() as u64
    }

    fn run_unit(&self, unit: Unit) -> Result<Self::Partial> {
        let out = match &self.tasks[unit.index as usize] {
            Task::Frontier { width } => {
                let s = frontier::sweep(*width, self.max_side)?;
                UnitOut {
                    method: "frontier".into(),
                    rows: *width,
                    cols: *width,
                    counts: s.counts[width - 1..]
                        .iter()
                        .map(|c| c.to_string())
                        .collect(),
                    work: s.max_states_by_len[width - 1..].to_vec(),
                }
            }
            Task::Walk {
                rows,
                cols,
                prefix,
                weight,
            } => {
                let g = Geometry::new(*rows, *cols);
                let w = walk::directed_from_prefix(&g, prefix);
                UnitOut {
                    method: "walk".into(),
                    rows: *rows,
                    cols: *cols,
                    counts: vec![(w.paths as u128 * *weight as u128).to_string()],
                    work: vec![w.nodes],
                }
            }
        };
        Ok(Records(vec![out]))
    }

    fn label(&self) -> String {
        format!("numbrix census to side {}", self.max_side)
    }
}

/// One row of `numbrix_census.csv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CensusRow {
    pub rows: usize,
    pub cols: usize,
    pub method: String,
    pub undirected: BigUint,
    pub directed: BigUint,
    /// Walk: search nodes; frontier: the largest number of frontier states held.
    pub work: u64,
}

/// Rows keyed by (rows, cols, method).
pub type CensusTable = BTreeMap<(usize, usize, String), CensusRow>;

fn parse_count(s: &str) -> Result<BigUint> {
    s.parse()
        .map_err(|_| input_error(format!("numbrix census: '{s}' is not a count")))
}

/// Fold the unit outputs into the table.
pub fn finish(units: &Records<UnitOut>) -> Result<CensusTable> {
    let mut table = CensusTable::new();
    for u in &units.0 {
        match u.method.as_str() {
            "frontier" => {
                for (k, (c, &work)) in u.counts.iter().zip(&u.work).enumerate() {
                    let cols = u.rows + k;
                    let undirected = parse_count(c)?;
                    let cells = u.rows * cols;
                    let directed = if cells == 1 {
                        undirected.clone()
                    } else {
                        &undirected * 2u32
                    };
                    table.insert(
                        (u.rows, cols, "frontier".into()),
                        CensusRow {
                            rows: u.rows,
                            cols,
                            method: "frontier".into(),
                            undirected,
                            directed,
                            work,
                        },
                    );
                }
            }
            "walk" => {
                let e = table
                    .entry((u.rows, u.cols, "walk".into()))
                    .or_insert(CensusRow {
                        rows: u.rows,
                        cols: u.cols,
                        method: "walk".into(),
                        undirected: BigUint::ZERO,
                        directed: BigUint::ZERO,
                        work: 0,
                    });
                e.directed += parse_count(&u.counts[0])?;
                e.work += u.work[0];
            }
            m => return Err(input_error(format!("numbrix census: unknown method '{m}'"))),
        }
    }
    for row in table.values_mut() {
        if row.method == "walk" {
            if row.rows * row.cols == 1 {
                row.undirected = row.directed.clone();
            } else if row.directed.bit(0) {
                anyhow::bail!(
                    "walk census {}x{}: odd directed count {}",
                    row.rows,
                    row.cols,
                    row.directed
                );
            } else {
                row.undirected = &row.directed / 2u32;
            }
        }
    }
    Ok(table)
}

const HEADER: [&str; 7] = [
    "rows",
    "cols",
    "cells",
    "method",
    "undirected_paths",
    "directed_paths",
    "work",
];

/// Bytes of `numbrix_census.csv`.
pub fn census_csv(table: &CensusTable) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(HEADER).unwrap();
    for r in table.values() {
        w.write_record([
            r.rows.to_string(),
            r.cols.to_string(),
            (r.rows * r.cols).to_string(),
            r.method.clone(),
            r.undirected.to_string(),
            r.directed.to_string(),
            r.work.to_string(),
        ])
        .unwrap();
    }
    w.into_inner().expect("in-memory writer")
}

/// Read `numbrix_census.csv`.
pub fn read_census(path: &Path) -> Result<CensusTable> {
    let mut rdr = crate::engine::table::open_checked(path, &HEADER)?;
    let mut table = CensusTable::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| input_error(format!("{} is malformed: {e}", path.display())))?;
        let bad = || input_error(format!("{} line {} is malformed", path.display(), i + 2));
        let field = |j: usize| rec.get(j).ok_or_else(bad);
        let row = CensusRow {
            rows: field(0)?.parse().map_err(|_| bad())?,
            cols: field(1)?.parse().map_err(|_| bad())?,
            method: field(3)?.to_string(),
            undirected: field(4)?.parse().map_err(|_| bad())?,
            directed: field(5)?.parse().map_err(|_| bad())?,
            work: field(6)?.parse().map_err(|_| bad())?,
        };
        table.insert((row.rows, row.cols, row.method.clone()), row);
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orbits_cover_every_cell() {
        for (r, c) in [(1, 1), (2, 3), (4, 4), (5, 7), (7, 7)] {
            let total: u64 = start_orbits(r, c).iter().map(|o| o.1).sum();
            assert_eq!(total, (r * c) as u64);
        }
        assert_eq!(start_orbits(7, 7).len(), 10);
    }
}
