//! Planning a run before submitting it: `gridcensus plan -- <job args>`.
//!
//! The plan command parses an ordinary job command line and turns on plan mode for this process.
//! When the job reaches [`super::cli::execute`], the engine asks the job for its unit count and,
//! instead of running the job, times a small random sample of its units (one unit at a time, by
//! the CPU time of every thread of the process, within a time budget). From the sample it estimates the total CPU time with a
//! standard-error interval and suggests a shard count for a given number of cores. Nothing is
//! written: no journal, no partial, no result file.
//!
//! With `--paths` nothing is timed: the plan prints the job's kind, digest, unit count and the
//! default partial and journal file of every shard of an N-shard run, which is what the cluster
//! scripts need to find a job's files without knowing anything about puzzles.

use super::cli::EngineArgs;
use super::run::Shard;
use super::{Job, JobSpec, Unit};
use anyhow::Result;
use rand::SeedableRng;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What the plan command asked for.
#[derive(Clone, Debug)]
pub struct PlanRequest {
    /// Units to time (at most; fewer if the job has fewer units or the budget runs out).
    pub sample: usize,
    /// Wall-clock budget for the timed sample, in seconds.
    pub budget_seconds: f64,
    /// Seed of the random choice of sampled units.
    pub seed: u64,
    /// Cores the suggested shard count is for.
    pub cores: u64,
    /// Target CPU-hours per shard for the suggested shard count.
    pub shard_hours: f64,
    /// `Some(N)`: print the files of an N-shard run instead of timing anything.
    pub paths_for_shards: Option<u64>,
}

/// One planned job: what the engine learnt from it.
#[derive(Clone, Debug)]
pub struct PlanReport {
    pub spec: JobSpec,
    pub label: String,
    pub units: u64,
    /// Seconds of each timed unit, in the order they ran.
    pub unit_seconds: Vec<f64>,
    /// The sample was cut short by the budget with one unit still running for this many seconds
    /// of wall time ...
    pub unfinished_wall: Option<f64>,
    /// ... and this much measured time (CPU, or wall where CPU clocks are unavailable), a lower
    /// bound on that unit's cost.
    pub unfinished_seconds: Option<f64>,
    /// `(shard index, partial file, journal file)` in `--paths` mode.
    pub files: Vec<(u64, std::path::PathBuf, std::path::PathBuf)>,
}

static PLAN: Mutex<Option<(PlanRequest, Vec<PlanReport>)>> = Mutex::new(None);

/// Turn plan mode on for this process (the plan command does this before dispatching the job).
pub fn activate(req: PlanRequest) {
    *PLAN.lock().unwrap() = Some((req, Vec::new()));
}

/// Turn plan mode off and return what was planned.
pub fn take() -> Vec<PlanReport> {
    PLAN.lock()
        .unwrap()
        .take()
        .map(|(_, r)| r)
        .unwrap_or_default()
}

fn request() -> Option<PlanRequest> {
    PLAN.lock().unwrap().as_ref().map(|(r, _)| r.clone())
}

/// Whether this process is planning rather than running.
pub fn active() -> bool {
    PLAN.lock().unwrap().is_some()
}

