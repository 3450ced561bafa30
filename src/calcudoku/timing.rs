//! `calcudoku time`: uniqueness decisions (cap 2) timed board by board, on seeded random-cut
//! boards per (order, largest cage, sign mode) or on board files, reported as median, p90, p99,
//! max and mean of single-threaded CPU time (and wall time), with the slowest boards optionally
//! saved as board files.

use super::board::Board;
use super::generate::{GenOptions, random_board, random_board_with};
use super::solver::{Count, Rungs, SearchPolicy, solve_with};
use crate::error::input_error;
use anyhow::Result;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::{Path, PathBuf};

pub use crate::engine::clock::thread_cpu_ns;

/// One board's timing: the fastest of the repeats (CPU and wall taken from the same run).
#[derive(Clone, Debug)]
pub struct BoardTime {
    pub cpu_ns: u64,
    pub wall_ns: u64,
    pub nodes: u64,
    pub count: Count,
}

/// Decide uniqueness (cap 2) of `b`, `repeats` times, keeping the run with the least CPU time.
pub fn time_board(
    b: &Board,
    rungs: Rungs,
    node_cap: u64,
    policy: SearchPolicy,
    repeats: usize,
) -> BoardTime {
    let mut best: Option<BoardTime> = None;
    for _ in 0..repeats.max(1) {
        let (c0, w0) = (thread_cpu_ns(), std::time::Instant::now());
        let out = solve_with(b, rungs, 2, node_cap, policy);
        let wall_ns = w0.elapsed().as_nanos() as u64;
        let cpu_ns = thread_cpu_ns().saturating_sub(c0);
        if best.as_ref().is_none_or(|t| cpu_ns < t.cpu_ns) {
            best = Some(BoardTime {
                cpu_ns,
                wall_ns,
                nodes: out.nodes,
                count: out.count,
            });
        }
    }
    best.expect("one run")
}

/// A named set of boards to time; each board carries a label for the tail files.
pub struct TimeSet {
    pub name: String,
    pub boards: Vec<(String, Board)>,
}

/// Seeded random-cut boards: board `k` of (order, largest cage) is drawn from one stream seeded
/// by `seed`, as `calcudoku generate` draws them; the hidden-sign set is the same boards with
/// every sign hidden.
/// With `no_singletons`, one-cell cages are folded into neighbours (Keen's cuts, see
/// [`super::generate::fold_singletons`]).
pub fn random_set(
    order: usize,
    max_cage: usize,
    no_singletons: bool,
    boards: usize,
    seed: u64,
    hide: bool,
) -> TimeSet {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let signs = if hide { "hidden" } else { "shown" };
    let opts = GenOptions {
        max_cage,
        no_singletons,
        mul_only: false,
    };
    let (min, tag) = if no_singletons { (2, "_min2") } else { (1, "") };
    TimeSet {
        name: format!("{order}x{order} cage {min}-{max_cage} {signs}"),
        boards: (0..boards)
            .map(|k| {
                let b = if no_singletons {
                    random_board_with(order, opts, hide, &mut rng).0
                } else {
                    random_board(order, max_cage, hide, &mut rng).0
                };
                (
                    format!("{order}x{order}_cage{max_cage}{tag}_{signs}_seed{seed}_board{k}"),
                    b,
                )
            })
            .collect(),
    }
}

/// Board files named on the command line: files as given, directories expanded to their
/// `*.txt` files in name order.
pub fn board_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| input_error(format!("cannot read directory {}: {e}", p.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|q| q.extension().is_some_and(|x| x == "txt"))
                .collect();
            v.sort();
            if v.is_empty() {
                return Err(input_error(format!(
                    "directory {} holds no .txt board files",
                    p.display()
                )));
            }
            out.extend(v);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Read board files; `hide` hides every sign on top of the `?` cages the files mark.
pub fn file_set(files: &[PathBuf], hide: bool) -> Result<TimeSet> {
    let mut boards = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f)
            .map_err(|e| input_error(format!("cannot read board file {}: {e}", f.display())))?;
        let b = super::keen::read_board(&text, hide)
            .map_err(|e| input_error(format!("{}: {e}", f.display())))?;
        let stem = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        boards.push((stem, b));
    }
    Ok(TimeSet {
        name: format!(
            "{} file(s), signs {}",
            files.len(),
            if hide { "hidden" } else { "as written" }
        ),
        boards,
    })
}

