//! The backbite study as an engine job: draws from both backbite variants, held to the exact
//! census of undirected Hamiltonian paths, with total-variation noise floors; and the result
//! file `numbrix_sampler.csv`.
//!
//! Every Hamiltonian path of the size is listed by the walk engine (each undirected path once,
//! keyed by its edge set). A draw starts from the boustrophedon snake and makes
//! `moves_per_cell`·cells backbite moves; its edge set is looked up in the list. The sampled
//! distribution is compared with the uniform one (TV distance) and with the end-degree weighting
//! ∝ deg(a)·deg(b) that the neighbour variant is reversible for. A TV figure means nothing on its
//! own: D draws of a perfect sampler are themselves at some TV from the target, so each target gets
//! a noise floor, the TVs of `floor_sims` simulated perfect samplers with the same D (mean and 95th
//! percentile). A sampler passes when its TV is at most the floor's 95th percentile.
//!
//! Units, in order: for each variant, batches of draws; then for each target, one unit per
//! simulated perfect sampler. All randomness comes from `unit.rng()`.

use super::backbite::{Backbite, Variant, edge_count, edge_key};
use super::walk::{self, Geometry};
use crate::engine::{Job, JobSpec, Partial, Unit};
use crate::error::input_error;
use anyhow::Result;
use rand::RngExt;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

pub const KIND: &str = "numbrix-sampler";
pub const SAMPLER_FILE: &str = "numbrix_sampler.csv";
pub const DEFAULT_SIZES: &str = "3x3,4x4,3x6,4x5,4x6,5x5";
/// Largest grid the exact study accepts (edge keys fit in 64 bits up to 6×6).
pub const MAX_CELLS: usize = 36;
/// Largest grid the sampler accepts; past [`MAX_CELLS`] it records move statistics and distinct
/// draws only (no census to hold it to).
pub const MAX_SAMPLER_CELLS: usize = 256;
/// Default draws on grids past [`MAX_CELLS`] (the write-up's 200).
pub const DEFAULT_LARGE_DRAWS: u64 = 200;
const BATCH: u64 = 5_000;
const TARGETS: [&str; 2] = ["uniform", "end_degree"];

/// Parse "4x4,5x5" into (rows, cols) pairs.
pub fn parse_sizes(s: &str) -> Result<Vec<(usize, usize)>> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let bad = || input_error(format!("--sizes: '{part}' is not a size like 4x5"));
        let (a, b) = part.split_once(['x', 'X']).ok_or_else(bad)?;
        let (r, c): (usize, usize) = (
            a.trim().parse().map_err(|_| bad())?,
            b.trim().parse().map_err(|_| bad())?,
        );
        if r == 0 || c == 0 || r * c < 2 || r * c > MAX_SAMPLER_CELLS {
            return Err(input_error(format!(
                "--sizes: {r}x{c} is out of range: 2 to {MAX_SAMPLER_CELLS} cells"
            )));
        }
        out.push((r, c));
    }
    out.dedup();
    Ok(out)
}

/// Every undirected Hamiltonian path of the grid: edge keys (in enumeration order) and the
/// grid degrees of each path's two ends.
pub fn list_paths(rows: usize, cols: usize) -> (Vec<u64>, Vec<u32>) {
    let g = Geometry::new(rows, cols);
    let deg: Vec<u32> = g.nbr.iter().map(|m| m.count_ones()).collect();
    let mut keys = Vec::new();
    let mut weights = Vec::new();
    for s in 0..g.cells() {
        walk::for_each_path(&g, &[s as u8], |p| {
            let (a, b) = (p[0], p[p.len() - 1]);
            if a < b {
                keys.push(edge_key(rows, cols, p.iter().map(|&c| c as usize)));
                weights.push(deg[a as usize] * deg[b as usize]);
            }
        });
    }
    (keys, weights)
}

