//! The manifest written beside each result file: how it was made.
//!
//! A manifest lists one [`RunRecord`] per job that contributed to the file. Files that keep rows
//! from earlier runs (e.g. the Latin census keeps the orders a run did not recompute) keep those
//! runs' records too, so every row can be traced to the command that computed it.

use super::{JobSpec, atomic};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunRecord {
    pub spec: JobSpec,
    pub command_line: Vec<String>,
    pub crate_version: String,
    pub git_commit: Option<String>,
    pub units: u64,
    /// Worker threads (0 when the result was assembled by `gridcensus merge`).
    pub threads: usize,
    pub elapsed_seconds: f64,
    /// Set when the result was assembled from shard partial files.
    #[serde(default)]
    pub merged_from: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    pub result: String,
    pub runs: Vec<RunRecord>,
}

impl RunRecord {
    pub fn new(spec: JobSpec, units: u64, threads: usize, elapsed_seconds: f64) -> Self {
        RunRecord {
            spec,
            command_line: std::env::args().collect(),
            crate_version: env!("CARGO_PKG_VERSION").to_string(),
            git_commit: git_commit(),
            units,
            threads,
            elapsed_seconds,
            merged_from: Vec::new(),
        }
    }
}

impl Manifest {
    /// `results/foo.csv` -> `results/foo.csv.manifest.json`
    pub fn path_for(result: &Path) -> PathBuf {
        let mut name = result.file_name().unwrap_or_default().to_os_string();
        name.push(".manifest.json");
        result.with_file_name(name)
    }

    /// The manifest beside `result`, if there is a readable one.
    pub fn read_beside(result: &Path) -> Option<Manifest> {
        let text = std::fs::read_to_string(Self::path_for(result)).ok()?;
        serde_json::from_str(&text).ok()
    }

    pub fn write_beside(&self, result: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self)? + "\n";
        atomic::write_atomic_str(&Self::path_for(result), &text)
    }

    /// A manifest of `runs`, keeping the earlier manifest's records of `kept` specs.
    pub fn upsert(
        result: &Path,
        runs: Vec<RunRecord>,
        keep: impl Fn(&JobSpec) -> bool,
    ) -> Manifest {
        let mut all: Vec<RunRecord> = Manifest::read_beside(result)
            .map(|m| {
                m.runs
                    .into_iter()
                    .filter(|r| keep(&r.spec) && !runs.iter().any(|n| n.spec == r.spec))
                    .collect()
            })
            .unwrap_or_default();
        all.extend(runs);
        Manifest {
            result: result
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            runs: all,
        }
    }
}

/// The current git commit, when the binary runs inside a git checkout.
pub fn git_commit() -> Option<String> {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}