/// Timing summary of one set.
#[derive(Clone, Debug)]
pub struct Summary {
    pub name: String,
    pub boards: usize,
    pub unique: u64,
    pub unknown: u64,
    /// CPU microseconds: median, p90, p99, max.
    pub cpu_us: [f64; 4],
    /// CPU microseconds per decision, mean over the boards (exact, not from the histogram).
    pub cpu_mean_us: f64,
    /// Wall microseconds: median, p90, p99, max.
    pub wall_us: [f64; 4],
    pub over_1s: u64,
    pub over_2s: u64,
    pub max_nodes: u64,
    pub mean_nodes: f64,
}

fn quantiles(v: &[u64]) -> [f64; 4] {
    let mut h = hdrhistogram::Histogram::<u64>::new(3).expect("histogram");
    for &x in v {
        h.record(x.max(1)).expect("record");
    }
    let us = |x: u64| x as f64 / 1e3;
    [
        us(h.value_at_quantile(0.5)),
        us(h.value_at_quantile(0.9)),
        us(h.value_at_quantile(0.99)),
        us(h.max()),
    ]
}

/// Time every board of `set`; return the summary and the per-board times (set order).
pub fn time_set(
    set: &TimeSet,
    rungs: Rungs,
    node_cap: u64,
    policy: SearchPolicy,
    repeats: usize,
    bar: &indicatif::ProgressBar,
) -> (Summary, Vec<BoardTime>) {
    use rayon::prelude::*;
    // In the current rayon pool (`ThreadPool::install`), boards side by side, each timed by
    // its own thread's CPU clock; `collect` keeps the set's order.
    let times: Vec<BoardTime> = set
        .boards
        .par_iter()
        .map(|(_, b)| {
            let t = time_board(b, rungs, node_cap, policy, repeats);
            bar.inc(1);
            t
        })
        .collect();
    (summarize(&set.name, &times), times)
}

/// The summary row of a set's board times.
pub fn summarize(name: &str, times: &[BoardTime]) -> Summary {
    let cpu: Vec<u64> = times.iter().map(|t| t.cpu_ns).collect();
    let wall: Vec<u64> = times.iter().map(|t| t.wall_ns).collect();
    let n = times.len().max(1);
    Summary {
        name: name.to_string(),
        boards: times.len(),
        unique: times.iter().filter(|t| t.count == Count::Exact(1)).count() as u64,
        unknown: times.iter().filter(|t| t.count == Count::Unknown).count() as u64,
        cpu_us: quantiles(&cpu),
        cpu_mean_us: cpu.iter().sum::<u64>() as f64 / 1e3 / n as f64,
        wall_us: quantiles(&wall),
        over_1s: cpu.iter().filter(|&&x| x > 1_000_000_000).count() as u64,
        over_2s: cpu.iter().filter(|&&x| x > 2_000_000_000).count() as u64,
        max_nodes: times.iter().map(|t| t.nodes).max().unwrap_or(0),
        mean_nodes: times.iter().map(|t| t.nodes).sum::<u64>() as f64 / n as f64,
    }
}

/// Each board's mean CPU, wall and nodes over the same set timed several times (under several
/// restart seeds), rounded down; its answer count is the first one that is not unknown.
pub fn mean_times(runs: &[Vec<BoardTime>]) -> Vec<BoardTime> {
    let k = runs.len().max(1) as u64;
    let boards = runs.first().map_or(0, Vec::len);
    (0..boards)
        .map(|i| {
            let sum = |f: fn(&BoardTime) -> u64| runs.iter().map(|r| f(&r[i])).sum::<u64>() / k;
            BoardTime {
                cpu_ns: sum(|t| t.cpu_ns),
                wall_ns: sum(|t| t.wall_ns),
                nodes: sum(|t| t.nodes),
                count: runs
                    .iter()
                    .map(|r| r[i].count)
                    .find(|&c| c != Count::Unknown)
                    .unwrap_or(Count::Unknown),
            }
        })
        .collect()
}

pub const TABLE_HEADER: &str = "set                        boards unique unknown  cpu_med_us  cpu_p90_us  cpu_p99_us  cpu_max_us cpu_mean_us  wall_med_us wall_max_us >1s >2s mean_nodes max_nodes";