/// Mergeable partial: per-variant histograms and move statistics, per-target floor TVs.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SamplerPartial {
    /// `hist[v][k]`: draws of variant v that gave path k.
    pub hist: Vec<Vec<u64>>,
    pub draws: Vec<u64>,
    pub proposals: Vec<u64>,
    pub accepted: Vec<u64>,
    pub turns: Vec<u64>,
    /// `floors[t]`: TVs of simulated perfect samplers of target t, in unit order.
    pub floors: Vec<Vec<f64>>,
    /// Grids past the census: `canon[v]` holds the drawn paths of variant v (oriented so that the
    /// first cell is the smaller end), in unit order.
    #[serde(default)]
    pub canon: Vec<Vec<Vec<u16>>>,
}

fn add_into(a: &mut Vec<u64>, b: &[u64]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

impl Partial for SamplerPartial {
    fn merge(&mut self, other: Self) {
        if self.hist.len() < other.hist.len() {
            self.hist.resize(other.hist.len(), Vec::new());
        }
        for (a, b) in self.hist.iter_mut().zip(&other.hist) {
            add_into(a, b);
        }
        add_into(&mut self.draws, &other.draws);
        add_into(&mut self.proposals, &other.proposals);
        add_into(&mut self.accepted, &other.accepted);
        add_into(&mut self.turns, &other.turns);
        if self.floors.len() < other.floors.len() {
            self.floors.resize(other.floors.len(), Vec::new());
        }
        for (a, b) in self.floors.iter_mut().zip(other.floors) {
            a.extend(b);
        }
        if self.canon.len() < other.canon.len() {
            self.canon.resize(other.canon.len(), Vec::new());
        }
        for (a, b) in self.canon.iter_mut().zip(other.canon) {
            a.extend(b);
        }
    }
}

pub struct SamplerJob {
    pub rows: usize,
    pub cols: usize,
    pub draws: u64,
    pub moves_per_cell: u64,
    pub floor_sims: u64,
    pub seed: u64,
    /// Whether every path is listed (grids of at most MAX_CELLS cells).
    pub exact: bool,
    index: HashMap<u64, u32>,
    /// Cumulative probabilities of each target over the listed paths.
    cumulative: [Vec<f64>; 2],
    probs: [Vec<f64>; 2],
}

impl SamplerJob {
    pub fn new(
        rows: usize,
        cols: usize,
        draws: Option<u64>,
        moves_per_cell: u64,
        floor_sims: u64,
        seed: u64,
    ) -> Result<Self> {
        if rows * cols < 2 || rows * cols > MAX_SAMPLER_CELLS {
            return Err(input_error(format!(
                "numbrix sampler: {rows}x{cols} is out of range: 2 to {MAX_SAMPLER_CELLS} cells"
            )));
        }
        if rows * cols > MAX_CELLS || edge_count(rows, cols) > 64 {
            return Ok(SamplerJob {
                rows,
                cols,
                draws: draws.unwrap_or(DEFAULT_LARGE_DRAWS),
                moves_per_cell,
                floor_sims,
                seed,
                exact: false,
                index: HashMap::new(),
                cumulative: [Vec::new(), Vec::new()],
                probs: [Vec::new(), Vec::new()],
            });
        }
        let (keys, weights) = list_paths(rows, cols);
        let k = keys.len();
        let draws = draws.unwrap_or((50 * k as u64).max(20_000));
        let index: HashMap<u64, u32> = keys
            .iter()
            .enumerate()
            .map(|(i, &key)| (key, i as u32))
            .collect();
        assert_eq!(index.len(), k, "edge keys must be distinct");
        let total_w: f64 = weights.iter().map(|&w| w as f64).sum();
        let uniform = vec![1.0 / k as f64; k];
        let degree: Vec<f64> = weights.iter().map(|&w| w as f64 / total_w).collect();
        let cum = |p: &[f64]| {
            let mut acc = 0.0;
            p.iter()
                .map(|x| {
                    acc += x;
                    acc
                })
                .collect::<Vec<f64>>()
        };
        Ok(SamplerJob {
            rows,
            cols,
            draws,
            moves_per_cell,
            floor_sims,
            seed,
            exact: true,
            index,
            cumulative: [cum(&uniform), cum(&degree)],
            probs: [uniform, degree],
        })
    }

    pub fn from_spec(spec: &JobSpec) -> Result<Self> {
        let p = &spec.params;
        let get = |k: &str| {
            p[k].as_u64()
                .ok_or_else(|| input_error(format!("{KIND} partial without {k}")))
        };
        SamplerJob::new(
            get("rows")? as usize,
            get("cols")? as usize,
            Some(get("draws")?),
            get("moves_per_cell")?,
            get("floor_sims")?,
            spec.seed,
        )
    }

    pub fn paths(&self) -> usize {
        self.index.len()
    }

    fn batches(&self) -> u64 {
        self.draws.div_ceil(BATCH)
    }

    fn tv(counts: &[u64], draws: u64, target: &[f64]) -> f64 {
        0.5 * counts
            .iter()
            .zip(target)
            .map(|(&c, &p)| (c as f64 / draws as f64 - p).abs())
            .sum::<f64>()
    }

    /// The CSV rows of this size from the folded partial.
    pub fn finish(&self, p: &SamplerPartial) -> Result<Vec<SamplerRow>> {
        if !self.exact {
            return self.finish_large(p);
        }
        let k = self.paths();
        let mut floors = Vec::new();
        let mut sorted = Vec::new();
        for t in 0..TARGETS.len() {
            let mut f = p.floors.get(t).cloned().unwrap_or_default();
            if f.len() as u64 != self.floor_sims {
                anyhow::bail!("numbrix sampler: floor {} incomplete", TARGETS[t]);
            }
            f.sort_by(|a, b| a.total_cmp(b));
            let mean = f.iter().sum::<f64>() / f.len() as f64;
            let p95 = f[((0.95 * f.len() as f64).ceil() as usize).clamp(1, f.len()) - 1];
            floors.push((mean, p95));
            sorted.push(f);
        }
        let mut rows = Vec::new();
        for (v, variant) in Variant::ALL.iter().enumerate() {
            let mut hist = p.hist.get(v).cloned().unwrap_or_default();
            hist.resize(k, 0);
            let draws = p.draws.get(v).copied().unwrap_or(0);
            if draws != self.draws {
                anyhow::bail!("numbrix sampler: {} draws incomplete", variant.name());
            }
            let tv_u = Self::tv(&hist, draws, &self.probs[0]);
            let tv_d = Self::tv(&hist, draws, &self.probs[1]);
            let proposals = p.proposals[v];
            rows.push(SamplerRow {
                rows: self.rows,
                cols: self.cols,
                paths: k as u64,
                variant: variant.name().to_string(),
                draws,
                moves_per_cell: self.moves_per_cell,
                acceptance_rate: p.accepted[v] as f64 / proposals as f64,
                mean_turns: p.turns[v] as f64 / draws as f64,
                snake_turns: if self.cols > 1 {
                    2 * (self.rows as u64 - 1)
                } else {
                    0
                },
                distinct_paths: hist.iter().filter(|&&c| c > 0).count() as u64,
                tv_uniform: tv_u,
                floor_uniform_mean: floors[0].0,
                floor_uniform_p95: floors[0].1,
                uniform: tv_u <= floors[0].1,
                uniform_percentile: sorted[0].iter().filter(|&&x| x <= tv_u).count() as f64
                    / sorted[0].len() as f64,
                tv_end_degree: tv_d,
                floor_end_degree_mean: floors[1].0,
                floor_end_degree_p95: floors[1].1,
                matches_end_degree: tv_d <= floors[1].1,
                seed: self.seed,
            });
        }
        Ok(rows)
    }

    fn finish_large(&self, p: &SamplerPartial) -> Result<Vec<SamplerRow>> {
        let mut rows = Vec::new();
        for (v, variant) in Variant::ALL.iter().enumerate() {
            let draws = p.draws.get(v).copied().unwrap_or(0);
            if draws != self.draws {
                anyhow::bail!("numbrix sampler: {} draws incomplete", variant.name());
            }
            let mut c = p.canon.get(v).cloned().unwrap_or_default();
            c.sort_unstable();
            c.dedup();
            rows.push(SamplerRow {
                rows: self.rows,
                cols: self.cols,
                paths: 0,
                variant: variant.name().to_string(),
                draws,
                moves_per_cell: self.moves_per_cell,
                acceptance_rate: p.accepted[v] as f64 / p.proposals[v] as f64,
                mean_turns: p.turns[v] as f64 / draws as f64,
                snake_turns: if self.cols > 1 {
                    2 * (self.rows as u64 - 1)
                } else {
                    0
                },
                distinct_paths: c.len() as u64,
                tv_uniform: f64::NAN,
                floor_uniform_mean: f64::NAN,
                floor_uniform_p95: f64::NAN,
                uniform: false,
                uniform_percentile: f64::NAN,
                tv_end_degree: f64::NAN,
                floor_end_degree_mean: f64::NAN,
                floor_end_degree_p95: f64::NAN,
                matches_end_degree: false,
                seed: self.seed,
            });
        }
        Ok(rows)
    }
}

impl Job for SamplerJob {
    type Partial = SamplerPartial;

    fn spec(&self) -> JobSpec {
        JobSpec::new(
            KIND,
            serde_json::json!({
                "rows": self.rows,
                "cols": self.cols,
                "draws": self.draws,
                "moves_per_cell": self.moves_per_cell,
                "floor_sims": self.floor_sims,
                "batch": BATCH,
                "exact": self.exact,
            }),
            self.seed,
        )
    }

    fn unit_count(&self) -> u64 {
        let floors = if self.exact { self.floor_sims } else { 0 };
        Variant::ALL.len() as u64 * self.batches() + TARGETS.len() as u64 * floors
    }

    fn run_unit(&self, unit: Unit) -> Result<SamplerPartial> {
        let mut rng = unit.rng();
        let nv = Variant::ALL.len();
        let nt = TARGETS.len();
        let mut out = SamplerPartial {
            hist: vec![Vec::new(); nv],
            draws: vec![0; nv],
            proposals: vec![0; nv],
            accepted: vec![0; nv],
            turns: vec![0; nv],
            floors: vec![Vec::new(); nt],
            canon: vec![Vec::new(); nv],
        };
        let k = self.paths();
        let b = self.batches();
        if unit.index < nv as u64 * b {
            let v = (unit.index / b) as usize;
            let batch = unit.index % b;
            let count = BATCH.min(self.draws - batch * BATCH);
            let variant = Variant::ALL[v];
            let moves = self.moves_per_cell * (self.rows * self.cols) as u64;
            let mut hist = vec![0u64; if self.exact { k } else { 0 }];
            for _ in 0..count {
                let mut bb = Backbite::snake(self.rows, self.cols);
                for _ in 0..moves {
                    if bb.step(&mut rng, variant) {
                        out.accepted[v] += 1;
                    }
                }
                out.proposals[v] += moves;
                out.turns[v] += bb.turns() as u64;
                if !self.exact {
                    let mut p: Vec<u16> = bb.path.iter().map(|&c| c as u16).collect();
                    if p[0] > p[p.len() - 1] {
                        p.reverse();
                    }
                    out.canon[v].push(p);
                    continue;
                }
                let Some(&i) = self.index.get(&bb.edge_key()) else {
                    anyhow::bail!(
                        "backbite produced a path missing from the census: {:?}",
                        bb.path
                    );
                };
                hist[i as usize] += 1;
            }
            out.draws[v] = count;
            out.hist[v] = hist;
        } else {
            let t = ((unit.index - nv as u64 * b) / self.floor_sims) as usize;
            let mut counts = vec![0u64; k];
            let cum = &self.cumulative[t];
            for _ in 0..self.draws {
                let x: f64 = rng.random::<f64>() * cum[k - 1];
                let i = cum.partition_point(|&c| c <= x).min(k - 1);
                counts[i] += 1;
            }
            out.floors[t].push(Self::tv(&counts, self.draws, &self.probs[t]));
        }
        Ok(out)
    }

    fn label(&self) -> String {
        format!("numbrix sampler {}x{}", self.rows, self.cols)
    }
}

/// One row of `numbrix_sampler.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplerRow {
    pub rows: usize,
    pub cols: usize,
    pub paths: u64,
    pub variant: String,
    pub draws: u64,
    pub moves_per_cell: u64,
    pub acceptance_rate: f64,
    pub mean_turns: f64,
    pub snake_turns: u64,
    pub distinct_paths: u64,
    pub tv_uniform: f64,
    pub floor_uniform_mean: f64,
    pub floor_uniform_p95: f64,
    pub uniform: bool,
    /// Share of the simulated perfect samplers whose TV is at most this sampler's.
    pub uniform_percentile: f64,
    pub tv_end_degree: f64,
    pub floor_end_degree_mean: f64,
    pub floor_end_degree_p95: f64,
    pub matches_end_degree: bool,
    pub seed: u64,
}

