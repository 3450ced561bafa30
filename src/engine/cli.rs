//! The engine's command-line face: the argument group every job subcommand flattens in, and the
//! function that runs a job from those arguments (whole, one shard, or resumed).

// The doc comments of the argument structs are the command-line help, written for a terminal
// (`[OPTIONS]`, `<results>/...`), not rustdoc links or HTML.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use super::manifest::{Manifest, RunRecord};
use super::run::{RunOptions, Shard, run};
use super::shard::write_partial_file;
use super::{Job, JobSpec, Partial};
use anyhow::Result;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Clone, Debug)]
pub struct EngineArgs {
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Run only the units with index ≡ I (mod N) and write a partial file for `gridcensus merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Continue an interrupted run from its journal (refused if the parameters differ).
    #[arg(long)]
    pub resume: bool,
    /// Journal file (default: <results>/.journal/<job>-<digest>[-shard-I-of-N].jsonl).
    #[arg(long, value_name = "FILE")]
    pub journal: Option<PathBuf>,
    /// Where a shard's partial file goes (default: <results>/partials/<job>-<digest>-shard-I-of-N.json).
    #[arg(long, value_name = "FILE")]
    pub partial_out: Option<PathBuf>,
    /// Directory of result files.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub results: PathBuf,
    /// Never draw a progress bar (it is drawn only when stderr is a terminal anyway).
    #[arg(long)]
    pub no_progress: bool,
    /// Replace a manifest beside a result file that is unreadable or describes another file
    /// (default: refuse with exit 2 and write nothing).
    #[arg(long)]
    pub replace_manifest: bool,
}

impl Default for EngineArgs {
    fn default() -> Self {
        EngineArgs {
            threads: None,
            shard: None,
            resume: false,
            journal: None,
            partial_out: None,
            results: PathBuf::from("results"),
            no_progress: false,
            replace_manifest: false,
        }
    }
}

fn shard_suffix(shard: Option<Shard>) -> String {
    match shard {
        Some(s) if s.count > 1 || s.index > 0 => format!("-shard-{}-of-{}", s.index, s.count),
        Some(s) => format!("-shard-{}-of-{}", s.index, s.count),
        None => String::new(),
    }
}

impl EngineArgs {
    pub fn journal_path(&self, spec: &JobSpec) -> PathBuf {
        self.journal.clone().unwrap_or_else(|| {
            self.results.join(".journal").join(format!(
                "{}-{}{}.jsonl",
                spec.kind,
                spec.digest(),
                shard_suffix(self.shard)
            ))
        })
    }

    pub fn partial_path(&self, spec: &JobSpec) -> PathBuf {
        self.partial_out.clone().unwrap_or_else(|| {
            self.results.join("partials").join(format!(
                "{}-{}{}.json",
                spec.kind,
                spec.digest(),
                shard_suffix(self.shard)
            ))
        })
    }

    /// Validate the options that can be checked before any work starts.
    pub fn validate(&self) -> Result<()> {
        super::run::resolve_threads(self.threads)?;
        super::manifest::allow_replacing_foreign(self.replace_manifest);
        // Complete (or roll back) a group write that a killed run left in the results
        // directory, before this run reads any of its files.
        super::atomic::recover_dir(&self.results)?;
        Ok(())
    }
}

/// `--resume` found no journal for these parameters. If an unfinished journal of the same job
/// kind (and shard) exists for other parameters, the user most likely changed a parameter by
/// mistake: refuse rather than silently starting over. (Finished journals, e.g. earlier orders of
/// a multi-order command, are not in the way.)
fn refuse_other_unfinished(args: &EngineArgs, spec: &JobSpec, journal: &Path) -> Result<()> {
    let Some(dir) = journal.parent() else {
        return Ok(());
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let suffix = format!("{}.jsonl", shard_suffix(args.shard));
    let our_shard = args.shard.unwrap_or(Shard::WHOLE);
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(&format!("{}-", spec.kind)) else {
            continue;
        };
        // `<kind>-<16 hex digest>[-shard-I-of-N].jsonl`: the digest is exactly 16 hex digits.
        if rest.len() < 16 + ".jsonl".len() || !rest.ends_with(".jsonl") {
            continue;
        }
        let same_split = rest.len() == 16 + suffix.len() && rest.ends_with(&suffix);
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        let mut lines = text.split_inclusive('\n').filter(|l| l.ends_with('\n'));
        let Some(Ok(header)) = lines.next().map(serde_json::from_str::<serde_json::Value>) else {
            continue;
        };
        let Ok(other) = serde_json::from_value::<JobSpec>(header["spec"].clone()) else {
            continue;
        };
        let total = header["units_total"].as_u64().unwrap_or(0);
        let shard: Shard = serde_json::from_value(header["shard"].clone()).unwrap_or(Shard::WHOLE);
        let done_units = text
            .split_inclusive('\n')
            .filter(|l| l.ends_with('\n'))
            .skip(1)
            .filter(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
            .count() as u64;
        let unfinished = done_units < shard.units(total).count() as u64;
        if other == *spec {
            if shard.count != our_shard.count && unfinished {
                return Err(crate::error::input_error(format!(
                    "cannot resume shard {}: the unfinished journal {} splits this job differently (shard {shard}); resume it with that split, or rerun without --resume to start over",
                    our_shard,
                    entry.path().display(),
                )));
            }
            continue;
        }
        if !same_split {
            continue;
        }
        if unfinished {
            return Err(crate::error::input_error(format!(
                "cannot resume: the unfinished journal {} is for other parameters ({} {}); rerun with those parameters, or without --resume to start over",
                entry.path().display(),
                other.kind,
                other.params
            )));
        }
    }
    Ok(())
}

/// Facts about a finished whole run, for the manifest.
#[derive(Clone, Debug)]
pub struct RunStats {
    pub spec: JobSpec,
    pub units: u64,
    pub threads: usize,
    pub elapsed_seconds: f64,
    journal: Option<PathBuf>,
    merged_from: Vec<String>,
}

impl RunStats {
    /// Build stats for a result that was assembled by `merge` rather than run here.
    pub fn merged(spec: JobSpec, units: u64, elapsed_seconds: f64) -> Self {
        RunStats {
            spec,
            units,
            threads: 0,
            elapsed_seconds,
            journal: None,
            merged_from: Vec::new(),
        }
    }

    /// The manifest record of this run.
    pub fn record(&self) -> RunRecord {
        let mut r = RunRecord::new(
            self.spec.clone(),
            self.units,
            self.threads,
            self.elapsed_seconds,
        );
        r.merged_from = self.merged_from.clone();
        r
    }

    /// Remove the journal once the results are safely written.
    pub fn cleanup(&self) {
        if let Some(j) = &self.journal {
            std::fs::remove_file(j).ok();
        }
    }
}

/// Run `job` as the arguments say. With `--shard`, runs that shard, writes its partial file and
/// returns `None`; otherwise returns the total with run facts. Call [`RunStats::cleanup`] after
/// the result files are written, so a kill before that point can still resume.
pub fn execute<J: Job>(job: &J, args: &EngineArgs) -> Result<Option<(J::Partial, RunStats)>> {
    args.validate()?;
    if super::plan::active() {
        // `gridcensus plan`: time a sample of units instead of running; write nothing.
        super::plan::plan_job(job, args)?;
        return Ok(None);
    }
    let spec = job.spec();
    let journal = args.journal_path(&spec);
    if args.resume && args.journal.is_none() && !journal.exists() {
        refuse_other_unfinished(args, &spec, &journal)?;
    }
    let opts = RunOptions {
        threads: args.threads,
        shard: args.shard.unwrap_or(Shard::WHOLE),
        journal: Some(journal.clone()),
        resume: args.resume,
        progress: !args.no_progress,
    };
    let outcome = run(job, &opts)?;
    let (threads, elapsed, units) = (
        outcome.threads,
        outcome.elapsed_seconds,
        outcome.units_total,
    );
    if let Some(shard) = args.shard {
        let path = args.partial_path(&spec);
        write_partial_file(&path, &spec, shard, units, outcome.partials)?;
        std::fs::remove_file(&journal).ok();
        eprintln!(
            "wrote partial {} (shard {shard}, {elapsed:.2} s on {threads} threads)",
            path.display()
        );
        return Ok(None);
    }
    let total: J::Partial = outcome.total();
    Ok(Some((
        total,
        RunStats {
            spec,
            units,
            threads,
            elapsed_seconds: elapsed,
            journal: Some(journal),
            merged_from: Vec::new(),
        },
    )))
}

/// Write a result file atomically with its manifest beside it (one record per contributing run).
pub fn write_result(path: &Path, bytes: &[u8], stats: &[&RunStats]) -> Result<()> {
    write_result_keeping(path, bytes, stats, |_| false)
}

/// Like [`write_result`] for files that keep rows of earlier runs: the earlier manifest's
/// records whose spec satisfies `keep` (and is not recomputed now) stay in the manifest.
pub fn write_result_keeping(
    path: &Path,
    bytes: &[u8],
    stats: &[&RunStats],
    keep: impl Fn(&JobSpec) -> bool,
) -> Result<()> {
    write_results_keeping(&[(path.to_path_buf(), bytes.to_vec())], stats, keep)
}

/// Write result files (all in one directory) and their manifests as one atomic group: after a
/// kill, the next writer completes or rolls back the whole group, so sibling files (a census and
/// its summary) and their manifests always agree. A result whose bytes equal the file already
/// there (with a readable manifest) is left untouched, manifest included, and said so. An
/// unreadable or foreign manifest is refused before anything is written.
pub fn write_results_keeping(
    files: &[(PathBuf, Vec<u8>)],
    stats: &[&RunStats],
    keep: impl Fn(&JobSpec) -> bool,
) -> Result<()> {
    let mut group = Vec::new();
    for (path, bytes) in files {
        let mut manifest =
            Manifest::upsert_checked(path, stats.iter().map(|s| s.record()).collect(), &keep)?;
        manifest.result_fnv64 = Some(super::shard::fnv64(bytes));
        let same_bytes = std::fs::read(path).is_ok_and(|old| old == *bytes);
        let recorded = Manifest::read_beside(path).is_some_and(|m| {
            stats
                .iter()
                .all(|s| m.runs.iter().any(|r| r.spec == s.spec))
        });
        if same_bytes && recorded {
            eprintln!(
                "unchanged: {} (same bytes; result and manifest left as they are)",
                path.display()
            );
            continue;
        }
        if same_bytes {
            eprintln!(
                "unchanged: {} (same bytes; its manifest now records this run)",
                path.display()
            );
        } else {
            group.push((path.clone(), bytes.clone()));
        }
        group.push((Manifest::path_for(path), manifest.to_bytes()?));
    }
    super::atomic::write_atomic_group(&group)
}

/// Merge partial files of job type `J` and return the total with stats for the manifest.
pub fn merge<P: Partial>(files: &[PathBuf]) -> Result<(JobSpec, P, RunStats)> {
    let start = std::time::Instant::now();
    let (spec, units, total) = super::shard::merge_files::<P>(files)?;
    let mut stats = RunStats::merged(spec.clone(), units, start.elapsed().as_secs_f64());
    stats.merged_from = files.iter().map(|f| f.display().to_string()).collect();
    Ok((spec, total, stats))
}

/// Parse an integer list option: "8", a range "1-7", or a list "5,6,8" (ranges allowed inside),
/// for `--flag`. The result is sorted and deduplicated; every value must lie in `lo..=hi`.
/// Errors are one-line [`InputError`](crate::error::InputError)s naming the flag.
pub fn parse_int_list(flag: &str, s: &str, lo: usize, hi: usize) -> Result<Vec<usize>> {
    use crate::error::input_error;
    let mut out = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let parse = |x: &str| -> Result<usize> {
            x.trim()
                .parse()
                .map_err(|_| input_error(format!("{flag}: '{}' is not a number", x.trim())))
        };
        let (a, b) = (parse(a)?, parse(b)?);
        for n in [a, b] {
            if n < lo || n > hi {
                return Err(input_error(format!(
                    "{flag} {n} is out of range ({lo} to {hi})"
                )));
            }
        }
        if a > b {
            return Err(input_error(format!("{flag}: empty range {a}-{b}")));
        }
        out.extend(a..=b);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Parse a board-size list option: "6" or "4-7" (square boards 6x6, 4x4..7x7), or explicit
/// rectangles "4x4,6x8" (rows x columns); the forms mix ("4-5,3x6"). Sorted, deduplicated;
/// every side must lie in `lo..=hi`. Errors are one-line input errors naming the flag.
pub fn parse_sizes(flag: &str, s: &str, lo: usize, hi: usize) -> Result<Vec<(usize, usize)>> {
    use crate::error::input_error;
    let mut out = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        if let Some((r, c)) = part.split_once(['x', 'X']) {
            let parse = |x: &str| -> Result<usize> {
                let v: usize = x
                    .trim()
                    .parse()
                    .map_err(|_| input_error(format!("{flag}: '{}' is not a number", x.trim())))?;
                if v < lo || v > hi {
                    return Err(input_error(format!(
                        "{flag}: side {v} is out of range ({lo} to {hi})"
                    )));
                }
                Ok(v)
            };
            out.push((parse(r)?, parse(c)?));
        } else {
            for n in parse_int_list(flag, part, lo, hi)? {
                out.push((n, n));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// The one default master seed of every job and generator.
pub const DEFAULT_SEED: u64 = 1;
/// The one default search node cap (per decision) of every solver; 0 is refused.
pub const DEFAULT_NODE_CAP: u64 = 1_000_000;

#[cfg(test)]
mod size_tests {
    use super::parse_sizes;
    #[test]
    fn sizes_forms() {
        assert_eq!(
            parse_sizes("--sizes", "4-5,3x6", 1, 20).unwrap(),
            vec![(3, 6), (4, 4), (5, 5)]
        );
        assert_eq!(parse_sizes("--sizes", "6", 1, 20).unwrap(), vec![(6, 6)]);
        assert!(parse_sizes("--sizes", "0x4", 1, 20).is_err());
        assert!(parse_sizes("--sizes", "4xq", 1, 20).is_err());
    }
}