pub fn table_row(s: &Summary) -> String {
    format!(
        "{:<26} {:>6} {:>6} {:>7} {:>11.1} {:>11.1} {:>11.1} {:>11.1} {:>11.1} {:>12.1} {:>11.1} {:>3} {:>3} {:>10.2} {:>9}",
        s.name,
        s.boards,
        s.unique,
        s.unknown,
        s.cpu_us[0],
        s.cpu_us[1],
        s.cpu_us[2],
        s.cpu_us[3],
        s.cpu_mean_us,
        s.wall_us[0],
        s.wall_us[3],
        s.over_1s,
        s.over_2s,
        s.mean_nodes,
        s.max_nodes
    )
}

/// Write the `count` slowest boards of a set (by CPU time) as board files under `dir`, each
/// with a comment header giving its origin, time and nodes; hidden signs are written as `?`.
pub fn save_tail(dir: &Path, set: &TimeSet, times: &[BoardTime], count: usize) -> Result<()> {
    let mut idx: Vec<usize> = (0..times.len()).collect();
    idx.sort_by_key(|&i| std::cmp::Reverse(times[i].cpu_ns));
    for &i in idx.iter().take(count) {
        let (label, b) = &set.boards[i];
        let t = &times[i];
        let text = format!(
            "# {label}: {:.1} ms CPU, {} nodes, answers {} (uniqueness decision, cap 2)\n{}",
            t.cpu_ns as f64 / 1e6,
            t.nodes,
            t.count,
            b.unsigned_text()
        );
        crate::engine::atomic::write_atomic_str(&dir.join(format!("{label}.txt")), &text)?;
    }
    Ok(())
}

/// Write every board's time (rows in order, boards in set order) as CSV to `path`, through a
/// temporary file renamed into place: set (the row's name), board, cpu_us, wall_us, nodes,
/// answers.
pub fn write_board_times(path: &Path, rows: &[(String, &TimeSet, Vec<BoardTime>)]) -> Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["set", "board", "cpu_us", "wall_us", "nodes", "answers"])?;
    for (name, set, times) in rows {
        for ((label, _), t) in set.boards.iter().zip(times) {
            w.write_record([
                name.as_str(),
                label.as_str(),
                &format!("{:.1}", t.cpu_ns as f64 / 1e3),
                &format!("{:.1}", t.wall_ns as f64 / 1e3),
                &t.nodes.to_string(),
                &t.count.to_string(),
            ])?;
        }
    }
    let bytes = w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
    crate::engine::atomic::write_atomic(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bt(cpu_us: u64, nodes: u64) -> BoardTime {
        BoardTime {
            cpu_ns: cpu_us * 1000,
            wall_ns: cpu_us * 1000,
            nodes,
            count: Count::AtLeast(2),
        }
    }

    #[test]
    fn summary_mean_is_exact_and_mean_rows_keep_it() {
        // A heavy tail: the mean lies far above the median and is not a histogram bucket.
        let a = vec![bt(100, 3), bt(200, 5), bt(300, 7), bt(1_000_003, 90)];
        let b = vec![bt(300, 5), bt(200, 5), bt(100, 9), bt(3_000_001, 200)];
        let s = summarize("x", &a);
        assert_eq!(s.cpu_mean_us, (100.0 + 200.0 + 300.0 + 1_000_003.0) / 4.0);
        assert_eq!(s.mean_nodes, 105.0 / 4.0);
        assert_eq!(s.over_1s, 1);
        // The row of each board's mean over two runs has the mean of both runs' means.
        let sb = summarize("y", &b);
        let m = mean_times(&[a, b]);
        assert_eq!(m[3].cpu_ns, 2_000_002_000);
        let sm = summarize("mean", &m);
        assert_eq!(sm.cpu_mean_us, (s.cpu_mean_us + sb.cpu_mean_us) / 2.0);
        // The row shows it in its own column, between the maximum and the wall median.
        let row = table_row(&sm);
        let head: Vec<&str> = TABLE_HEADER.split_whitespace().collect();
        let cols: Vec<&str> = row.split_whitespace().collect();
        let at = head.iter().position(|&h| h == "cpu_mean_us").unwrap();
        assert_eq!(head[at - 1], "cpu_max_us");
        assert_eq!(head.len(), cols.len());
        assert_eq!(cols[at], "500150.5");
    }
}