pub const HEADER: [&str; 20] = [
    "rows",
    "cols",
    "paths",
    "variant",
    "draws",
    "moves_per_cell",
    "acceptance_rate",
    "mean_turns",
    "snake_turns",
    "distinct_paths",
    "tv_uniform",
    "floor_uniform_mean",
    "floor_uniform_p95",
    "uniform",
    "uniform_percentile",
    "tv_end_degree",
    "floor_end_degree_mean",
    "floor_end_degree_p95",
    "matches_end_degree",
    "seed",
];

fn yes(b: bool) -> String {
    if b { "yes" } else { "no" }.to_string()
}

/// Bytes of `numbrix_sampler.csv`.
pub fn sampler_csv(rows: &[SamplerRow]) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(HEADER).unwrap();
    for r in rows {
        let x = r.paths > 0;
        let f6 = |v: f64| if x { format!("{v:.6}") } else { String::new() };
        let yn = |b: bool| if x { yes(b) } else { String::new() };
        w.write_record([
            r.rows.to_string(),
            r.cols.to_string(),
            if x {
                r.paths.to_string()
            } else {
                String::new()
            },
            r.variant.clone(),
            r.draws.to_string(),
            r.moves_per_cell.to_string(),
            format!("{:.6}", r.acceptance_rate),
            format!("{:.4}", r.mean_turns),
            r.snake_turns.to_string(),
            r.distinct_paths.to_string(),
            f6(r.tv_uniform),
            f6(r.floor_uniform_mean),
            f6(r.floor_uniform_p95),
            yn(r.uniform),
            if x {
                format!("{:.4}", r.uniform_percentile)
            } else {
                String::new()
            },
            f6(r.tv_end_degree),
            f6(r.floor_end_degree_mean),
            f6(r.floor_end_degree_p95),
            yn(r.matches_end_degree),
            r.seed.to_string(),
        ])
        .unwrap();
    }
    w.into_inner().expect("in-memory writer")
}

