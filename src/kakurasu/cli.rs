//! `gridcensus kakurasu ...` subcommands.

use anyhow::Result;
use clap::Subcommand;
use std::path::{Path, PathBuf};

#[derive(Subcommand, Debug)]
pub enum KakurasuCmd {
    /// Not built yet: prints the issue that tracks it.
    Status,
}

pub fn run(cmd: KakurasuCmd) -> Result<()> {
    match cmd {
        KakurasuCmd::Status => Err(crate::error::input_error(
            "kakurasu: not built yet (see its issue)",
        )),
    }
}

/// Merge partial files if `kind` is one of this module's jobs; `Ok(false)` otherwise.
pub fn merge(_kind: &str, _files: &[PathBuf], _results: &Path) -> Result<bool> {
    Ok(false)
}
