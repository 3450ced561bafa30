//! The manifest written beside each result file: how it was made.
//!
//! A manifest lists one [`RunRecord`] per job that contributed to the file. Files that keep rows
//! from earlier runs (e.g. the Latin census keeps the orders a run did not recompute) keep those
//! runs' records too, so every row can be traced to the command that computed it.

use super::{JobSpec, atomic};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

static REPLACE_FOREIGN: AtomicBool = AtomicBool::new(false);

/// Allow (for this process) replacing an unreadable or foreign manifest (`--replace-manifest`).
pub fn allow_replacing_foreign(yes: bool) {
    REPLACE_FOREIGN.store(yes, Ordering::SeqCst);
}

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
    /// FNV-1a 64 digest of the result file's bytes as written: the report checks that the file
    /// still has them (a row deleted or edited by hand fails).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_fnv64: Option<String>,
    pub runs: Vec<RunRecord>,
}

/// The first manifest format: one command line for one or more job specs.
#[derive(Deserialize)]
struct LegacyManifest {
    result: String,
    command_line: Vec<String>,
    jobs: Vec<JobSpec>,
    crate_version: String,
    git_commit: Option<String>,
    units: u64,
    threads: usize,
    elapsed_seconds: f64,
}

impl Manifest {
    /// Parse a manifest of the current format or of the first one.
    pub fn parse(text: &str) -> Result<Manifest, serde_json::Error> {
        match serde_json::from_str::<Manifest>(text) {
            Ok(m) => Ok(m),
            Err(e) => match serde_json::from_str::<LegacyManifest>(text) {
                Ok(l) => Ok(Manifest {
                    result: l.result,
                    result_fnv64: None,
                    runs: l
                        .jobs
                        .into_iter()
                        .map(|spec| RunRecord {
                            spec,
                            command_line: l.command_line.clone(),
                            crate_version: l.crate_version.clone(),
                            git_commit: l.git_commit.clone(),
                            units: l.units,
                            threads: l.threads,
                            elapsed_seconds: l.elapsed_seconds,
                            merged_from: Vec::new(),
                        })
                        .collect(),
                }),
                Err(_) => Err(e),
            },
        }
    }
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
        Manifest::parse(&text).ok()
    }

    /// The manifest beside `result`: `None` if there is none; an error (exit 2) if one exists but
    /// is unreadable or describes another file, unless `--replace-manifest` allowed replacing it
    /// (then `None`). A manifest is never silently replaced.
    pub fn read_beside_checked(result: &Path) -> Result<Option<Manifest>> {
        let path = Self::path_for(result);
        if !path.exists() {
            return Ok(None);
        }
        let name = result
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let problem = match std::fs::read_to_string(&path) {
            Err(e) => format!("cannot read it: {e}"),
            Ok(text) => match Manifest::parse(&text) {
                Err(e) => format!("not a gridcensus manifest: {e}"),
                Ok(m) if m.result != name => {
                    format!("it describes '{}', not '{name}'", m.result)
                }
                Ok(m) => return Ok(Some(m)),
            },
        };
        if REPLACE_FOREIGN.load(Ordering::SeqCst) {
            eprintln!("replacing manifest {} ({problem})", path.display());
            return Ok(None);
        }
        Err(crate::error::input_error(format!(
            "manifest {}: {problem}; nothing written (pass --replace-manifest to replace it)",
            path.display()
        )))
    }

    /// The manifest as file bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        Ok((serde_json::to_string_pretty(self)? + "\n").into_bytes())
    }

    pub fn write_beside(&self, result: &Path) -> Result<()> {
        atomic::write_atomic(&Self::path_for(result), &self.to_bytes()?)
    }

    /// Like [`Manifest::upsert`], but refusing an unreadable or foreign earlier manifest.
    pub fn upsert_checked(
        result: &Path,
        runs: Vec<RunRecord>,
        keep: impl Fn(&JobSpec) -> bool,
    ) -> Result<Manifest> {
        let earlier = Self::read_beside_checked(result)?;
        Ok(Self::upsert_from(earlier, result, runs, keep))
    }

    /// A manifest of `runs`, keeping the earlier manifest's records of `kept` specs.
    pub fn upsert(
        result: &Path,
        runs: Vec<RunRecord>,
        keep: impl Fn(&JobSpec) -> bool,
    ) -> Manifest {
        Self::upsert_from(Manifest::read_beside(result), result, runs, keep)
    }

    fn upsert_from(
        earlier: Option<Manifest>,
        result: &Path,
        runs: Vec<RunRecord>,
        keep: impl Fn(&JobSpec) -> bool,
    ) -> Manifest {
        let mut all: Vec<RunRecord> = earlier
            .map(|m| {
                m.runs
                    .into_iter()
                    .filter(|r| keep(&r.spec) && !runs.iter().any(|n| n.spec == r.spec))
                    .collect()
            })
            .unwrap_or_default();
        all.extend(runs);
        Manifest {
            result_fnv64: None,
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