/// Read `numbrix_sampler.csv`.
pub fn read_sampler(path: &Path) -> Result<Vec<SamplerRow>> {
    let mut rdr = crate::engine::table::open_checked(path, &HEADER)?;
    let mut out = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| input_error(format!("{} is malformed: {e}", path.display())))?;
        let bad = || input_error(format!("{} line {} is malformed", path.display(), i + 2));
        let f = |j: usize| rec.get(j).ok_or_else(bad);
        // Blank statistics: a grid past the census (paths blank).
        let num = |j: usize| -> Result<f64> {
            match f(j)? {
                "" => Ok(f64::NAN),
                t => t.parse().map_err(|_| bad()),
            }
        };
        let int = |j: usize| -> Result<u64> {
            match f(j)? {
                "" if j == 2 => Ok(0),
                t => t.parse().map_err(|_| bad()),
            }
        };
        out.push(SamplerRow {
            rows: int(0)? as usize,
            cols: int(1)? as usize,
            paths: int(2)?,
            variant: f(3)?.to_string(),
            draws: int(4)?,
            moves_per_cell: int(5)?,
            acceptance_rate: num(6)?,
            mean_turns: num(7)?,
            snake_turns: int(8)?,
            distinct_paths: int(9)?,
            tv_uniform: num(10)?,
            floor_uniform_mean: num(11)?,
            floor_uniform_p95: num(12)?,
            uniform: f(13)? == "yes",
            uniform_percentile: num(14)?,
            tv_end_degree: num(15)?,
            floor_end_degree_mean: num(16)?,
            floor_end_degree_p95: num(17)?,
            matches_end_degree: f(18)? == "yes",
            seed: int(19)?,
        });
    }
    Ok(out)
}
