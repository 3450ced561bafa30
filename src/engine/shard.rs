//! Partial files (`--shard I/N`) and their merge.
//!
//! A partial file holds the job spec, the shard, the total unit count and the partial of every
//! unit in the shard. [`merge_files`] refuses missing, duplicate, corrupt or mismatched partials
//! and folds the units in index order, so the merged total is exactly the unsharded total.

use super::run::Shard;
use super::{JobSpec, Partial, atomic};
use crate::error::input_error;
use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const PARTIAL_FORMAT: &str = "gridcensus-partial/1";

#[derive(Serialize, Deserialize)]
pub struct PartialFile<P> {
    pub format: String,
    pub spec: JobSpec,
    pub shard: Shard,
    pub units_total: u64,
    /// FNV-1a 64 digest of the JSON of `units`: a partial whose payload was altered after it was
    /// written (a doctored or corrupted count) is refused at merge.
    #[serde(default)]
    pub checksum: String,
    pub units: Vec<(u64, P)>,
}

/// FNV-1a 64 as 16 hex digits.
pub fn fnv64(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// A partial file with its payload as raw JSON text (what the checksum covers).
#[derive(Serialize, Deserialize)]
struct RawPartialFile {
    format: String,
    spec: JobSpec,
    shard: Shard,
    units_total: u64,
    #[serde(default)]
    checksum: String,
    units: Box<serde_json::value::RawValue>,
}

/// Header-only view, to learn a partial file's job kind before knowing its partial type.
#[derive(Deserialize)]
pub struct PartialHeader {
    pub format: String,
    pub spec: JobSpec,
    pub shard: Shard,
    pub units_total: u64,
}

pub fn write_partial_file<P: Partial>(
    path: &Path,
    spec: &JobSpec,
    shard: Shard,
    units_total: u64,
    partials: BTreeMap<u64, P>,
) -> Result<()> {
    let units: Vec<(u64, P)> = partials.into_iter().collect();
    // The checksum covers the payload's JSON text exactly as written.
    let units_json = serde_json::to_string(&units)?;
    let file = RawPartialFile {
        format: PARTIAL_FORMAT.to_string(),
        spec: spec.clone(),
        shard,
        units_total,
        checksum: fnv64(units_json.as_bytes()),
        units: serde_json::value::RawValue::from_string(units_json)?,
    };
    let text = serde_json::to_string(&file)? + "\n";
    atomic::write_atomic_str(path, &text)
}

fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| input_error(format!("cannot read partial file {}: {e}", path.display())))
}

/// Read just the header of a partial file (its spec says which job type to merge it as).
pub fn read_header(path: &Path) -> Result<PartialHeader> {
    let text = read_text(path)?;
    let h: PartialHeader = serde_json::from_str(&text).map_err(|e| {
        input_error(format!(
            "corrupt or truncated partial file {}: {e}",
            path.display()
        ))
    })?;
    if h.format != PARTIAL_FORMAT {
        bail!(input_error(format!(
            "{} is not a gridcensus partial file (format {})",
            path.display(),
            h.format
        )));
    }
    Ok(h)
}

pub fn read_partial_file<P: Partial>(path: &Path) -> Result<PartialFile<P>> {
    let header = read_header(path)?;
    let text = read_text(path)?;
    let f: PartialFile<P> = serde_json::from_str(&text).map_err(|e| {
        input_error(format!(
            "partial file {} ({} job) has a payload that does not read as that job's units: {e}",
            path.display(),
            header.spec.kind
        ))
    })?;
    let raw: RawPartialFile = serde_json::from_str(&text).map_err(|e| {
        input_error(format!(
            "corrupt or truncated partial file {}: {e}",
            path.display()
        ))
    })?;
    let sum = fnv64(raw.units.get().as_bytes());
    if f.checksum != sum {
        bail!(input_error(format!(
            "partial file {} fails its checksum (recorded {}, payload {sum}): it was altered or corrupted after it was written; rerun that shard",
            path.display(),
            if f.checksum.is_empty() {
                "none"
            } else {
                &f.checksum
            }
        )));
    }
    Ok(f)
}

/// Merge partial files of one job into the unsharded total. Returns the spec, the total units
/// and the folded total.
pub fn merge_files<P: Partial>(paths: &[PathBuf]) -> Result<(JobSpec, u64, P)> {
    if paths.is_empty() {
        bail!(input_error("merge needs at least one partial file"));
    }
    let mut spec: Option<(JobSpec, u64, u64, PathBuf)> = None;
    let mut shards_seen: BTreeMap<u64, PathBuf> = BTreeMap::new();
    let mut units: BTreeMap<u64, P> = BTreeMap::new();
    for path in paths {
        let f: PartialFile<P> = read_partial_file(path)?;
        match &spec {
            None => spec = Some((f.spec.clone(), f.shard.count, f.units_total, path.clone())),
            Some((s, count, total, first)) => {
                if *s != f.spec {
                    bail!(input_error(format!(
                        "partial files are from different jobs: {} is {} {} (seed {}), {} is {} {} (seed {})",
                        first.display(),
                        s.kind,
                        s.params,
                        s.seed,
                        path.display(),
                        f.spec.kind,
                        f.spec.params,
                        f.spec.seed
                    )));
                }
                if *total != f.units_total {
                    bail!(input_error(format!(
                        "partial files disagree on the job's unit count: {} says {} units, {} says {} (made by different versions of the tool?)",
                        first.display(),
                        total,
                        path.display(),
                        f.units_total
                    )));
                }
                if *count != f.shard.count {
                    bail!(input_error(format!(
                        "partial files split the job differently: {} has {} shards, {} has {}",
                        first.display(),
                        count,
                        path.display(),
                        f.shard.count
                    )));
                }
            }
        }
        if let Some(prev) = shards_seen.insert(f.shard.index, path.clone()) {
            bail!(input_error(format!(
                "duplicate partial: shard {} is in both {} and {}",
                f.shard,
                prev.display(),
                path.display()
            )));
        }
        let expected: Vec<u64> = f.shard.units(f.units_total).collect();
        let got: Vec<u64> = f.units.iter().map(|(u, _)| *u).collect();
        if got != expected {
            bail!(input_error(format!(
                "partial file {} (shard {}) does not hold exactly its {} units",
                path.display(),
                f.shard,
                expected.len()
            )));
        }
        units.extend(f.units);
    }
    let (spec, count, total, _) = spec.expect("at least one file");
    let missing: Vec<String> = (0..count)
        .filter(|i| !shards_seen.contains_key(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        bail!(input_error(format!(
            "missing partial file(s) for shard(s) {}",
            missing.join(", ")
        )));
    }
    let acc = super::run::fold(units.into_values());
    Ok((spec, total, acc))
}
