//! Running a job's units: rayon work stealing, a crossbeam channel to one writer thread that
//! journals finished units and drives the progress bar, and resume from that journal.
//!
//! Journal format (JSON lines): the first line is the [`JournalHeader`]; each further line is one
//! finished unit `{"unit": i, "partial": ...}`. A line is only trusted if it ends in a newline and
//! parses, so a run killed mid-write (SIGKILL included) loses at most the unit it was writing.

use super::{Job, JobSpec, Partial, Unit};
use crate::error::input_error;
use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Which units of a job to run: those with index ≡ `index` (mod `count`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    pub fn contains(&self, unit: u64) -> bool {
        unit % self.count == self.index
    }

    pub fn units(&self, total: u64) -> impl Iterator<Item = u64> + use<> {
        let (i, n) = (self.index, self.count);
        (i..total).step_by(n as usize)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (a, b) = s
            .split_once('/')
            .ok_or_else(|| format!("shard '{s}' is not of the form I/N"))?;
        let index: u64 = a
            .trim()
            .parse()
            .map_err(|_| format!("shard index '{a}' is not a number"))?;
        let count: u64 = b
            .trim()
            .parse()
            .map_err(|_| format!("shard count '{b}' is not a number"))?;
        if count == 0 {
            return Err(format!("shard '{s}': the shard count must be at least 1"));
        }
        if index >= count {
            return Err(format!(
                "shard '{s}': the index must be below the count (0 ≤ I < N)"
            ));
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// How to run a job.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Worker threads; `None` means all cores.
    pub threads: Option<usize>,
    pub shard: Shard,
    /// Journal file for checkpoint/resume; `None` disables journaling.
    pub journal: Option<PathBuf>,
    /// Continue from the journal instead of starting over.
    pub resume: bool,
    /// Draw a progress bar on stderr (only if stderr is a terminal).
    pub progress: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            threads: None,
            shard: Shard::WHOLE,
            journal: None,
            resume: false,
            progress: false,
        }
    }
}

/// What a run produced: the partials of every unit it covered, by unit index.
pub struct RunOutcome<P> {
    pub partials: BTreeMap<u64, P>,
    pub units_total: u64,
    pub units_resumed: u64,
    pub threads: usize,
    pub elapsed_seconds: f64,
}

impl<P: Partial> RunOutcome<P> {
    /// Fold the partials in unit-index order.
    pub fn total(self) -> P {
        fold(self.partials.into_values())
    }
}

