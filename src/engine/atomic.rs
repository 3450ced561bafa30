//! Atomic result files: write to a temp file in the same directory, fsync, rename.
//!
//! Temp files are named `.tmp-<pid>-<random>`; a writer first removes the temp files in its
//! directory whose process is gone (a `kill -9` during a write leaves nothing behind after the next
//! run). Files that must stay consistent with each other (a census and its summary) are written as
//! a group through a commit record: all temps are written, the record listing them is written, the
//! temps are renamed, the record is removed. A group interrupted after its record was written is
//! completed (rolled forward) by the next writer in that directory; one interrupted before is
//! rolled back (its temps are stale and removed).

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

const COMMIT_PREFIX: &str = ".commit-";

fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Whether process `pid` is alive (Linux /proc; elsewhere every process counts as alive).
fn alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new(&format!("/proc/{pid}")).exists()
    } else {
        true
    }
}

#[derive(Serialize, Deserialize)]
struct CommitRecord {
    /// (temp file name, final file name), both inside the record's directory.
    renames: Vec<(String, String)>,
}

/// Complete interrupted groups and remove temp files left by dead processes in `dir`.
pub fn recover_dir(dir: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // Roll forward every complete commit record of a dead writer.
    for name in names.iter().filter(|n| n.starts_with(COMMIT_PREFIX)) {
        let pid = name[COMMIT_PREFIX.len()..]
            .split('-')
            .next()
            .and_then(|p| p.parse::<u32>().ok());
        if pid.is_some_and(alive) {
            continue;
        }
        let path = dir.join(name);
        if let Ok(rec) = serde_json::from_str::<CommitRecord>(
            &std::fs::read_to_string(&path).unwrap_or_default(),
        ) {
            for (tmp, fin) in &rec.renames {
                let t = dir.join(tmp);
                if t.exists() {
                    std::fs::rename(&t, dir.join(fin)).with_context(|| {
                        format!(
                            "cannot complete an interrupted write of {}",
                            dir.join(fin).display()
                        )
                    })?;
                }
            }
        }
        std::fs::remove_file(&path).ok();
    }
    // Remove temp files of dead processes.
    for name in names.iter().filter(|n| n.starts_with(".tmp-")) {
        let pid = name[5..]
            .split('-')
            .next()
            .and_then(|p| p.parse::<u32>().ok());
        match pid {
            Some(p) if alive(p) => {}
            _ => {
                std::fs::remove_file(dir.join(name)).ok();
            }
        }
    }
    Ok(())
}

/// Write `bytes` to a fresh temp file in `dir`; returns the kept temp path.
fn write_temp(dir: &Path, final_path: &Path, bytes: &[u8]) -> Result<PathBuf> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create directory {}", dir.display()))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".tmp-{}-", std::process::id()))
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temp file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .with_context(|| format!("cannot write {}", final_path.display()))?;
    // Temp files are created 0600; a result file is for everyone to read, like any other file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))
            .with_context(|| format!("cannot set permissions on {}", final_path.display()))?;
    }
    tmp.as_file().sync_all().ok();
    let (_, p) = tmp
        .keep()
        .with_context(|| format!("cannot keep a temp file for {}", final_path.display()))?;
    Ok(p)
}

/// Write `bytes` to `path` atomically: readers see the old file or the new one, never a half.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = dir_of(path);
    recover_dir(dir)?;
    let tmp = write_temp(dir, path, bytes)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        std::fs::remove_file(&tmp).ok();
        anyhow::anyhow!("cannot rename a temp file onto {}: {e}", path.display())
    })?;
    Ok(())
}

/// Write a string atomically.
pub fn write_atomic_str(path: &Path, text: &str) -> Result<()> {
    write_atomic(path, text.as_bytes())
}

/// Write several files of one directory so that a reader (after [`recover_dir`], which every
/// writer runs first) sees all of the new versions or all of the old ones.
pub fn write_atomic_group(files: &[(PathBuf, Vec<u8>)]) -> Result<()> {
    let Some((first, _)) = files.first() else {
        return Ok(());
    };
    let dir = dir_of(first).to_path_buf();
    recover_dir(&dir)?;
    let mut renames = Vec::new();
    for (path, bytes) in files {
        if dir_of(path) != dir {
            anyhow::bail!(
                "internal error: a write group spans directories ({} and {})",
                dir.display(),
                path.display()
            );
        }
        let tmp = write_temp(&dir, path, bytes)?;
        renames.push((
            tmp.file_name().unwrap().to_string_lossy().into_owned(),
            path.file_name().unwrap().to_string_lossy().into_owned(),
        ));
    }
    let rec = serde_json::to_string(&CommitRecord {
        renames: renames.clone(),
    })?;
    let rec_tmp = write_temp(&dir, &dir.join("commit record"), rec.as_bytes())?;
    let rec_path = dir.join(format!("{COMMIT_PREFIX}{}-group", std::process::id()));
    std::fs::rename(&rec_tmp, &rec_path)
        .with_context(|| format!("cannot write a commit record in {}", dir.display()))?;
    if std::env::var_os("GRIDCENSUS_TEST_DIE_IN_GROUP").is_some() {
        // Test hook: die between the commit record and the renames.
        std::process::abort();
    }
    for (tmp, fin) in &renames {
        std::fs::rename(dir.join(tmp), dir.join(fin)).with_context(|| {
            format!("cannot rename a temp file onto {}", dir.join(fin).display())
        })?;
    }
    std::fs::remove_file(&rec_path).ok();
    Ok(())
}