/// Called by `execute` in plan mode instead of running the job.
pub(crate) fn plan_job<J: Job>(job: &J, args: &EngineArgs) -> Result<()> {
    let req = request().expect("plan mode is active");
    let spec = job.spec();
    let units = job.unit_count();
    let mut report = PlanReport {
        spec: spec.clone(),
        label: job.label(),
        units,
        unit_seconds: Vec::new(),
        unfinished_wall: None,
        unfinished_seconds: None,
        files: Vec::new(),
    };
    if let Some(n) = req.paths_for_shards {
        for i in 0..n {
            let mut a = args.clone();
            a.shard = Some(Shard { index: i, count: n });
            a.journal = None;
            a.partial_out = None;
            report
                .files
                .push((i, a.partial_path(&spec), a.journal_path(&spec)));
        }
        store(report);
        return Ok(());
    }
    let k = req.sample.min(units.min(usize::MAX as u64) as usize).max(1);
    let mut rng = super::seed::UnitRng::seed_from_u64(req.seed);
    let mut picks: Vec<u64> = rand::seq::index::sample(&mut rng, units as usize, k)
        .into_iter()
        .map(|i| i as u64)
        .collect();
    picks.truncate(k);
    let budget = Duration::from_secs_f64(req.budget_seconds.max(0.0));
    let master_seed = spec.seed;
    let start = Instant::now();
    // Units run one at a time on a helper thread so that a unit far longer than the budget
    // cannot hold the plan hostage: the report is printed and the process ends without it.
    // A unit's cost is the process CPU time it adds (every thread: a unit may parallelise
    // inside, over rayon's pool); the main thread only waits meanwhile.
    let (tx, rx) = crossbeam_channel::unbounded::<Result<f64>>();
    // The unit in progress: wall start (ns since `start`) and the process CPU clock then (ns).
    use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
    let current = AtomicU64::new(0);
    let current_cpu = AtomicU64::new(u64::MAX);
    let (current, current_cpu) = (&current, &current_cpu);
    let outcome = std::thread::scope(|s| {
        s.spawn(move || {
            for &index in &picks {
                current.store(start.elapsed().as_nanos() as u64, SeqCst);
                current_cpu.store(
                    process_cpu_seconds().map_or(u64::MAX, |c| (c * 1e9) as u64),
                    SeqCst,
                );
                let (t, c) = (Instant::now(), process_cpu_seconds());
                let r = job.run_unit(Unit { index, master_seed });
                // CPU time when the kernel reports it (a loaded machine then does not inflate
                // the estimate), wall time otherwise.
                let secs = match (c, process_cpu_seconds()) {
                    (Some(a), Some(b)) => b - a,
                    _ => t.elapsed().as_secs_f64(),
                };
                if tx.send(r.map(|_| secs)).is_err() {
                    return;
                }
                if start.elapsed() >= budget {
                    return;
                }
            }
        });
        loop {
            let left = budget.saturating_sub(start.elapsed());
            match rx.recv_timeout(left) {
                Ok(Ok(secs)) => report.unit_seconds.push(secs),
                Ok(Err(e)) => return Err(e),
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break,
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                    // The worker may be between its last send and its return: a short grace.
                    match rx.recv_timeout(Duration::from_millis(200)) {
                        Ok(r) => {
                            report.unit_seconds.push(r?);
                            continue;
                        }
                        Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break,
                        Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                    }
                    // A unit is still running past the budget: report without it and end the
                    // process (scoped threads cannot be abandoned otherwise).
                    let began = current.load(SeqCst) as f64 * 1e-9;
                    report.unfinished_wall = Some(start.elapsed().as_secs_f64() - began);
                    // Its CPU time so far, a lower bound on its cost.
                    let cpu0 = current_cpu.load(SeqCst);
                    if let (true, Some(now)) = (cpu0 != u64::MAX, process_cpu_seconds()) {
                        report.unfinished_seconds =
                            Some(((now * 1e9) as u64).saturating_sub(cpu0) as f64 * 1e-9);
                    } else if !measures_cpu_time() {
                        report.unfinished_seconds = report.unfinished_wall;
                    }
                    print!("{}", render(&report, &req));
                    use std::io::Write;
                    std::io::stdout().flush().ok();
                    std::process::exit(0);
                }
            }
        }
        Ok(())
    });
    outcome?;
    store(report);
    Ok(())
}

/// CPU seconds of the whole process (every thread), when the clock is available.
fn process_cpu_seconds() -> Option<f64> {
    match super::clock::process_cpu_ns() {
        0 => None,
        ns => Some(ns as f64 * 1e-9),
    }
}

/// Whether unit times are process CPU times (else wall times).
pub fn measures_cpu_time() -> bool {
    process_cpu_seconds().is_some()
}

fn store(report: PlanReport) {
    if let Some((_, reports)) = PLAN.lock().unwrap().as_mut() {
        reports.push(report);
    }
}

/// Summary statistics of a timed sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub sampled: usize,
    pub mean: f64,
    /// Sample standard deviation (0 with one unit).
    pub sd: f64,
    /// Standard error of the mean (0 with one unit, or when every unit was timed).
    pub se: f64,
    pub max: f64,
    /// Estimated total CPU-seconds and its approximate 95% interval (mean ± 1.96 SE, scaled).
    pub total: f64,
    pub total_lo: f64,
    pub total_hi: f64,
}

/// Estimate the total from per-unit times of a random sample of `units` units. With a finite
/// population correction, so a sample of every unit has zero standard error.
pub fn estimate(unit_seconds: &[f64], units: u64) -> Option<Estimate> {
    let k = unit_seconds.len();
    if k == 0 {
        return None;
    }
    let mean = unit_seconds.iter().sum::<f64>() / k as f64;
    let sd = if k > 1 {
        (unit_seconds.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1) as f64).sqrt()
    } else {
        0.0
    };
    let n = units as f64;
    let fpc = if units > 1 {
        ((n - k as f64) / (n - 1.0)).max(0.0).sqrt()
    } else {
        0.0
    };
    let se = sd / (k as f64).sqrt() * fpc;
    let max = unit_seconds.iter().cloned().fold(0.0, f64::max);
    Some(Estimate {
        sampled: k,
        mean,
        sd,
        se,
        max,
        total: n * mean,
        total_lo: (n * (mean - 1.96 * se)).max(0.0),
        total_hi: n * (mean + 1.96 * se),
    })
}

