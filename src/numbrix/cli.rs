//! `gridcensus numbrix ...` subcommands.

use super::census::cli as census_cli;
use anyhow::Result;
use clap::Subcommand;
use std::path::{Path, PathBuf};

#[derive(Subcommand, Debug)]
pub enum NumbrixCmd {
    /// Hamiltonian-path census of m×n grids (raw walk engine and frontier counter).
    Census(census_cli::CensusArgs),
    /// Backbite sampler held to exact uniformity.
    Sampler(census_cli::SamplerArgs),
}

pub fn run(cmd: NumbrixCmd) -> Result<()> {
    match cmd {
        NumbrixCmd::Census(a) => census_cli::run_census(a),
        NumbrixCmd::Sampler(a) => census_cli::run_sampler(a),
    }
}

/// Merge partial files if `kind` is one of this module's jobs; `Ok(false)` otherwise.
pub fn merge(kind: &str, files: &[PathBuf], results: &Path) -> Result<bool> {
    if census_cli::merge(kind, files, results)? {
        return Ok(true);
    }
    Ok(false)
}