/// Fold partials in the order given, starting from the default.
pub fn fold<P: Partial>(parts: impl IntoIterator<Item = P>) -> P {
    let mut acc = P::default();
    for p in parts {
        acc.merge(p);
    }
    acc
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
pub struct JournalHeader {
    pub format: String,
    pub spec: JobSpec,
    pub shard: Shard,
    pub units_total: u64,
}

const JOURNAL_FORMAT: &str = "gridcensus-journal/1";

#[derive(Serialize, Deserialize)]
struct JournalLine<P> {
    unit: u64,
    partial: P,
}

/// A progress bar of `len` steps on stderr, labelled `label` and counting `unit`; hidden unless
/// `enabled` and stderr is a terminal.
pub fn progress_bar(len: u64, enabled: bool, label: &str, unit: &str) -> ProgressBar {
    if !(enabled && std::io::stderr().is_terminal()) {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    b.set_style(
        ProgressStyle::with_template(&format!(
            "{{msg}} [{{elapsed_precise}}] {{wide_bar}} {{pos}}/{{len}} {unit} (eta {{eta}})"
        ))
        .expect("valid template"),
    );
    b.set_message(label.to_string());
    b
}

/// The most worker threads a run accepts: 4 per core, at least 16.
pub fn max_threads() -> usize {
    (4 * num_cpus::get()).max(16)
}

pub fn resolve_threads(threads: Option<usize>) -> Result<usize> {
    match threads {
        Some(0) => Err(input_error("--threads must be at least 1")),
        Some(n) if n > max_threads() => Err(input_error(format!(
            "--threads {n} is above the limit of {} (4 per core, at least 16)",
            max_threads()
        ))),
        Some(n) => Ok(n),
        None => Ok(num_cpus::get().max(1)),
    }
}

/// Read a journal: its header and every complete unit line. A torn last line is dropped.
fn read_journal<P: Partial>(path: &Path) -> Result<(JournalHeader, BTreeMap<u64, P>)> {
    let file =
        File::open(path).with_context(|| format!("cannot open journal {}", path.display()))?;
    let mut reader = BufReader::new(file);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    if !line.ends_with('\n') {
        bail!(input_error(format!(
            "journal {} has no complete header",
            path.display()
        )));
    }
    let header: JournalHeader = serde_json::from_str(line.trim_end()).map_err(|e| {
        input_error(format!(
            "journal {} has a corrupt header: {e}",
            path.display()
        ))
    })?;
    if header.format != JOURNAL_FORMAT {
        bail!(input_error(format!(
            "journal {} has unknown format {}",
            path.display(),
            header.format
        )));
    }
    let mut done = BTreeMap::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 || !line.ends_with('\n') {
            break;
        }
        match serde_json::from_str::<JournalLine<P>>(line.trim_end()) {
            Ok(l) => {
                done.insert(l.unit, l.partial);
            }
            Err(_) => break, // torn write: everything after it is recomputed
        }
    }
    Ok((header, done))
}

/// Run `job` under `opts`. Returns the partials of every unit in the shard (journaled ones
/// included when resuming). A failing unit aborts the run with its error.
pub fn run<J: Job>(job: &J, opts: &RunOptions) -> Result<RunOutcome<J::Partial>> {
    let threads = resolve_threads(opts.threads)?;
    let spec = job.spec();
    let units_total = job.unit_count();
    let header = JournalHeader {
        format: JOURNAL_FORMAT.into(),
        spec: spec.clone(),
        shard: opts.shard,
        units_total,
    };
    let start = Instant::now();

    // Resume: load what the journal already holds; refuse a journal of another job.
    let mut done: BTreeMap<u64, J::Partial> = BTreeMap::new();
    if let (Some(path), true) = (&opts.journal, opts.resume) {
        if !path.exists() {
            eprintln!(
                "note: no journal at {}: nothing to resume, starting from the beginning",
                path.display()
            );
        } else {
            let (old, parts) = read_journal::<J::Partial>(path)?;
            if old != header {
                bail!(input_error(format!(
                    "cannot resume: journal {} is for a different job or parameters ({} {} shard {}), not ({} {} shard {})",
                    path.display(),
                    old.spec.kind,
                    old.spec.params,
                    old.shard,
                    spec.kind,
                    spec.params,
                    opts.shard
                )));
            }
            done = parts
                .into_iter()
                .filter(|(u, _)| opts.shard.contains(*u) && *u < units_total)
                .collect();
        }
    }
    let units_resumed = done.len() as u64;

    // (Re)write the journal: header plus every unit already done, then append as units finish.
    let mut journal = match &opts.journal {
        Some(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot create directory {}", dir.display()))?;
            }
            let mut text = serde_json::to_string(&header)? + "\n";
            for (u, p) in &done {
                text += &serde_json::to_string(&JournalLine {
                    unit: *u,
                    partial: p,
                })?;
                text.push('\n');
            }
            super::atomic::write_atomic_str(path, &text)?;
            let f = OpenOptions::new()
                .append(true)
                .open(path)
                .with_context(|| format!("cannot open journal {}", path.display()))?;
            Some(std::io::BufWriter::new(f))
        }
        None => None,
    };

    let todo: Vec<u64> = opts
        .shard
        .units(units_total)
        .filter(|u| !done.contains_key(u))
        .collect();
    let shard_units = opts.shard.units(units_total).count() as u64;

    let bar = progress_bar(
        shard_units,
        opts.progress && !todo.is_empty(),
        &job.label(),
        "units",
    );
    bar.set_position(units_resumed);

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot build the thread pool")?;
    let (tx, rx) = crossbeam_channel::unbounded::<(u64, J::Partial)>();
    let master_seed = spec.seed;

    let result: Result<()> = std::thread::scope(|scope| {
        // The one writer: journal each finished unit, advance the bar, keep the partial.
        let writer = scope.spawn(|| -> Result<BTreeMap<u64, J::Partial>> {
            let mut got = BTreeMap::new();
            for (u, p) in rx {
                if let Some(j) = journal.as_mut() {
                    serde_json::to_writer(
                        &mut *j,
                        &JournalLine {
                            unit: u,
                            partial: &p,
                        },
                    )?;
                    j.write_all(b"\n")?;
                    j.flush()?; // the line is in the OS once flushed: it survives SIGKILL
                }
                bar.inc(1);
                got.insert(u, p);
            }
            Ok(got)
        });
        let computed: Result<()> = pool.install(|| {
            todo.par_iter()
                .with_max_len(1)
                .try_for_each_with(tx, |tx, &u| {
                    let p = job.run_unit(Unit {
                        index: u,
                        master_seed,
                    })?;
                    tx.send((u, p)).ok();
                    Ok(())
                })
        });
        let got = writer.join().expect("writer thread panicked")?;
        computed?;
        done.extend(got);
        Ok(())
    });
    bar.finish_and_clear();
    result?;

    Ok(RunOutcome {
        partials: done,
        units_total,
        units_resumed,
        threads,
        elapsed_seconds: start.elapsed().as_secs_f64(),
    })
}

/// Run every unit of a job on the calling thread's rayon pool, without journal or progress, and
/// return the folded total. Handy for tests and for small jobs nested inside others.
pub fn run_simple<J: Job>(job: &J, threads: Option<usize>) -> Result<J::Partial> {
    let opts = RunOptions {
        threads,
        ..Default::default()
    };
    Ok(run(job, &opts)?.total())
}
