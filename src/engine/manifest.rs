//! The manifest written beside each result file: how it was made.

use super::{JobSpec, atomic};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    pub result: String,
    pub command_line: Vec<String>,
    pub jobs: Vec<JobSpec>,
    pub crate_version: String,
    pub git_commit: Option<String>,
    pub units: u64,
    pub threads: usize,
    pub elapsed_seconds: f64,
}

impl Manifest {
    pub fn new(
        result: &Path,
        jobs: Vec<JobSpec>,
        units: u64,
        threads: usize,
        elapsed_seconds: f64,
    ) -> Self {
        Manifest {
            result: result
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            command_line: std::env::args().collect(),
            jobs,
            crate_version: env!("CARGO_PKG_VERSION").to_string(),
            git_commit: git_commit(),
            units,
            threads,
            elapsed_seconds,
        }
    }

    /// `results/foo.csv` -> `results/foo.csv.manifest.json`
    pub fn path_for(result: &Path) -> PathBuf {
        let mut name = result.file_name().unwrap_or_default().to_os_string();
        name.push(".manifest.json");
        result.with_file_name(name)
    }

    pub fn write_beside(&self, result: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self)? + "\n";
        atomic::write_atomic_str(&Self::path_for(result), &text)
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