/// Suggested shard count: at least one shard per core, enough shards that each carries about
/// `shard_hours` of CPU time, a multiple of the core count (so every round keeps every core busy),
/// and never more shards than units.
pub fn suggest_shards(units: u64, total_cpu_seconds: f64, cores: u64, shard_hours: f64) -> u64 {
    let cores = cores.max(1);
    let by_size = if shard_hours > 0.0 {
        (total_cpu_seconds / (shard_hours * 3600.0)).ceil() as u64
    } else {
        1
    };
    let s = by_size.max(cores);
    let s = s.div_ceil(cores) * cores;
    s.min(units.max(1))
}

fn hms(secs: f64) -> String {
    if secs < 120.0 {
        format!("{secs:.1} s")
    } else if secs < 2.0 * 3600.0 {
        format!("{:.1} min", secs / 60.0)
    } else if secs < 3.0 * 86400.0 {
        format!("{:.1} h", secs / 3600.0)
    } else {
        format!("{:.1} days", secs / 86400.0)
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}

/// The human-readable plan (the `--paths` form is machine-readable: one record per line).
pub fn render(r: &PlanReport, req: &PlanRequest) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    if !r.files.is_empty() {
        writeln!(o, "job {} {} {}", r.spec.kind, r.spec.digest(), r.units).unwrap();
        for (i, p, j) in &r.files {
            writeln!(o, "shard {i} {} {}", p.display(), j.display()).unwrap();
        }
        return o;
    }
    writeln!(
        o,
        "job:         {} {} (digest {})",
        r.spec.kind,
        r.spec.params,
        r.spec.digest()
    )
    .unwrap();
    writeln!(o, "units:       {}", r.units).unwrap();
    let cut = r.unfinished_wall.is_some();
    // A sample cut short counts its unfinished unit at the time it had run (a lower bound on
    // that unit), so the estimate is low rather than missing the unit that cost the most.
    let mut times = r.unit_seconds.clone();
    if let Some(t) = r.unfinished_seconds {
        times.push(t);
    }
    let Some(e) = estimate(&times, r.units) else {
        writeln!(
            o,
            "sample:      no unit finished within the {:.0} s budget and its time could not be read; raise --budget",
            req.budget_seconds
        )
        .unwrap();
        return o;
    };
    writeln!(
        o,
        "sample:      {} of {} units chosen at random (seed {}), run one at a time, {} measured; load average {}",
        e.sampled,
        r.units,
        req.seed,
        if measures_cpu_time() {
            "CPU time of every thread"
        } else {
            "wall time"
        },
        load_average(),
    )
    .unwrap();
    if cut {
        writeln!(
            o,
            "cut short:   the {:.0} s budget ended with one unit unfinished after {} ({} wall); it is counted at that time, so every figure below is a LOWER estimate: raise --budget",
            req.budget_seconds,
            hms(r.unfinished_seconds.unwrap_or(0.0)),
            hms(r.unfinished_wall.unwrap_or(0.0))
        )
        .unwrap();
    }
    writeln!(
        o,
        "per unit:    mean {:.6} s, sd {:.6} s, standard error {:.6} s, slowest sampled {:.6} s",
        e.mean, e.sd, e.se, e.max
    )
    .unwrap();
    writeln!(
        o,
        "total:       {:.4} CPU-hours ({}), 95% interval {:.4} to {:.4} CPU-hours",
        e.total / 3600.0,
        hms(e.total),
        e.total_lo / 3600.0,
        e.total_hi / 3600.0
    )
    .unwrap();
    let shards = suggest_shards(r.units, e.total, req.cores, req.shard_hours);
    let rounds = shards.div_ceil(req.cores.max(1));
    let per_shard = e.total / shards as f64;
    writeln!(
        o,
        "suggestion:  --shards {shards} for {} cores (about {} of CPU per shard, {} round(s) of {} tasks; wall about {})",
        req.cores,
        hms(per_shard),
        rounds,
        req.cores.min(shards),
        hms(per_shard * rounds as f64)
    )
    .unwrap();
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_of_a_full_sample_is_exact() {
        let e = estimate(&[1.0, 2.0, 3.0], 3).unwrap();
        assert_eq!(e.total, 6.0);
        assert_eq!(e.se, 0.0);
        assert_eq!((e.total_lo, e.total_hi), (6.0, 6.0));
    }

    #[test]
    fn estimate_interval_scales_with_units() {
        let e = estimate(&[1.0, 3.0], 1_000_000).unwrap();
        assert_eq!(e.mean, 2.0);
        assert!((e.sd - 2f64.sqrt()).abs() < 1e-12);
        assert!(e.total_lo < 2e6 && e.total_hi > 2e6);
        assert!(estimate(&[], 5).is_none());
    }

    #[test]
    fn shard_suggestion() {
        // 10 CPU-hours, 1 h per shard, 4 cores: 10 shards rounded up to 12.
        assert_eq!(suggest_shards(1000, 36000.0, 4, 1.0), 12);
        // Tiny job: one shard per core.
        assert_eq!(suggest_shards(1000, 1.0, 4, 1.0), 4);
        // Never more shards than units.
        assert_eq!(suggest_shards(3, 1.0, 64, 1.0), 3);
    }
}
