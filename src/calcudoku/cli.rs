//! `gridcensus calcudoku ...` subcommands.

use anyhow::Result;
use clap::Subcommand;
use std::path::{Path, PathBuf};

#[derive(Subcommand, Debug)]
pub enum CalcudokuCmd {
    /// Not built yet: prints the issue that tracks it.
    Status,
}

pub fn run(cmd: CalcudokuCmd) -> Result<()> {
    match cmd {
        CalcudokuCmd::Status => Err(crate::error::input_error(
            "calcudoku: not built yet (see its issue)",
        )),
    }
}

/// Merge partial files if `kind` is one of this module's jobs; `Ok(false)` otherwise.
pub fn merge(_kind: &str, _files: &[PathBuf], _results: &Path) -> Result<bool> {
    Ok(false)
}
